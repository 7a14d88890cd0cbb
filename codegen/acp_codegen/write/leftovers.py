"""Clean up after a run that was killed while swapping a package folder in.

The writer stages the new folder as `.<name>.new-XXXXXXXX` beside it, renames the old one to
`.<name>.old-XXXXXXXX`, renames the stage into place and then removes the old one. A kill in
between leaves one of those hidden folders behind (and, between the two renames, no package
folder at all). Before the next write we put things back in order, touching only folders that
are ours: the name has that pattern and the folder holds our manifest (or nothing at all).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from .manifest import MANIFEST, read_owned

# tempfile.mkdtemp's random part: eight characters of this alphabet.
_SUFFIX = r"[a-z0-9_]{8}"


def leftovers(folder: Path, kind: str) -> list[Path]:
    """Our leftover `kind` ("new" or "old") folders beside `folder`, by name."""
    pattern = re.compile(rf"\.{re.escape(folder.name)}\.{kind}-{_SUFFIX}")
    if not folder.parent.is_dir():
        return []
    return sorted(
        path for path in folder.parent.iterdir() if pattern.fullmatch(path.name) and _ours(path)
    )


def pending(folder: Path) -> bool:
    """Whether an interrupted run left anything of ours beside `folder`."""
    return bool(leftovers(folder, "new") or leftovers(folder, "old"))


# The name `writer._replace_file` gives the manifest while writing it into a stage.
_MANIFEST_PART = re.compile(rf"\.{re.escape(MANIFEST)}\.new-[a-z0-9_]{{8}}")


def _ours(path: Path) -> bool:
    if path.is_symlink() or not path.is_dir():
        return False
    if all(_only_a_started_manifest(entry) for entry in path.iterdir()):
        return True  # empty, or a run killed as it began the stage (the manifest goes first)
    return (path / MANIFEST).is_file() and read_owned(path).managed


def _only_a_started_manifest(entry: Path) -> bool:
    """A manifest being written when the run was killed: the part file of today's writer, or
    the empty manifest an earlier release's writer left (it wrote the manifest in place)."""
    if entry.is_symlink() or not entry.is_file():
        return False
    return bool(_MANIFEST_PART.fullmatch(entry.name)) or (
        entry.name == MANIFEST and entry.stat().st_size == 0
    )


def recover(folder: Path) -> list[str]:
    """Restore or remove what an interrupted swap left beside `folder`; returns what was done,
    one sentence each (nothing when there was nothing to do)."""
    done: list[str] = []
    old = leftovers(folder, "old")
    if not folder.exists() and old:
        if len(old) > 1:  # which one was the package is not ours to guess
            names = ", ".join(path.name for path in old)
            return [f"{folder} is missing and several earlier copies remain ({names}); left as is"]
        old[0].rename(folder)
        done.append(f"restored {folder} from {old[0].name} (a run was interrupted)")
    # What remains are copies of the package in place (or of one never completed).
    for path in [*leftovers(folder, "new"), *leftovers(folder, "old")]:
        shutil.rmtree(path)
        done.append(f"removed {path.name} beside {folder} (left by an interrupted run)")
    return done
