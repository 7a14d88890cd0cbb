"""load -> validate -> IR -> render -> format, all in memory; the CLI decides what to write."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from . import __version__
from .dcg import PYDANTIC_MINIMUM
from .errors import Problem, SchemaError
from .fingerprint import input_fingerprint
from .ir import Protocol
from .manifest import MANIFEST, build_manifest
from .naming import is_identifier
from .newer import protocol_version
from .overlay import V2_OVERLAY, Overlay, apply_overlay, has_merge_rules, load_overlay
from .parse import build_protocol, load_document
from .render import Target, render_package
from .validate import check


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


def render_files(protocol: Protocol, target: Target) -> dict[str, bytes]:
    """The package folder's files (paths inside it), its manifest included. `target.package` may
    be dotted (a vendored copy): the generated code never names itself."""
    files = render_package(protocol, target)
    about = {
        "generated-by": f"acp-codegen {__version__}",
        "package": target.package,
        "requires": f"pydantic>={PYDANTIC_MINIMUM}",
        "schema": protocol.source_name,
        "schema-sha256": protocol.sha256,
        "regenerate": target.command,
        "fingerprint": input_fingerprint(protocol.sha256, protocol.source_name, target),
    }
    return {**files, MANIFEST: build_manifest(about, files)}


def render_tree(protocol: Protocol, target: Target) -> dict[str, bytes]:
    """The output directory's files for a plain package: `<package>/<file>`, manifest included."""
    if not is_identifier(target.package):
        raise SchemaError(
            [Problem("--package", "", f"{target.package!r} is not a Python package name")]
        )
    files = render_files(protocol, target)
    return {f"{target.package}/{rel}": data for rel, data in sorted(files.items())}
