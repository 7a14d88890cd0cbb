"""load -> validate -> IR -> render -> format, all in memory; the CLI decides what to write."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from .. import __version__
from ..emit.ahead import ahead
from ..emit.dcg import PYDANTIC_MINIMUM
from ..emit.gc_tuning import quiet_gc
from ..emit.models_cache import from_environment as models_cache
from ..emit.target import SUBPACKAGE_V1, Target
from ..load.newer import automation_notes, protocol_version
from ..load.overlay import (
    V1_OVERLAY,
    V2_OVERLAY,
    Overlay,
    apply_overlay,
    has_merge_rules,
    load_overlay,
)
from ..load.parse import build_protocol, load_document
from ..load.unstable import merge_unstable, overlay_for
from ..load.validate import check
from ..model.errors import Problem, SchemaError
from ..model.ir import Protocol
from ..model.naming import is_identifier
from ..runtime.v1.constants import CURRENT_MODE_UPDATE, V1_PLAN
from ..write.fingerprint import generator_digest, input_fingerprint
from ..write.manifest import MANIFEST, build_manifest
from .kept_notes import portable

# v1 updates that have no v1 merge rule but that the package's Client reads as v2 updates it
# folds (runtime/v1/client_updates.py): beside v2, the overlay's note says so.
V1_READ_AS_V2 = {
    V1_PLAN: "the session's plan",
    CURRENT_MODE_UPDATE: "the mode config option",
}


@dataclass(frozen=True, slots=True)
class Inputs:
    """The files one generation reads, as the command resolved them (`Where.inputs`)."""

    schema: Path
    shown: str  # the schema as problems and notes name it (as the user typed it)
    overlay: Path | None = None
    v1_schema: Path | None = None  # the v1 protocol, carried as the subpackage `v1`
    v1_shown: str = ""
    v1_bundled: bool = False  # the v1 schema shipped with the tool: its notes tell nothing
    names: Mapping[str, str] = field(default_factory=dict)  # placeholder -> name (kept_notes)
    unstable: bool = False  # merge each version's unstable overlay (load/unstable.py)


def generate(inputs: Inputs, target: Target, note: Callable[[str], None]) -> dict[str, bytes]:
    """The package folder's files for `target` from `inputs`: load the schema (checked
    alongside where a spare core exists: see `loading`) and the v1 schema beside it, render,
    and tell `note` what the inputs' notes say. The manifest keeps the notes with each file
    named by its placeholder, so they read the same from any folder."""
    unstable = inputs.unstable
    with (
        quiet_gc(),
        loading(inputs.schema, inputs.shown, inputs.overlay, unstable=unstable) as protocol,
    ):
        kept = tuple(portable(protocol.notes, dict(inputs.names)))
        if inputs.v1_schema is None:
            files = render_files(replace(protocol, notes=kept), target)
            _tell(protocol.notes, note)  # before the checks' verdict, as ever
            return files
        with loading(
            inputs.v1_schema, inputs.v1_shown, read_as_v2=V1_READ_AS_V2, unstable=unstable
        ) as v1:
            if inputs.v1_bundled:  # the tool's own v1 input: its notes tell the user nothing
                v1 = replace(v1, notes=())
            else:  # beside v2, the package's Agent and Client serve v1 through the lifecycle
                alone = automation_notes(v1, inputs.v1_shown)
                v1 = replace(v1, notes=_beside_v2(v1.notes, alone))
            v1_kept = tuple(portable(v1.notes, dict(inputs.names)))
            files = render_files(replace(protocol, notes=kept), target, replace(v1, notes=v1_kept))
    _tell((*protocol.notes, *v1.notes), note)
    return files


def _tell(notes: Iterable[str], note: Callable[[str], None]) -> None:
    for text in notes:
        note(text)


def _beside_v2(notes: Iterable[str], alone: Iterable[str]) -> tuple[str, ...]:
    """A v1 schema's notes when it is generated beside v2: what it would automate alone is not
    what the package does (its Agent and Client serve v1 through the v2 lifecycle)."""
    dropped = set(alone)
    return tuple(note for note in notes if note not in dropped)


def load_protocol(
    schema: Path, display_name: str | None = None, overlay: Path | None = None
) -> Protocol:
    """Read, validate and parse a schema file; raises SchemaError listing every problem.

    `overlay` (an overlay file, see overlay.py) adds merge rules and patch fields; without it a
    v2 input that has no `x-merge` gets the built-in ACP v2 overlay."""
    with loading(schema, display_name, overlay) as protocol:
        return protocol


@contextmanager
def loading(
    schema: Path,
    display_name: str | None = None,
    overlay: Path | None = None,
    read_as_v2: Mapping[str, str] | None = None,
    unstable: bool = False,
) -> Iterator[Protocol]:
    """`load_protocol` for a caller with more work on the protocol: where a spare core exists,
    the schema checks (~0.1-0.2 s) run in a child while the block builds on the protocol, and
    leaving the block waits for them. Their problems win over anything the block raised (work
    on an input the checks reject proves nothing); without a spare core they run first, as in
    `load_protocol`, and the block never sees an unchecked protocol. `read_as_v2`: see
    `apply_overlay`. `unstable`: the schema's version's unstable overlay is merged in first
    (load/unstable.py), and its bytes join the schema's in the fingerprint."""
    name = display_name or str(schema)
    doc, raw = load_document(schema, name)
    if unstable:
        doc, raw = with_unstable(doc, raw, name)
    cache = models_cache(generator_digest)  # ACP_CODEGEN_CACHE_DIR: bytes checked before
    if cache is not None and cache.checked(raw):
        yield _build(doc, raw, name, overlay, read_as_v2)
        return
    with ahead(partial(check, doc, name)) as checked:
        if checked.done and (found := checked.result()):
            raise SchemaError(found)
        try:
            yield _build(doc, raw, name, overlay, read_as_v2)
        except Exception:
            if found := checked.result():
                raise SchemaError(found) from None
            raise
        if found := checked.result():
            raise SchemaError(found)
    if cache is not None:
        cache.remember_checked(raw)


