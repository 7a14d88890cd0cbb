"""Checks on references and union tags that the generator would otherwise trip on.

- Only local `#/$defs/...` references are followed (validate.py checks `$ref` values); the
  keywords that make datamodel-code-generator resolve or fetch other documents are refused here.
- A definition that is only another name for itself (`A = B`, `B = A`, or `A` inheriting from
  `A`) has no type at all; recursion through a property or an array item is fine.
- In a tagged union, a branch without a tag `const` is the default for messages without the tag.
  Its tag must not be pinned elsewhere (the router could never send that tag to it), and only one
  branch can be the default.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..model.errors import Problem, SchemaError, pointer
from ..model.unions import find_union, ref_name
from .schema_walk import subschemas

# Keywords that point outside the document or rebase references: never resolved, never fetched.
NONLOCAL_KEYWORDS = ("$id", "$dynamicRef", "$recursiveRef", "$dynamicAnchor", "$recursiveAnchor")


def nonlocal_refs(doc: dict[str, Any], file: str) -> Iterator[Problem]:
    for path, schema in subschemas(doc):
        for key in NONLOCAL_KEYWORDS:
            if key in schema:
                msg = f"{key} is not supported: only local #/$defs/ references are followed"
                yield Problem(file, pointer(*path, key), msg)


def _alias_targets(schema: Any) -> Iterator[str]:
    """Definitions `schema` stands for or inherits from directly (no property in between)."""
    if not isinstance(schema, dict):
        return
    if (name := ref_name(schema)) is not None:
        yield name
    for key in ("allOf", "anyOf", "oneOf"):
        for part in schema.get(key) or []:
            yield from _alias_targets(part) if isinstance(part, dict) else ()


def ref_cycles(doc: dict[str, Any], file: str) -> Iterator[Problem]:
    defs = doc.get("$defs")
    if not isinstance(defs, dict):
        return
    edges = {
        name: sorted(set(_alias_targets(schema)) & defs.keys()) for name, schema in defs.items()
    }
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    for start in sorted(defs):
        if start in state:
            continue
        stack: list[tuple[str, Iterator[str]]] = [(start, iter(edges[start]))]
        path = [start]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(child) == 1:
                loop = " -> ".join([*path[path.index(child) :], child])
                msg = f"definition is only a reference to itself ({loop}): it has no type"
                yield Problem(file, pointer("$defs", child), msg)
            elif child not in state:
                state[child] = 1
                path.append(child)
                stack.append((child, iter(edges[child])))


def _pinned_tag(branch: dict[str, Any], tag: str, defs: dict[str, Any]) -> Any:
    """The tag's schema in `branch`'s own properties or in the definition it refers to."""
    for part in (branch, *(p for p in branch.get("allOf") or [] if isinstance(p, dict))):
        target = defs.get(ref_name(part) or "") if ref_name(part) else part
        props = target.get("properties") if isinstance(target, dict) else None
        if isinstance(props, dict) and isinstance(props.get(tag), dict):
            sub = props[tag]
            if sub.get("const") is not None or any(v is not None for v in sub.get("enum") or []):
                return sub  # a null tag is how a default branch says "tag absent"
    return None


def union_tags(doc: dict[str, Any], file: str) -> Iterator[Problem]:
    defs = doc.get("$defs")
    if not isinstance(defs, dict):
        return
    for name, schema in defs.items():
        if not isinstance(schema, dict):
            continue
        try:
            shape = find_union(name, schema, file)
        except SchemaError:
            continue  # validate.py reports the union itself
        if shape is None:
            continue
        default: int | None = None
        for b in shape.branches:
            if b.tag is not None or b.fallback:
                continue
            at = pointer("$defs", name, shape.key, b.index)
            if _pinned_tag(schema[shape.key][b.index], shape.tag, defs) is not None:
                msg = (
                    f"branch pins {shape.tag!r} without a `const` on the branch itself; messages "
                    "with that tag would not reach it (write the const in the branch)"
                )
                yield Problem(file, at, msg)
            elif default is not None:
                msg = (
                    f"a second branch without a {shape.tag!r} const: only one branch can take "
                    f"messages without the tag (the first is branch {default})"
                )
                yield Problem(file, at, msg)
            else:
                default = b.index
