"""Defaults for the CLI from `[tool.acp-codegen]` in the nearest pyproject.toml.

A pyproject.toml comes with a cloned project, so its table is not the user's word: every path in
it (`PATH_KEYS`) must stay inside the project, the folder holding that file, once `..`, `~` and
symlinks are resolved. One that leads elsewhere is refused when it is used, naming the file and
the key; the same path given on the command line (`--out`, `--schema`, `--v1-schema`) is the
user's own choice and is taken as ever. Reading counts too: a schema's text ends up in the
generated files and in messages, so a cloned project cannot have its pre-commit hook read files
from elsewhere on the machine either.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..paths import BUNDLED_SCHEMA, BUNDLED_V1_SCHEMA
from .targets import UsageError

DEFAULT_OUT = "generated"
DEFAULT_PACKAGE = "acp_bindings"
# The table's keys that name files, each with the option that names the same file instead.
PATH_KEYS = {"schema": "--schema", "v1-schema": "--v1-schema", "out": "--out"}


@dataclass(frozen=True, slots=True)
class Escape:
    """A path in the table that leads outside the project."""

    pyproject: Path
    key: str
    value: str
    resolved: Path

    def message(self) -> str:
        return (
            f"{self.pyproject}: [tool.acp-codegen] {self.key} = {self.value!r} leads outside the "
            f"project ({str(self.resolved)!r} is not inside {str(self.pyproject.parent)!r}); "
            "paths in that table must stay inside the folder holding the file. Nothing was "
            f"written. To use that path, give it yourself: {PATH_KEYS[self.key]} PATH"
        )


@dataclass(frozen=True, slots=True)
class Settings:
    schema: Path
    out: Path
    package: str
    bundled_schema: bool = False  # no table names a schema: the one shipped with the tool
    # The v1 schema of a package carrying both versions (subpackage `v1`): `v1-schema` in the
    # table, the shipped one with the shipped schema; None for a single-version package.
    v1_schema: Path | None = None
    # Paths in the table that lead outside the project: refused by `inside` when used.
    escapes: tuple[Escape, ...] = ()
    unstable: bool = False  # `unstable = true`: generate the unstable surface too (--unstable)

    def inside(self, key: str) -> None:
        """Refuse (a usage error, exit 2) when the table's `key` leads outside the project."""
        for escape in self.escapes:
            if escape.key == key:
                raise UsageError(escape.message())


def find_pyproject(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_settings(cwd: Path) -> Settings:
    """Project defaults; paths in pyproject.toml are relative to the file's folder. Without a
    `[tool.acp-codegen]` table the input is the schema shipped with the tool."""
    pyproject = find_pyproject(cwd)
    table: dict[str, object] = {}
    base = cwd
    if pyproject is not None:
        table = _table(pyproject)
        if table:
            base = pyproject.parent
    schema = table.get("schema")
    v1_schema = table.get("v1-schema")
    v1 = base / Path(str(v1_schema)).expanduser() if v1_schema is not None else None
    return Settings(
        schema=base / Path(str(schema)).expanduser() if schema is not None else BUNDLED_SCHEMA,
        out=base / Path(str(table.get("out", DEFAULT_OUT))).expanduser(),
        package=str(table.get("package", DEFAULT_PACKAGE)),
        bundled_schema=schema is None,
        v1_schema=BUNDLED_V1_SCHEMA if schema is None and v1 is None else v1,
        escapes=_escapes(pyproject, table) if pyproject is not None else (),
        unstable=table.get("unstable") is True,
    )


def _escapes(pyproject: Path, table: dict[str, object]) -> tuple[Escape, ...]:
    """The table's paths that resolve (`..`, `~`, symlinks) to somewhere outside its folder;
    `out` even when left to its default, since a folder of the project may be a symlink."""
    if not table:
        return ()
    root = pyproject.parent.resolve()
    found = []
    for key in PATH_KEYS:
        value = table.get(key, DEFAULT_OUT if key == "out" else None)
        if not isinstance(value, str):
            continue
        path = pyproject.parent / Path(value).expanduser()
        resolved = _resolved(path)
        if resolved is None or not resolved.is_relative_to(root):
            found.append(Escape(pyproject, key, value, resolved or path))
    return tuple(found)


def _resolved(path: Path) -> Path | None:
    """`path` with `..` and symlinks resolved; None when its symlinks loop (not provably inside:
    Python 3.11 raises there, 3.13 hands the path back unresolved, so look strictly first)."""
    try:
        path.resolve(strict=True)
    except (FileNotFoundError, NotADirectoryError):
        pass  # a part missing (or a file): nothing below it can loop
    except (OSError, RuntimeError):
        return None
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return None


def has_table(pyproject: Path) -> bool:
    """Whether the file holds a `[tool.acp-codegen]` table (a broken file is reported as usual)."""
    return bool(_table(pyproject))


def _table(pyproject: Path) -> dict[str, object]:
    """`[tool.acp-codegen]`, checked: a broken pyproject.toml is the user's to fix, so it is
    reported as a usage error (exit 2) naming the file, never a traceback."""
    try:
        with pyproject.open("rb") as handle:
            doc = tomllib.load(handle)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{pyproject}: cannot be read as TOML: {exc}") from exc
    tool = doc.get("tool", {})
    table = tool.get("acp-codegen", {}) if isinstance(tool, dict) else {}
    if not isinstance(table, dict):
        raise UsageError(f"{pyproject}: [tool.acp-codegen] must be a table")
    for key in (*PATH_KEYS, "package"):
        if key in table and not isinstance(table[key], str):
            raise UsageError(f"{pyproject}: [tool.acp-codegen] {key} must be a string")
    if "unstable" in table and not isinstance(table["unstable"], bool):
        raise UsageError(f"{pyproject}: [tool.acp-codegen] unstable must be true or false")
    return table
