"""The comparable facts of one schema: methods, fields, enum values, union tags, merge rules.

Methods and session-update variants come from the IR (`Protocol`); field-level facts come from
the raw `$defs`, which the IR does not keep. Every fact is plain data so two schemas compare
with set operations.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from ...model.errors import SchemaError
from ...model.ir import MergeRule, Method, Protocol
from ...model.lower import is_envelope
from ...model.unions import count_refs, find_union, ref_name

SIDES = ("agent", "client")
# Keywords that document a schema without changing what the wire accepts.
_PROSE = frozenset({"description", "title", "examples", "$comment", "default"})


@dataclass(frozen=True, slots=True)
class Field:
    required: bool
    signature: str  # the field's type, normalised (see `signature`)


@dataclass(frozen=True, slots=True)
class Values:
    """The values of an enum, or the tags of a tagged union."""

    values: frozenset[str]
    open: bool  # a fallback branch accepts values outside the list


@dataclass(frozen=True, slots=True)
class Facts:
    methods: dict[str, tuple[Method, ...]]  # wire name -> its request and/or notification
    types: dict[str, str]  # `$defs` name -> its wire shape with prose stripped (canonical JSON)
    closed_types: frozenset[str]  # object types that reject unknown fields
    fields: dict[str, dict[str, Field]]  # type (or `Union[tag]`) -> field -> facts
    enums: dict[str, Values]  # enum type (or `Type.field` for inline ones) -> values
    unions: dict[str, tuple[str, Values]]  # union type -> (tag property, tags)
    update_union: str | None
    merge_rules: dict[str, MergeRule | None]  # session-update tag -> its rule
    writers: dict[str, frozenset[str]]  # type -> sides that send it in some message
    wire: dict[str, str]  # type -> what it is on the wire (see `_wire_forms`)


def collect(protocol: Protocol, doc: dict[str, Any], file: str) -> Facts:
    defs: dict[str, Any] = {
        name: schema
        for name, schema in doc["$defs"].items()
        if isinstance(schema, dict) and not is_envelope(schema)
    }
    methods: dict[str, tuple[Method, ...]] = {}
    for m in protocol.methods:
        methods[m.name] = (*methods.get(m.name, ()), m)
    fields: dict[str, dict[str, Field]] = {}
    enums: dict[str, Values] = {}
    unions: dict[str, tuple[str, Values]] = {}
    for name, schema in sorted(defs.items()):
        if (values := enum_values(schema)) is not None:
            enums[name] = values
        try:
            shape = find_union(name, schema, file)
        except SchemaError:  # not a well-formed union: nothing to compare as one
            shape = None
        if shape is not None:
            tags = frozenset(b.tag for b in shape.branches if b.tag is not None)
            unions[name] = (shape.tag, Values(tags, any(b.fallback for b in shape.branches)))
            for b in shape.branches:
                if b.tag is not None and b.inline:
                    _add_fields(f"{name}[{b.tag}]", b.inline, b.inline_required, fields, enums)
        if isinstance(schema.get("properties"), dict):
            _add_fields(name, schema["properties"], schema.get("required") or (), fields, enums)
    return Facts(
        methods=methods,
        types={name: json.dumps(_strip(schema), sort_keys=True) for name, schema in defs.items()},
        closed_types=frozenset(
            n for n, s in defs.items() if s.get("additionalProperties") is False
        ),
        fields=fields,
        enums=enums,
        unions=unions,
        update_union=protocol.update_union,
        merge_rules={v.tag: v.merge for v in protocol.update_variants},
        writers=_writers(protocol, defs, _envelope_refs(doc["$defs"], protocol)),
        wire=_wire_forms(defs, file),
    )


def _add_fields(
    owner: str,
    props: dict[str, Any],
    required: Any,
    fields: dict[str, dict[str, Field]],
    enums: dict[str, Values],
) -> None:
    needed = set(required) if isinstance(required, (list, tuple)) else set()
    fields[owner] = {
        prop: Field(prop in needed, signature(sub)) for prop, sub in sorted(props.items())
    }
    for prop, sub in props.items():
        if isinstance(sub, dict) and (values := enum_values(sub)) is not None:
            enums[f"{owner}.{prop}"] = values


def enum_values(schema: dict[str, Any]) -> Values | None:
    """Closed `enum` of strings, or an `anyOf`/`oneOf` of string `const`s (open with a fallback)."""
    if isinstance(schema.get("enum"), list):
        return Values(frozenset(str(v) for v in schema["enum"]), open=False)
    branches = schema.get("anyOf", schema.get("oneOf"))
    if not isinstance(branches, list) or not all(isinstance(b, dict) for b in branches):
        return None
    consts = [b["const"] for b in branches if isinstance(b.get("const"), str)]
    others = [b for b in branches if "const" not in b]
    if not consts or any(not _is_open_string(b) and b.get("type") != "null" for b in others):
        return None
    return Values(frozenset(consts), open=any(_is_open_string(b) for b in others))


def _is_open_string(branch: dict[str, Any]) -> bool:
    return branch.get("type") == "string" and not ({"const", "enum", "$ref"} & branch.keys())


def signature(schema: Any) -> str:
    """A field's type as a short comparable string: `string|null`, `array<ContentBlock>`..."""
    if not isinstance(schema, dict):
        return "any" if schema is not False else "never"
    if enum_values(schema) is not None:
        return "enum" + ("|null" if _allows_null(schema) else "")
    alts: set[str] = set()
    if (name := ref_name(schema)) is not None:
        alts.add(name)
    for key in ("anyOf", "oneOf"):
        for branch in schema.get(key) or []:
            alts.update(signature(branch).split("|"))
    all_of = [signature(b) for b in schema.get("allOf") or []]
    if all_of:
        alts.add("&".join(sorted(all_of)))
    if "const" in schema:
        alts.add(json.dumps(schema["const"]))
    types = schema.get("type")
    for t in [types] if isinstance(types, str) else types or []:
        if t == "array":
            alts.add(f"array<{signature(schema.get('items', {}))}>")
        elif t == "object" and isinstance(schema.get("additionalProperties"), dict):
            alts.add(f"map<{signature(schema['additionalProperties'])}>")
        else:
            alts.add(str(t))
    if len(alts) > 1:
        alts.discard("any")
    return "|".join(sorted(alts)) or "any"


