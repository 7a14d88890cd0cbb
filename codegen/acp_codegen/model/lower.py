"""Rewrite a protocol schema into the shape datamodel-code-generator turns into good models.

What changes, and why:
- every tagged-union branch becomes its own titled definition (readable class names, the tag as
  a `Literal` field); the union becomes an alias that our template routes by tag, so unknown tags
  reach the fallback class and a known tag with a bad payload is an error, not a fallback;
- a payload used by one branch only is merged into that branch's class under the payload's name;
- untagged `anyOf` alternatives inside an object (request scopes) become optional properties;
- integer formats become bounds; string formats, encodings and defaults are dropped so a parsed
  message serialises back to the same JSON (a URL or a date is kept as the exact text received);
- our `x-` keywords and upstream's envelope definitions are removed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import Problem, SchemaError, pointer
from .ir import TaggedUnion, Variant
from .naming import is_class_name
from .nested import clone_shared_nested_unions
from .unions import (
    REF_PREFIX,
    Branch,
    UnionShape,
    branch_class_name,
    count_refs,
    find_union,
    ref_name,
)

INT_BOUNDS = {
    "uint8": (0, 2**8 - 1),
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}
DROPPED_KEYS = {"default", "format", "contentEncoding", "not", "unevaluatedProperties", "examples"}


@dataclass
class Lowered:
    defs: dict[str, Any]
    unions: list[TaggedUnion] = field(default_factory=list)
    template_data: dict[str, Any] = field(default_factory=dict)
    # (union name, tag value) -> class name or nested union alias
    variant_names: dict[tuple[str, str], str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def is_envelope(schema: Any) -> bool:
    """Upstream's JSON-RPC envelope definitions; our method table replaces them."""
    return isinstance(schema, dict) and schema.get("x-docs-ignore") is True


def lower(defs: dict[str, Any], file: str) -> Lowered:
    source = {k: v for k, v in defs.items() if not is_envelope(v)}
    counts: dict[str, int] = {}
    count_refs(source, counts)
    shapes = {n: s for n in sorted(source) if (s := find_union(n, source[n], file))}
    out = Lowered(defs={})
    clone_shared_nested_unions(source, shapes, counts, file, out.notes, flatten_alternatives)
    counts = {}
    count_refs(source, counts)
    consumed: set[str] = set()  # payload definitions merged into a branch class
    # inner union -> the outer tag its classes carry too (property schema, required names)
    nested: dict[str, tuple[dict[str, Any], list[str]]] = {}
    parents: dict[str, str] = {}  # inner union -> the union whose branch it is
    for name, shape in shapes.items():
        for b in shape.branches:
            if b.payload in shapes and not b.fallback:
                if counts.get(b.payload, 0) != 1:
                    at = pointer("$defs", name, shape.key, b.index)
                    raise SchemaError(
                        [Problem(file, at, "a union nested in a branch must be used there only")]
                    )
                extra = {shape.tag: {"type": "string", "const": b.tag}} if b.tag is not None else {}
                nested[b.payload] = (extra, [shape.tag] if b.tag is not None else [])
                parents[b.payload] = name
    nested = {inner: _with_ancestors(inner, nested, parents) for inner in nested}
    problems: list[Problem] = []
    for name in _outer_first(shapes, nested):
        shape = shapes[name]
        base = source[name]
        extra_props, extra_req = nested.get(name, ({}, []))
        variants = []
        for b in shape.branches:
            cls = branch_class_name(shape, b, counts)
            if b.payload in shapes and not b.fallback:
                cls = b.payload  # the nested union's alias
            elif not is_class_name(cls):
                at = pointer("$defs", name, shape.key, b.index)
                msg = f"branch name {cls!r} is not a usable Python class name"
                problems.append(Problem(file, at, msg))
                continue
            else:
                if cls in out.defs or (cls in source and cls != b.payload and cls not in consumed):
                    at = pointer("$defs", name, shape.key, b.index)
                    problems.append(Problem(file, at, f"class name {cls!r} is used twice"))
                    continue
                out.defs[cls] = _branch_schema(shape, b, base, source, cls, extra_props, extra_req)
                if b.payload == cls:
                    consumed.add(cls)
            variants.append(Variant(tag=b.tag, class_name=cls, fallback=b.fallback))
            if b.tag is not None:
                out.variant_names[(name, b.tag)] = cls
        union = TaggedUnion(name=name, tag=shape.tag, variants=tuple(variants))
        out.unions.append(union)
        doc = {k: base[k] for k in ("title", "description") if k in base}
        doc["title"] = name
        out.defs[name] = {**doc, "anyOf": [{"$ref": REF_PREFIX + v.class_name} for v in variants]}
        out.template_data[name] = {"acp_union": _route_data(union)}
    if problems:
        raise SchemaError(problems)
    for name in sorted(source):
        if name not in shapes and name not in consumed and name not in out.defs:
            out.defs[name] = {"title": name, **clean(source[name], source)}
    out.defs = {k: out.defs[k] for k in sorted(out.defs)}
    return out


