"""A package of the canonical (v2) schema that carries a `v1` subpackage, rendered for the
client tests: the top level rendered knowing the v1 protocol (its `Client` then drives v1
agents too) and the `v1` subpackage as a single-version package of upstream's v1 schema."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from acp_codegen.commands.pipeline import load_protocol, render_files
from acp_codegen.emit.render import Target, render_package
from conftest import SCHEMA, UPSTREAM, _import_from

V1_SCHEMA = UPSTREAM / "v1-2.4.0" / "schema.json"


def write_package(out: Path, name: str) -> ModuleType:
    """Render, write under `out` and import the package `name` (with `name.v1`)."""
    v2 = load_protocol(SCHEMA)
    v1 = load_protocol(V1_SCHEMA, V1_SCHEMA.name)
    files = {
        **render_package(v2, Target(package=name, command="x"), v1=v1),
        **{
            f"v1/{rel}": data
            for rel, data in render_files(v1, Target(package=f"{name}.v1", command="x")).items()
        },
    }
    for rel, data in files.items():
        path = out / name / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return _import_from(out, name)
