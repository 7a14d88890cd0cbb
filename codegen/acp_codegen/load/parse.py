"""Schema document -> Protocol IR; reads our canonical schema and upstream's files alike."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..model.errors import Problem, SchemaError, pointer
from ..model.ir import MergeRule, Method, Protocol, UpdateVariant
from ..model.lower import is_envelope, lower
from ..model.naming import method_handler, snake
from ..model.unions import find_union
from . import limits
from .marks import read_marks
from .newer import automation_notes, newer_construct_notes, protocol_version

DEFAULT_UPDATE_UNION = "SessionUpdate"


def load_document(path: Path, display_name: str | None = None) -> tuple[dict[str, Any], bytes]:
    """Read and decode a schema file; a decoding error names the line and column."""
    name = display_name or str(path)
    try:
        with path.open("rb") as stream:  # read at most one byte past the limit
            raw = stream.read(limits.MAX_SCHEMA_BYTES + 1)
    except OSError as exc:
        raise SchemaError([Problem(name, "", f"cannot read file: {exc.strerror}")]) from exc
    limits.check_size(len(raw), name)
    try:
        doc = json.loads(raw)
    except RecursionError:
        raise limits.too_deep(name) from None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise SchemaError([Problem(name, "", f"not valid JSON at {where}: {exc.msg}")]) from exc
    except UnicodeDecodeError as exc:
        raise SchemaError([Problem(name, "", f"not UTF-8 text: {exc}")]) from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("$defs"), dict):
        raise SchemaError([Problem(name, "", "expected a JSON object with a `$defs` object")])
    limits.check_depth(doc, name)
    limits.check_definitions(doc["$defs"], name)
    return doc, raw


def build_protocol(doc: dict[str, Any], raw: bytes, file: str) -> Protocol:
    defs: dict[str, Any] = doc["$defs"]
    lowered = lower(defs, file)
    methods = _methods(doc, file)
    notes: list[str] = list(lowered.notes)
    update_union = doc.get(
        "x-update-union", DEFAULT_UPDATE_UNION if DEFAULT_UPDATE_UNION in defs else None
    )
    update_tag: str | None = None
    variants: list[UpdateVariant] = []
    if update_union is not None:
        shape = find_union(update_union, defs[update_union], file)
        if shape is None:
            raise SchemaError(
                [Problem(file, pointer("x-update-union"), f"{update_union} is not a tagged union")]
            )
        update_tag = shape.tag
        for b in shape.branches:
            if b.fallback or b.tag is None:
                continue
            raw_rule = defs[update_union][shape.key][b.index].get("x-merge")
            rule = _merge_rule(b.tag, raw_rule) if isinstance(raw_rule, dict) else None
            variants.append(
                UpdateVariant(b.tag, lowered.variant_names[(update_union, b.tag)], rule)
            )
        if variants and not any(v.merge for v in variants):
            notes.append(
                f"{file}: no merge annotations (x-merge) on {update_union}; SessionState keeps "
                "every update as unknown. Everything else is generated."
            )
    meta: dict[str, Any] = doc["x-acp"] if isinstance(doc.get("x-acp"), dict) else {}
    title = meta.get("title") or doc.get("title") or Path(file).stem
    version, inferred_from = protocol_version(doc)
    if inferred_from:
        notes.append(f"{file}: protocol version {version} inferred from {inferred_from}")
    notes += newer_construct_notes(doc, methods, file)
    protocol = Protocol(
        title=str(title),
        protocol_version=version,
        source_name=Path(file).name,
        sha256=hashlib.sha256(raw).hexdigest(),
        methods=tuple(methods),
        unions=tuple(sorted(lowered.unions, key=lambda u: u.name)),
        update_union=update_union,
        update_tag=update_tag,
        update_variants=tuple(variants),
        tristate_fields=tuple(_tristate(defs)),
        notes=tuple(notes),
        deserialize_marks=read_marks(defs),
        model_schema={"$schema": doc.get("$schema"), "$defs": lowered.defs},
        model_template_data=lowered.template_data,
        prompt_result_required=_required_of_result(doc, methods, "session/prompt"),
        stop_reasons=_stop_reasons(defs),
    )
    extra = automation_notes(protocol, file)
    return replace(protocol, notes=protocol.notes + tuple(extra)) if extra else protocol


def _stop_reasons(defs: dict[str, Any]) -> tuple[str, ...]:
    """The stop reasons a schema names: the `stopReason` variants of its idle state (v2 as
    upstream publishes it since 2.x), or the values of an older `StopReason` enum."""
    found: set[str] = set()
    for name, definition in defs.items():
        branches = definition.get("anyOf") if isinstance(definition, dict) else None
        for branch in branches if isinstance(branches, list) else ():
            if not isinstance(branch, dict):
                continue
            value = branch.get("const")
            if name == "StopReason" and isinstance(value, str):
                found.add(value)
            tag = (branch.get("properties") or {}).get("stopReason")
            if isinstance(tag, dict) and isinstance(tag.get("const"), str):
                found.add(tag["const"])
    return tuple(sorted(found))


def _required_of_result(doc: dict[str, Any], methods: list[Method], wire: str) -> tuple[str, ...]:
    """Required wire fields of a request's result type (what the lifecycle must answer)."""
    row = next((m for m in methods if m.name == wire and m.kind == "request"), None)
    schema = doc["$defs"].get(row.result) if row is not None and row.result else None
    if not isinstance(schema, dict):
        return ()
    return tuple(r for r in schema.get("required") or [] if isinstance(r, str))


