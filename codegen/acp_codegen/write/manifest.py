"""The manifest: which files of a package folder acp-codegen wrote, and the bytes it wrote.

One manifest per generated package, inside the package folder (`<folder>/MANIFEST`), so several
packages can share an output directory and a vendored copy carries its own. Releases before it
kept one manifest per output directory (`<out>/MANIFEST`, paths `<package>/<file>`); files it
lists still count as ours (`Legacy`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MANIFEST = ".acp-codegen-manifest.json"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def build_manifest(about: dict[str, object], files: dict[str, bytes]) -> bytes:
    """The manifest for `files` (paths inside the package folder): `about` plus each file's hash."""
    listing = {rel: sha256(data) for rel, data in sorted(files.items()) if rel != MANIFEST}
    return (json.dumps({**about, "files": listing}, indent=2) + "\n").encode("utf-8")


def same_apart_from_fingerprint(old: bytes, new: bytes) -> bool:
    """Two manifests that differ at most in their input fingerprint (a cache key: a generator
    change that leaves the output alone must not make `check` fail)."""
    try:
        a, b = json.loads(old), json.loads(new)
    except ValueError:
        return False
    if not (isinstance(a, dict) and isinstance(b, dict)):
        return False
    a.pop("fingerprint", None)
    b.pop("fingerprint", None)
    return bool(a == b)


@dataclass(frozen=True, slots=True)
class Legacy:
    """A single manifest of an older release: `path` lists files as `<prefix>/<file>`."""

    path: Path
    prefix: str


@dataclass(frozen=True, slots=True)
class Owned:
    """What a package folder's manifests say we wrote.

    `files` maps a path inside the folder to the sha256 we wrote (None: an old manifest without
    hashes; any bytes count as ours). `managed` is False when no manifest mentions the folder.
    `about` is the current manifest's header (empty when there is none).
    """

    files: dict[str, str | None]
    managed: bool
    about: dict[str, object]


def _safe(rel: object) -> str | None:
    """A manifest entry as a relative path that stays inside the folder (tampering is ignored)."""
    if not isinstance(rel, str) or not rel or "\\" in rel:
        return None
    path = PurePosixPath(rel)
    if path.is_absolute() or ".." in path.parts or path.as_posix() != rel or rel == MANIFEST:
        return None
    return rel


def _load(path: Path) -> dict[str, object] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def read_owned(folder: Path, legacy: Legacy | None = None) -> Owned:
    files: dict[str, str | None] = {}
    managed = False
    about: dict[str, object] = {}
    if legacy is not None:
        data = _load(legacy.path)
        listed = data.get("files") if data else None
        for entry in listed if isinstance(listed, list) else []:
            if isinstance(entry, str) and entry.startswith(legacy.prefix + "/"):
                rel = _safe(entry.removeprefix(legacy.prefix + "/"))
                if rel is not None:
                    files[rel] = None
                    managed = True
    data = _load(folder / MANIFEST)
    if data is not None:
        managed = True
        about = {key: value for key, value in data.items() if key != "files"}
        listed = data.get("files")
        if isinstance(listed, dict):
            for entry, digest in listed.items():
                rel = _safe(entry)
                if rel is not None:
                    files[rel] = digest if isinstance(digest, str) else None
    return Owned(files, managed, about)


def release_legacy(legacy: Legacy | None) -> None:
    """After writing the package: drop its entries from the old manifest (the file goes when
    nothing else is listed), so the old manifest never claims files the new one owns."""
    if legacy is None:
        return
    data = _load(legacy.path)
    listed = data.get("files") if data else None
    if data is None or not isinstance(listed, list):
        return
    rest = [e for e in listed if not (isinstance(e, str) and e.startswith(legacy.prefix + "/"))]
    if len(rest) == len(listed):
        return
    if not rest:
        legacy.path.unlink(missing_ok=True)
        return
    data["files"] = rest
    legacy.path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
