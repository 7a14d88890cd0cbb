"""load -> validate -> IR -> render -> format, all in memory; the CLI decides what to write."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from . import __version__
from .errors import Problem, SchemaError
from .ir import Protocol
from .naming import is_identifier
from .newer import protocol_version
from .overlay import V2_OVERLAY, Overlay, apply_overlay, has_merge_rules, load_overlay
from .parse import build_protocol, load_document
from .render import Target, render_package
from .validate import check
from .writer import with_manifest


def load_protocol(
    schema: Path, display_name: str | None = None, overlay: Path | None = None
) -> Protocol:
    """Read, validate and parse a schema file; raises SchemaError listing every problem.

    `overlay` (an overlay file, see overlay.py) adds merge rules and patch fields; without it a
    v2 input that has no `x-merge` gets the built-in ACP v2 overlay."""
    name = display_name or str(schema)
    doc, raw = load_document(schema, name)
    problems = check(doc, name)
    if problems:
        raise SchemaError(problems)
    chosen: Overlay | None = None
    if overlay is not None:
        chosen = load_overlay(overlay)
    elif not has_merge_rules(doc) and (protocol_version(doc)[0] or 0) >= 2:
        chosen = load_overlay(V2_OVERLAY, f"{V2_OVERLAY.name} (built in)")
    notes: list[str] = []
    if chosen is not None:
        doc, notes = apply_overlay(doc, chosen, name)
        notes.insert(0, f"{name}: merge rules and patch fields from overlay {chosen.name}")
    protocol = build_protocol(doc, raw, name)
    return replace(protocol, notes=(*notes, *protocol.notes))


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
