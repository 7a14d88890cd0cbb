"""load -> validate -> IR -> render -> format, all in memory; the CLI decides what to write."""

from __future__ import annotations

from pathlib import Path

from . import __version__
from .dcg import PYDANTIC_MINIMUM
from .errors import Problem, SchemaError
from .fingerprint import input_fingerprint
from .ir import Protocol
from .manifest import MANIFEST, build_manifest
from .naming import is_identifier
from .parse import build_protocol, load_document
from .render import Target, render_package
from .validate import check


def load_protocol(schema: Path, display_name: str | None = None) -> Protocol:
    """Read, validate and parse a schema file; raises SchemaError listing every problem."""
    name = display_name or str(schema)
    doc, raw = load_document(schema, name)
    problems = check(doc, name)
    if problems:
        raise SchemaError(problems)
    return build_protocol(doc, raw, name)


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