def _allows_null(schema: dict[str, Any]) -> bool:
    branches = schema.get("anyOf", schema.get("oneOf")) or []
    return any(isinstance(b, dict) and b.get("type") == "null" for b in branches)


def _strip(node: Any, names: bool = False) -> Any:
    """`node` without prose keywords; `names`: the keys are property names, all kept."""
    if isinstance(node, dict):
        return {
            k: _strip(v, names=not names and k in ("properties", "$defs"))
            for k, v in node.items()
            if names or k not in _PROSE
        }
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


def _refs(schema: Any) -> set[str]:
    counts: dict[str, int] = {}
    count_refs(schema, counts)
    return set(counts)


def _envelope_refs(all_defs: dict[str, Any], protocol: Protocol) -> set[str]:
    """Types the JSON-RPC envelopes name besides methods' params and results: the error object
    (and its data), request ids, extension messages. Both sides answer requests, so both send
    them."""
    named = {m.params for m in protocol.methods} | {m.result for m in protocol.methods}
    found: set[str] = set()
    for schema in all_defs.values():
        if is_envelope(schema):
            found |= _refs(schema)
    return {name for name in found - named if name in all_defs and not is_envelope(all_defs[name])}


def _writers(
    protocol: Protocol, defs: dict[str, Any], both_ways: set[str]
) -> dict[str, frozenset[str]]:
    """Which side sends each type: callers send params, the handling side sends results, and
    both sides what every answer may carry (`both_ways`: the error object, ...)."""
    refs = {name: _refs(schema) for name, schema in defs.items()}
    found: dict[str, set[str]] = {}
    roots: list[tuple[str | None, frozenset[str]]] = [
        (n, frozenset(SIDES)) for n in sorted(both_ways)
    ]
    for m in protocol.methods:
        handler = frozenset({m.side}) if m.side in SIDES else frozenset(SIDES)
        callers = frozenset(SIDES) - handler or frozenset(SIDES)
        roots += [(m.params, callers), (m.result, handler)]
    for root, senders in roots:
        if root:
            todo = [root]
            while todo:
                name = todo.pop()
                seen = found.setdefault(name, set())
                if senders <= seen:
                    continue
                seen |= senders
                todo.extend(refs.get(name, ()))
    return {name: frozenset(sides) for name, sides in found.items()}


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _wire_forms(defs: dict[str, Any], file: str) -> dict[str, str]:
    """Each type as the wire sees it, so a renamed type or a new alias is no type change.

    A type with a branch open to any value (`{"title": "Other"}`) is `any`; a scalar alias
    (`AbsolutePath` = string) is its own signature with names resolved; an open enum is a
    string; anything else is a hash of its shape with prose stripped.
    """
    forms: dict[str, str] = {}

    def form(name: str, depth: int) -> str:
        if name in forms:
            return forms[name]
        schema = defs[name]
        if accepts_anything(schema, defs):
            return "any"
        values = enum_values(schema)
        if values is not None and values.open:
            return "string"
        scalar = values is None and "properties" not in schema and not _is_union(name, schema, file)
        sig = signature(schema)
        if scalar and depth < 8 and "object" not in sig.split("|"):
            return resolve(sig, lambda n: form(n, depth + 1) if n in defs else n)
        shape = json.dumps(_strip(schema), sort_keys=True).encode()
        return "shape:" + hashlib.sha256(shape).hexdigest()[:16]

    for name in sorted(defs):
        forms[name] = form(name, 0)
    return forms


