"""Checks on where output goes and what the generated package is called, before anything runs."""

from __future__ import annotations

import keyword
import sys
from pathlib import Path

# Top-level names the generated package must not take: what its code imports (a package of the
# same name would shadow it) and the official ACP SDK's import name.
RESERVED_PACKAGES = frozenset(
    {
        "acp",
        "annotated_types",
        "pydantic",
        "pydantic_core",
        "typing_extensions",
        "typing_inspection",
        *sys.stdlib_module_names,
    }
)


class UsageError(Exception):
    """A command-line value that cannot work; the message says which and why."""


def expanded(path: Path) -> Path:
    """`~` expanded, so `--out ~/x` means the same in a shell and in a config file."""
    return path.expanduser()


def checked_folder(path: Path, option: str, *, replaced: bool = False) -> Path:
    """An output folder that may be created or written below: never `/`, the home directory
    itself, or an existing file. A folder the writer `replaced` wholesale (a package folder) must
    not be a symlink either: the swap would replace the link, not the folder it points to."""
    path = expanded(path)
    if replaced and path.is_symlink():
        raise UsageError(f"{option} {path}: is a symlink; give the real folder instead")
    resolved = path.resolve()
    if resolved == Path(resolved.anchor):
        raise UsageError(f"{option} {path}: refusing to write to the filesystem root")
    if resolved == Path.home().resolve():
        raise UsageError(f"{option} {path}: refusing to write to the home directory itself")
    for folder in (resolved, *resolved.parents):
        if folder.exists() and not folder.is_dir():
            raise UsageError(f"{option} {path}: {folder} is a file, not a folder")
    return path


def checked_package(name: str, option: str = "--package", *, dotted: bool = False) -> str:
    """A package name that can be imported and shadows nothing the generated code needs."""
    if not name:
        raise UsageError(f"{option} is empty: give a Python package name such as acp_bindings")
    if "." in name and not dotted:
        raise UsageError(
            f"{option} {name!r} has dots: generate writes one top-level package; use "
            "`acp-codegen vendor --into DIR --package DOTTED.NAME` for a package inside another"
        )
    parts = name.split(".")
    for part in parts:
        if why := _not_a_name(part):
            where = f" (the part {part!r})" if len(parts) > 1 else ""
            raise UsageError(f"{option} {name!r} is not a Python package name{where}: {why}")
    top = parts[0]
    if top in RESERVED_PACKAGES:
        raise UsageError(
            f"{option} {name!r} would shadow the module {top!r} (standard library, a dependency of "
            "the generated code, or the official ACP SDK): pick another name"
        )
    return name


def _not_a_name(part: str) -> str | None:
    """Why `part` cannot be one component of an import name, or None when it can."""
    if not part:
        return "an empty part (two dots in a row, or a dot at an end)"
    if keyword.iskeyword(part):
        return f"{part!r} is a Python keyword"
    if part.isidentifier():
        return None
    fixed = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in part)
    if not fixed.isidentifier():
        return "it must start with a letter or an underscore"
    bad = sorted({ch for ch in part if not (ch.isalnum() or ch == "_")})
    shown = ", ".join(repr(ch) for ch in bad)
    return f"{shown} cannot appear in a Python name; try {fixed!r}"