def _with_ancestors(
    inner: str,
    nested: dict[str, tuple[dict[str, Any], list[str]]],
    parents: dict[str, str],
) -> tuple[dict[str, Any], list[str]]:
    """The outer tags a nested union's classes carry: its parent's, and the parent's parent's
    when that union is nested too (`session_update` > `state_update` > idle's stop reasons), so
    every class of the outermost union has the outermost tag."""
    props, required = dict(nested[inner][0]), list(nested[inner][1])
    seen = {inner}
    parent = parents.get(inner)
    while parent in nested and parent not in seen:
        seen.add(parent)
        props = {**nested[parent][0], **props}
        required = [*nested[parent][1], *required]
        parent = parents.get(parent)
    return props, required


def _outer_first(shapes: dict[str, UnionShape], nested: dict[str, Any]) -> list[str]:
    return [n for n in shapes if n not in nested] + [n for n in shapes if n in nested]


def _branch_schema(
    shape: UnionShape,
    b: Branch,
    base: dict[str, Any],
    source: dict[str, Any],
    cls: str,
    extra_props: dict[str, Any],
    extra_req: list[str],
) -> dict[str, Any]:
    """One branch as a self-standing object definition."""
    if b.fallback:
        tag_schema: dict[str, Any] = {"type": "string"}
    elif b.tag is not None:
        tag_schema = {"type": "string", "const": b.tag}
    else:
        tag_schema = {}
    props: dict[str, Any] = dict(extra_props)
    required: list[str] = list(extra_req)
    if tag_schema:
        props[shape.tag] = tag_schema
        required.append(shape.tag)
    for k, v in (base.get("properties") or {}).items():
        if k != shape.tag:
            props[k] = v
    required += [r for r in base.get("required") or [] if r != shape.tag]
    schema: dict[str, Any] = {"title": cls, "type": "object"}
    if b.payload and b.payload == cls:
        payload = flatten_alternatives(source[b.payload], source)
        props.update(payload.get("properties") or {})
        required += payload.get("required") or []
        if "description" in source[b.payload]:
            schema["description"] = source[b.payload]["description"]
    elif b.payload:
        schema["allOf"] = [{"$ref": REF_PREFIX + b.payload}]
    props.update(b.inline)
    required += list(b.inline_required)
    schema["properties"] = props
    schema["required"] = list(dict.fromkeys(required))
    if b.fallback:
        schema["additionalProperties"] = True
    cleaned: dict[str, Any] = clean(schema, source)
    return cleaned


def _route_data(union: TaggedUnion) -> dict[str, Any]:
    """What the union-alias template needs to route a value to its class."""
    routes = [
        {"tag": v.tag, "tag_repr": repr(v.tag), "cls": v.class_name}
        for v in union.known
        if v.tag is not None
    ]
    default = next((v.class_name for v in union.known if v.tag is None), None)
    fallback = union.fallback.class_name if union.fallback else None
    other = "other"
    while other in {r["tag"] for r in routes}:
        other += "_"
    return {
        "tag_repr": repr(union.tag),
        "other_repr": repr(other),
        "routes": routes,
        "default": default,
        "fallback": fallback,
    }


def flatten_alternatives(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """Fold untagged object alternatives (`anyOf` of scopes) into optional properties."""
    alts = schema.get("anyOf") or schema.get("oneOf")
    if not isinstance(alts, list) or not all(isinstance(a, dict) and _object_like(a) for a in alts):
        return schema
    props = dict(schema.get("properties") or {})
    for alt in alts:
        parts = [alt, *(a for a in alt.get("allOf") or [] if isinstance(a, dict))]
        for part in parts:
            target = defs.get(ref_name(part) or "", part)
            for k, v in (target.get("properties") or {}).items():
                props.setdefault(k, v)
    merged = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
    merged["properties"] = props
    merged["type"] = "object"
    return merged


def _object_like(alt: dict[str, Any]) -> bool:
    return "properties" in alt or "allOf" in alt or alt.get("type") == "object"


def _untitled(branch: Any) -> Any:
    """A branch without the keys that make datamodel-code-generator name it separately."""
    if not isinstance(branch, dict):
        return branch
    if "properties" in branch:
        return {k: v for k, v in branch.items() if k != "title"}
    # Bounds on a scalar branch would also make it a named alias (`RequestId1`): keep it plain.
    drop = {"title", "description", "minimum", "maximum"}
    if branch.get("format") in INT_BOUNDS:
        drop.add("format")
    return {k: v for k, v in branch.items() if k not in drop}


def clean(node: Any, defs: dict[str, Any]) -> Any:
    """Drop keywords that would make a parsed message serialise differently, and our `x-` keys."""
    if isinstance(node, list):
        return [clean(v, defs) for v in node]
    if not isinstance(node, dict):
        return node
    if (fmt := node.get("format")) in INT_BOUNDS:
        low, high = INT_BOUNDS[fmt]
        node = {
            **node,
            "minimum": max(low, node.get("minimum", low)),
            "maximum": min(high, node.get("maximum", high)),
        }
    node = flatten_alternatives(node, defs) if "properties" in node else node
    result: dict[str, Any] = {}
    for key, value in node.items():
        if key in DROPPED_KEYS or key.startswith("x-"):
            continue
        if key in ("properties", "$defs", "patternProperties"):
            result[key] = {k: clean(v, defs) for k, v in value.items()}
        elif key in ("anyOf", "oneOf") and isinstance(value, list):
            # A branch title would become a type alias of its own (`Other`, `Other2`, ...);
            # tagged-union branches got their class names already, the rest stay inline.
            result[key] = [clean(_untitled(v), defs) for v in value]
        else:
            result[key] = clean(value, defs)
    return result
