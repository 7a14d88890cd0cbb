"""Defaults for the CLI from `[tool.acp-codegen]` in the nearest pyproject.toml."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..paths import BUNDLED_SCHEMA, BUNDLED_V1_SCHEMA
from .targets import UsageError

DEFAULT_OUT = "generated"
DEFAULT_PACKAGE = "acp_bindings"


@dataclass(frozen=True, slots=True)
class Settings:
    schema: Path
    out: Path
    package: str
    bundled_schema: bool = False  # no table names a schema: the one shipped with the tool
    # The v1 schema of a package carrying both versions (subpackage `v1`): `v1-schema` in the
    # table, the shipped one with the shipped schema; None for a single-version package.
    v1_schema: Path | None = None


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
    )


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
    for key in ("schema", "v1-schema", "out", "package"):
        if key in table and not isinstance(table[key], str):
            raise UsageError(f"{pyproject}: [tool.acp-codegen] {key} must be a string")
    return table