def with_unstable(doc: dict[str, Any], raw: bytes, name: str) -> tuple[dict[str, Any], bytes]:
    """`doc` with the unstable overlay of its protocol version merged in, and the bytes the
    package's fingerprint covers (the schema's, then the overlay's)."""
    version = protocol_version(doc)[0]
    path = overlay_for(version)
    if path is None:
        raise SchemaError(
            [Problem(name, "", f"--unstable: no unstable overlay for protocol version {version}")]
        )
    merged, extra = merge_unstable(doc, path, name)
    return merged, raw + extra


def _build(
    doc: dict[str, Any],
    raw: bytes,
    name: str,
    overlay: Path | None,
    read_as_v2: Mapping[str, str] | None = None,
) -> Protocol:
    chosen: Overlay | None = None
    if overlay is not None:
        chosen = load_overlay(overlay)
    elif not has_merge_rules(doc):
        version = protocol_version(doc)[0]
        built_in = V2_OVERLAY if (version or 0) >= 2 else V1_OVERLAY if version == 1 else None
        if built_in is not None:
            chosen = load_overlay(built_in, f"{built_in.name} (built in)")
    notes: list[str] = []
    if chosen is not None:
        doc, notes = apply_overlay(doc, chosen, name, read_as_v2)
        notes.insert(0, f"{name}: merge rules and patch fields from overlay {chosen.name}")
    protocol = build_protocol(doc, raw, name)
    return replace(protocol, notes=(*notes, *protocol.notes))


def render_files(
    protocol: Protocol, target: Target, v1: Protocol | None = None
) -> dict[str, bytes]:
    """The package folder's files (paths inside it), its manifest included. `target.package` may
    be dotted (a vendored copy): the generated code never names itself. The manifest keeps the
    protocol's notes, so a run that skips rendering can print them.

    With `v1`, the package also carries that protocol as the subpackage `v1/`: the modules a
    package generated from it alone would have, importing the parent's runtime."""
    # Imported here: black, jinja and the emitters are most of loading's import time, and
    # `diff` and `validate` load without rendering.
    from ..emit.render import PARENT_RUNTIME, render_package

    cache = models_cache(generator_digest)  # ACP_CODEGEN_CACHE_DIR, when it names a folder
    files = render_package(protocol, target, v1=v1, models_cache=cache)  # drives v1 agents too
    extra: dict[str, tuple[str, str]] = {}
    if v1 is not None:
        nested = render_package(v1, target, PARENT_RUNTIME, models_cache=cache)
        files.update({f"{SUBPACKAGE_V1}/{rel}": data for rel, data in nested.items()})
        extra[SUBPACKAGE_V1] = (v1.source_name, v1.sha256)
    about: dict[str, object] = {
        "generated-by": f"acp-codegen {__version__}",
        "package": target.package,
        "requires": f"pydantic>={PYDANTIC_MINIMUM}",
        "schema": protocol.source_name,
        "schema-sha256": protocol.sha256,
        "regenerate": target.command,
        "fingerprint": input_fingerprint(protocol.sha256, protocol.source_name, target, extra),
        "notes": list(protocol.notes),
    }
    if v1 is not None:
        about["subpackages"] = {
            SUBPACKAGE_V1: {"schema": v1.source_name, "schema-sha256": v1.sha256}
        }
        about["notes"] = [*protocol.notes, *v1.notes]
    return {**files, MANIFEST: build_manifest(about, files)}


def render_tree(protocol: Protocol, target: Target, v1: Protocol | None = None) -> dict[str, bytes]:
    """The output directory's files for a plain package: `<package>/<file>`, manifest included."""
    if not is_identifier(target.package):
        raise SchemaError(
            [Problem("--package", "", f"{target.package!r} is not a Python package name")]
        )
    files = render_files(protocol, target, v1)
    return {f"{target.package}/{rel}": data for rel, data in sorted(files.items())}
