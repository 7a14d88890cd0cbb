"""Write a rendered tree: only files whose bytes changed; delete only files we generated before."""

from __future__ import annotations

import difflib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

MANIFEST = ".acp-codegen-manifest.json"


@dataclass
class Plan:
    """What writing a tree would change, relative to the output directory."""

    changed: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.changed or self.missing or self.extra)


def with_manifest(files: dict[str, bytes], about: dict[str, str]) -> dict[str, bytes]:
    """`files` plus the manifest that lists them (`about`: generator, schema hash, command)."""
    listing = json.dumps({**about, "files": sorted(files)}, indent=2)
    return {**files, MANIFEST: (listing + "\n").encode("utf-8")}


def previous_files(out: Path) -> set[str]:
    """Files the last run wrote, from its manifest (none when there is no readable manifest)."""
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
        return {f for f in data.get("files", []) if isinstance(f, str) and _inside(out, f)}
    except (OSError, ValueError, AttributeError):
        return set()


def _inside(out: Path, rel: str) -> bool:
    target = (out / rel).resolve()
    return target.is_relative_to(out.resolve()) and target != out.resolve()


def plan(out: Path, files: dict[str, bytes], package: str) -> Plan:
    result = Plan()
    for rel, data in sorted(files.items()):
        path = out / rel
        if not path.is_file():
            result.missing.append(rel)
        elif path.read_bytes() != data:
            result.changed.append(rel)
    stale = previous_files(out) | _untracked(out / package, out)
    result.extra = sorted(rel for rel in stale - set(files) if (out / rel).is_file())
    return result


def _untracked(package_dir: Path, out: Path) -> set[str]:
    """Files inside the generated package we did not write (caches aside)."""
    if not package_dir.is_dir():
        return set()
    return {
        p.relative_to(out).as_posix()
        for p in package_dir.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and not p.name.endswith(".pyc")
    }


def write(out: Path, files: dict[str, bytes], package: str) -> Plan:
    """Bring `out` to exactly `files`; returns what was changed."""
    todo = plan(out, files, package)
    ours = previous_files(out)  # read before the new manifest replaces it
    for rel in todo.missing + todo.changed:
        _atomic_write(out / rel, files[rel])
    for rel in todo.extra:
        if rel in ours or rel.startswith(package + "/"):
            (out / rel).unlink()
            _prune_empty(out / rel, out)
    return todo


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def _prune_empty(start: Path, stop: Path) -> None:
    parent = start.parent
    while parent != stop and parent.is_dir() and not any(parent.iterdir()):
        parent.rmdir()
        parent = parent.parent


def diff(out: Path, files: dict[str, bytes], todo: Plan) -> str:
    """A unified diff from the tree on disk to the tree `generate` would write."""
    chunks: list[str] = []
    for rel in todo.changed + todo.missing + todo.extra:
        path = out / rel
        old = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
        new = files[rel].decode("utf-8", errors="replace") if rel in files else ""
        chunks.extend(
            difflib.unified_diff(
                old.splitlines(keepends=True),
                new.splitlines(keepends=True),
                fromfile=f"a/{rel}" if path.is_file() else "/dev/null",
                tofile=f"b/{rel}" if rel in files else "/dev/null",
            )
        )
    return "".join(chunks)
