"""Write a rendered package folder without ever destroying the user's work.

Rules, for `generate` and `vendor` alike:
- a file counts as ours when the folder's manifest lists it; ours and unedited (its bytes still
  hash to what the manifest recorded) may be rewritten or removed;
- anything else in the folder (a file the manifest does not list, a listed file the user edited)
  blocks the run unless `force`; caches (`__pycache__`, `*.pyc`) are not user files;
- a folder no manifest mentions is never taken over, even with `force`, unless it holds nothing
  that differs from what we would write;
- the new folder is staged next to the old one and swapped in with renames: a failure part-way
  leaves the previous folder exactly as it was; what a killed run leaves behind is put back in
  order by the next write (`leftovers.py`);
- one run at a time writes a given folder (`write_lock.py`).
"""

from __future__ import annotations

import difflib
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .leftovers import recover
from .manifest import (
    MANIFEST,
    Legacy,
    Owned,
    read_owned,
    release_legacy,
    same_apart_from_fingerprint,
    sha256,
)
from .write_lock import folder_lock


@dataclass
class Plan:
    """What writing `files` into a folder would do, by path inside the folder."""

    changed: list[str] = field(default_factory=list)  # ours, new bytes differ
    missing: list[str] = field(default_factory=list)  # not on disk yet
    extra: list[str] = field(default_factory=list)  # on disk, not in the new package
    edited: list[str] = field(default_factory=list)  # ours, but changed since we wrote it
    unknown: list[str] = field(default_factory=list)  # on disk, never written by us
    managed: bool = False  # a manifest mentions this folder
    stale_fingerprint: bool = False  # only the manifest's input fingerprint differs
    recovered: list[str] = field(default_factory=list)  # leftovers of a killed run, put right

    @property
    def clean(self) -> bool:
        return not (self.changed or self.missing or self.extra)

    @property
    def blockers(self) -> list[str]:
        """Files only `force` may overwrite or delete."""
        return sorted(set(self.edited) | set(self.unknown))


class Refused(Exception):
    """Writing would overwrite or delete files acp-codegen did not write (`files`)."""

    def __init__(self, folder: Path, todo: Plan) -> None:
        self.folder = folder
        self.files = todo.blockers
        self.edited = set(todo.edited)
        self.forceable = todo.managed  # only a folder we created may be forced
        super().__init__(f"{folder}: {len(self.files)} file(s) not written by acp-codegen")


def files_on_disk(folder: Path) -> dict[str, Path]:
    """Every non-cache file (or symlink) below `folder`, by POSIX path inside it."""
    found: dict[str, Path] = {}
    if not folder.is_dir() or folder.is_symlink():
        return found
    for root, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if d != "__pycache__" or Path(root, d).is_symlink()]
        for name in names:
            if not name.endswith(".pyc"):
                path = Path(root, name)
                found[path.relative_to(folder).as_posix()] = path
        for name in dirs:
            if Path(root, name).is_symlink():  # os.walk does not descend: the link is the entry
                found[Path(root, name).relative_to(folder).as_posix()] = Path(root, name)
    return found


def _bytes(path: Path) -> bytes | None:
    if path.is_symlink() or not path.is_file():
        return None
    return path.read_bytes()


def plan(folder: Path, files: dict[str, bytes], owned: Owned) -> Plan:
    result = Plan(managed=owned.managed)
    disk = files_on_disk(folder)
    for rel, data in sorted(files.items()):
        if rel not in disk:
            result.missing.append(rel)
        elif (current := _bytes(disk[rel])) != data:
            if rel == MANIFEST and current and same_apart_from_fingerprint(current, data):
                result.stale_fingerprint = True
            else:
                result.changed.append(rel)
    for rel, path in sorted(disk.items()):
        current = _bytes(path)
        if rel in files and (current == files[rel] or rel == MANIFEST):
            continue  # already what we would write (or our manifest): nothing of the user's
        if rel not in files:
            result.extra.append(rel)
        if rel == MANIFEST:
            continue
        if rel not in owned.files or current is None:
            result.unknown.append(rel)
        elif owned.files[rel] is not None and owned.files[rel] != sha256(current):
            result.edited.append(rel)
    return result


def note(message: str) -> None:
    print(f"note: {message}", file=sys.stderr)


