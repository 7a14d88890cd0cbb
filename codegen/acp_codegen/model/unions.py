"""Find tagged unions in a schema's `$defs` and name their branches.

Both our canonical schema and upstream's published files write a tagged union as an `anyOf`
(or `oneOf`) whose branches pin a tag property with `const`, usually merging a payload
definition through `allOf: [{"$ref": ...}]`, and an open union ends with a fallback branch that
matches unknown tags only. This module reads that shape into plain records; `lower.py` rewrites
the schema from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import Problem, SchemaError, pointer
from .naming import is_identifier, pascal

REF_PREFIX = "#/$defs/"


@dataclass(frozen=True, slots=True)
class Branch:
    index: int
    tag: str | None  # None: chosen when the tag is absent (v1 untagged defaults)
    fallback: bool
    payload: str | None  # the one `$defs` name merged by allOf, if any
    inline: dict[str, Any]  # the branch's own properties other than the tag
    inline_required: tuple[str, ...]
    title: str | None


@dataclass(frozen=True, slots=True)
class UnionShape:
    name: str
    key: str  # "anyOf" or "oneOf"
    tag: str
    branches: tuple[Branch, ...]


def ref_name(schema: Any) -> str | None:
    """The `$defs` name a `{"$ref": "#/$defs/X"}` points to."""
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith(REF_PREFIX):
            return ref[len(REF_PREFIX) :].replace("~1", "/").replace("~0", "~")
    return None


def _tag_of(branch: dict[str, Any]) -> tuple[str, str] | None:
    for prop, sub in (branch.get("properties") or {}).items():
        if isinstance(sub, dict) and isinstance(sub.get("const"), str):
            return prop, sub["const"]
    return None


def find_union(name: str, schema: dict[str, Any], file: str) -> UnionShape | None:
    """Read `schema` as a tagged union, or return None when it is not one."""
    key = "anyOf" if isinstance(schema.get("anyOf"), list) else "oneOf"
    raw = schema.get(key)
    if not isinstance(raw, list):
        return None
    declared = (
        (schema.get("x-union") or {}).get("tag")
        if isinstance(schema.get("x-union"), dict)
        else None
    )
    tags = {t[0] for b in raw if isinstance(b, dict) and (t := _tag_of(b))}
    if not tags:
        return None
    if len(tags) > 1 or (declared is not None and declared not in tags):
        found = ", ".join(sorted(tags))
        raise_at = pointer("$defs", name, key)
        msg = f"union branches disagree on the tag property ({found})"
        raise _one(file, raise_at, msg)
    tag = next(iter(tags))
    branches = []
    for i, b in enumerate(raw):
        if not isinstance(b, dict):
            raise _one(file, pointer("$defs", name, key, i), "union branch must be an object")
        pinned = _tag_of(b)
        props = {k: v for k, v in (b.get("properties") or {}).items() if k != tag}
        payloads = [n for a in b.get("allOf") or [] if (n := ref_name(a))]
        if len(payloads) > 1:
            raise _one(
                file, pointer("$defs", name, key, i, "allOf"), "a branch may merge one payload"
            )
        title = b.get("title") if isinstance(b.get("title"), str) else None
        fallback = pinned is None and ("not" in b or title == "other")
        branches.append(
            Branch(
                index=i,
                tag=pinned[1] if pinned else None,
                fallback=fallback,
                payload=payloads[0] if payloads else None,
                inline=props,
                inline_required=tuple(r for r in b.get("required") or [] if r != tag),
                title=title,
            )
        )
    return UnionShape(name=name, key=key, tag=tag, branches=tuple(branches))


def _one(file: str, at: str, message: str) -> SchemaError:
    return SchemaError([Problem(file, at, message)])


def count_refs(node: Any, counts: dict[str, int]) -> None:
    """Count every `$ref` to a `$defs` entry below `node`."""
    if isinstance(node, dict):
        if (n := ref_name(node)) is not None:
            counts[n] = counts.get(n, 0) + 1
        for v in node.values():
            count_refs(v, counts)
    elif isinstance(node, list):
        for v in node:
            count_refs(v, counts)


def branch_class_name(union: UnionShape, branch: Branch, ref_counts: dict[str, int]) -> str:
    """A readable class name: the schema's title, the payload's own name, or tag + union."""
    if branch.fallback:
        return "Other" + union.name
    if branch.title and is_identifier(branch.title) and branch.title[0].isupper():
        return branch.title
    if branch.payload and ref_counts.get(branch.payload, 0) == 1:
        return branch.payload
    return pascal(branch.tag or branch.title or "default") + union.name
