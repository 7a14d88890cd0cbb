"""Defaults for the CLI from `[tool.acp-codegen]` in the nearest pyproject.toml."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from .paths import BUNDLED_SCHEMA

DEFAULT_OUT = "generated"
DEFAULT_PACKAGE = "acp_bindings"


@dataclass(frozen=True, slots=True)
class Settings:
    schema: Path
    out: Path
    package: str
    bundled_schema: bool = False  # no table names a schema: the one shipped with the tool


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
        with pyproject.open("rb") as handle:
            table = tomllib.load(handle).get("tool", {}).get("acp-codegen", {})
        if table:
            base = pyproject.parent
    schema = table.get("schema")
    return Settings(
        schema=base / Path(str(schema)).expanduser() if schema is not None else BUNDLED_SCHEMA,
        out=base / Path(str(table.get("out", DEFAULT_OUT))).expanduser(),
        package=str(table.get("package", DEFAULT_PACKAGE)),
        bundled_schema=schema is None,
    )