def write(
    folder: Path,
    files: dict[str, bytes],
    *,
    force: bool = False,
    legacy: Legacy | None = None,
    report: Callable[[str], None] = note,
) -> Plan:
    """Make `folder` hold exactly `files`; raises Refused (nothing written) when that would
    destroy a file we did not write, unless `force` and the folder is ours. What an interrupted
    earlier run left beside the folder is restored or removed first, each step `report`ed.
    Another run writing the same folder is waited for."""
    with folder_lock(folder, report):
        return _write_locked(folder, files, force=force, legacy=legacy, report=report)


def _write_locked(
    folder: Path,
    files: dict[str, bytes],
    *,
    force: bool,
    legacy: Legacy | None,
    report: Callable[[str], None],
) -> Plan:
    recovered = recover(folder)
    for message in recovered:
        report(message)
    todo = plan(folder, files, read_owned(folder, legacy))
    todo.recovered = recovered
    if todo.blockers and not (force and todo.managed):
        raise Refused(folder, todo)
    if not todo.clean:
        keep = {rel for rel in files if rel not in todo.changed and rel not in todo.missing}
        if todo.stale_fingerprint:
            keep.discard(MANIFEST)
        _swap_in(folder, files, keep)
    elif todo.stale_fingerprint:  # the output is current: refresh the cache key in place
        _replace_file(folder / MANIFEST, files[MANIFEST])
    release_legacy(legacy)
    return todo


def _swap_in(folder: Path, files: dict[str, bytes], keep: set[str]) -> None:
    """Stage the whole folder beside the old one, then swap: old -> backup, staged -> folder."""
    created = _missing_parents(folder.parent)
    folder.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.new-"))
    try:
        os.chmod(stage, (folder.stat().st_mode & 0o7777) if folder.is_dir() else 0o777 & ~_umask())
        # The manifest goes first, whole or not at all (written aside, then renamed): a run
        # killed while staging leaves a stage that says it is ours (see leftovers.py), so the
        # next write can remove it.
        for rel, data in sorted(files.items(), key=lambda item: item[0] != MANIFEST):
            target = stage / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if rel in keep:
                _link_or_copy(folder / rel, target)
            elif rel == MANIFEST:
                _replace_file(target, data)
            else:
                _write_file(target, data)
        if folder.is_dir():
            backup = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.old-"))
            backup.rmdir()  # a free name on the same filesystem
            os.rename(folder, backup)
            try:
                os.rename(stage, folder)
            except BaseException:
                os.rename(backup, folder)
                raise
            shutil.rmtree(backup, ignore_errors=True)
        else:
            os.rename(stage, folder)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        for parent in created:  # deepest first: only folders this run created, and only if empty
            if parent.is_dir() and not any(parent.iterdir()):
                parent.rmdir()
        raise


def _missing_parents(path: Path) -> list[Path]:
    missing: list[Path] = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    return missing


def _link_or_copy(source: Path, target: Path) -> None:
    """An unchanged file keeps its inode and mtime (a hard link); a copy where links fail."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _replace_file(path: Path, data: bytes) -> None:
    """One file replaced atomically: written beside it, then renamed over it."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.new-")
    os.close(fd)
    try:
        os.unlink(tmp)
        _write_file(Path(tmp), data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_file(path: Path, data: bytes) -> None:
    with open(path, "xb") as handle:
        handle.write(data)
    os.chmod(path, 0o666 & ~_umask())


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def diff(folder: Path, files: dict[str, bytes], todo: Plan, label: str) -> str:
    """A unified diff from the folder on disk to what writing would make it (`label` prefixes
    the paths shown)."""
    return "".join(line for _, lines in file_diffs(folder, files, todo, label) for line in lines)


def file_diffs(
    folder: Path, files: dict[str, bytes], todo: Plan, label: str
) -> list[tuple[str, list[str]]]:
    """Each differing file's unified diff lines, by the path shown (`label`/path inside)."""
    result: list[tuple[str, list[str]]] = []
    for rel in sorted(todo.changed + todo.missing + todo.extra):
        path = folder / rel
        old_bytes = _bytes(path) if rel not in todo.missing else None
        old = old_bytes.decode("utf-8", errors="replace") if old_bytes is not None else ""
        new = files[rel].decode("utf-8", errors="replace") if rel in files else ""
        shown = f"{label}/{rel}" if label else rel
        lines = difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"a/{shown}" if rel not in todo.missing else "/dev/null",
            tofile=f"b/{shown}" if rel in files else "/dev/null",
        )
        result.append((shown, list(lines)))
    return result