def accepts_anything(schema: Any, defs: dict[str, Any], depth: int = 0) -> bool:
    """Whether `schema` accepts every JSON value: no keyword that constrains, or a union with a
    branch that does (an open fallback such as `{"title": "Other"}`)."""
    if schema is True:
        return True
    if not isinstance(schema, dict) or depth > 16:
        return False
    keys = {k for k in schema if k not in _PROSE and not k.startswith("x-")}
    if keys - {"anyOf", "oneOf", "allOf", "$ref"}:
        return False
    ok = True
    if (target := ref_name(schema)) is not None:
        ok = accepts_anything(defs.get(target), defs, depth + 1)
    if "$ref" in keys and target is None:
        return False
    branches = schema.get("allOf") or []
    ok = ok and all(accepts_anything(b, defs, depth + 1) for b in branches)
    for key in ("anyOf", "oneOf"):
        if key in keys:
            ok = ok and any(accepts_anything(b, defs, depth + 1) for b in schema[key] or [])
    return ok


def _is_union(name: str, schema: dict[str, Any], file: str) -> bool:
    try:
        return find_union(name, schema, file) is not None
    except SchemaError:
        return True


def resolve(sig: str, lookup: Any) -> str:
    """`sig` with every type name replaced by `lookup(name)`, top-level alternatives re-sorted."""
    text = _NAME.sub(lambda m: lookup(m.group(0)), sig)
    return "|".join(sorted(set(split_alternatives(text))))


def split_alternatives(sig: str) -> list[str]:
    """Split `a|array<b|c>|d` at the top level only."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(sig):
        depth += {"<": 1, ">": -1}.get(ch, 0)
        if ch == "|" and depth == 0:
            parts.append(sig[start:i])
            start = i + 1
    parts.append(sig[start:])
    return parts