def _methods(doc: dict[str, Any], file: str) -> list[Method]:
    table = doc.get("x-methods")
    if isinstance(table, list):
        requests = {row["method"] for row in table if row["kind"] == "request"}
        return [
            Method(
                name=row["method"],
                side=row["side"],
                kind=row["kind"],
                params=row["params"],
                result=row.get("result"),
                handler=method_handler(row["method"], row["kind"], requests),
                unstable=bool(doc["$defs"].get(row["params"], {}).get("x-unstable")),
            )
            for row in table
        ]
    return _methods_from_annotations(doc["$defs"])


def _methods_from_annotations(defs: dict[str, Any]) -> list[Method]:
    """Upstream style: `x-method`/`x-side` on params and result definitions."""
    found: dict[tuple[str, str], dict[str, str]] = {}
    for name in sorted(defs):
        schema = defs[name]
        if is_envelope(schema) or not isinstance(schema, dict) or "x-method" not in schema:
            continue
        if name.endswith("Response"):
            role, kind = "result", "request"
        elif name.endswith("Notification"):
            role, kind = "params", "notification"
        else:
            role, kind = "params", "request"
        key = (
            schema["x-method"],
            "notification" if role == "params" and kind == "notification" else "request",
        )
        entry = found.setdefault(key, {"side": schema.get("x-side", "agent")})
        entry[role] = name
    methods = []
    for (wire, kind), entry in sorted(found.items()):
        if "params" not in entry:
            continue
        methods.append(
            Method(
                name=wire,
                side=entry["side"],
                kind=kind,
                params=entry["params"],
                result=entry.get("result") if kind == "request" else None,
                handler=snake(wire)
                + (
                    "_notification" if kind == "notification" and (wire, "request") in found else ""
                ),
                unstable=bool(defs[entry["params"]].get("x-unstable")),
            )
        )
    return methods


def _merge_rule(tag: str, raw: dict[str, Any]) -> MergeRule:
    return MergeRule(
        tag=tag,
        entity=raw["entity"],
        op=raw["op"],
        key=raw.get("key"),
        field=raw.get("field"),
        source=raw.get("from"),
        role=raw.get("role"),
        encoding=raw.get("encoding"),
        bytes_fields=tuple(sorted((raw.get("bytes") or {}).items())),
    )


def _tristate(defs: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (name, prop)
        for name in sorted(defs)
        if isinstance(defs[name], dict)
        for prop, sub in sorted((defs[name].get("properties") or {}).items())
        if isinstance(sub, dict) and sub.get("x-tristate") is True
    ]
