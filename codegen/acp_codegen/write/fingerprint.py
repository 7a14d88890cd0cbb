"""The input fingerprint: when it and every file on disk match the manifest, rendering is skipped.

The fingerprint covers everything that shapes the output: the schema's bytes (its sha256) and
shown name, the target (package and regenerate command), acp-codegen's version and every file of
its own package (code, templates, runtime), and the versions of the libraries whose output lands
in generated files. Any difference, or any file whose bytes differ from the manifest's hash,
means a full render.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from functools import cache
from importlib import metadata
from pathlib import Path

from .. import __version__
from ..emit.target import Target
from ..paths import PACKAGE_DIR, TEMPLATES_DIR
from .manifest import MANIFEST, sha256

_SHAPING_LIBRARIES = ("datamodel-code-generator", "black", "jinja2", "pydantic")
_SOURCE_SUFFIXES = (".py", ".j2", ".jinja2", ".json")


@cache
def generator_digest() -> str:
    """sha256 over acp-codegen's own files and the versions of the libraries it drives."""
    digest = hashlib.sha256(f"acp-codegen {__version__}\n".encode())
    for name in _SHAPING_LIBRARIES:
        try:
            digest.update(f"{name} {metadata.version(name)}\n".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{name} -\n".encode())
    for rel, path in _own_files():
        digest.update(f"{rel} {sha256(path.read_bytes())}\n".encode())
    return digest.hexdigest()


def _own_files() -> list[tuple[str, Path]]:
    """The generator's source files by a name that is the same in a wheel and in a checkout:
    its package (code, runtime, meta-schema, overlays) and its templates."""
    found = {}
    for path in PACKAGE_DIR.rglob("*"):
        rel = path.relative_to(PACKAGE_DIR)
        # bundled/ is input, covered by the schema's own hash; _bindings/ is output (generated/
        # shipped inside the tool, whose manifest holds this digest: hashing it would never
        # settle); templates/ is hashed below, wherever it lives; examples/ (the demo agent)
        # shapes no output and lives outside the package in a checkout: hashing it would make a
        # pip-installed tool's digest differ from the checkout's
        skipped = "__pycache__" in rel.parts or rel.parts[0] in (
            "bundled",
            "_bindings",
            "templates",
            "examples",
        )
        if path.suffix in _SOURCE_SUFFIXES and not skipped:
            found[rel.as_posix()] = path
    for path in TEMPLATES_DIR.rglob("*"):
        if path.suffix in _SOURCE_SUFFIXES:
            found["templates/" + path.relative_to(TEMPLATES_DIR).as_posix()] = path
    return sorted(found.items())


def input_fingerprint(
    schema_sha256: str,
    source_name: str,
    target: Target,
    extra: Mapping[str, tuple[str, str]] | None = None,
) -> str:
    """`extra`: the schemas of the version subpackages, by subpackage name, as (source name,
    sha256); a single-version package has none, and its fingerprint is as it always was."""
    key: dict[str, object] = {
        "generator": generator_digest(),
        "schema-sha256": schema_sha256,
        "schema": source_name,
        "package": target.package,
        "regenerate": target.command,
    }
    if extra:
        key["subpackages"] = {name: list(pair) for name, pair in sorted(extra.items())}
    return sha256(json.dumps(key, sort_keys=True).encode("utf-8"))


def current_file_count(folder: Path, fingerprint: str, on_disk: set[str]) -> int | None:
    """The number of files in `folder` when its manifest carries `fingerprint` and the folder
    holds exactly the listed files with the listed hashes (`on_disk`: its files, caches aside);
    None when anything differs."""
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("fingerprint") != fingerprint:
        return None
    files = data.get("files")
    if not isinstance(files, dict):
        return None
    if on_disk != set(files) | {MANIFEST}:
        return None
    for rel, digest in files.items():
        path = folder / rel
        if path.is_symlink() or not path.is_file() or sha256(path.read_bytes()) != digest:
            return None
    return len(on_disk)
