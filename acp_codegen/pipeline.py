"""load -> validate -> IR -> render -> format, all in memory; the CLI decides what to write."""

from __future__ import annotations

from pathlib import Path

from . import __version__
from .errors import Problem, SchemaError
from .ir import Protocol
from .naming import is_identifier
from .parse import build_protocol, load_document
from .render import Target, render_package
from .validate import check
from .writer import with_manifest


def load_protocol(schema: Path, display_name: str | None = None) -> Protocol:
    """Read, validate and parse a schema file; raises SchemaError listing every problem."""
    name = display_name or str(schema)
    doc, raw = load_document(schema, name)
    problems = check(doc, name)
    if problems:
        raise SchemaError(problems)
    return build_protocol(doc, raw, name)


def render_tree(protocol: Protocol, target: Target) -> dict[str, bytes]:
    """The whole output tree (paths relative to the output directory), manifest included."""
    if not all(is_identifier(part) for part in target.package.split(".")) or "." in target.package:
        raise SchemaError(
            [Problem("--package", "", f"{target.package!r} is not a Python package name")]
        )
    files = render_package(protocol, target)
    about = {
        "generated-by": f"acp-codegen {__version__}",
        "schema": protocol.source_name,
        "schema-sha256": protocol.sha256,
        "regenerate": target.command,
    }
    return with_manifest({f"{target.package}/{rel}": data for rel, data in files.items()}, about)
