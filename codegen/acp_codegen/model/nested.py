"""Give each union nested in another union's branch a copy of its own when it is shared.

Newer upstream schemas put a union in a union branch (the `session/update` variant
`state_update` is itself a union on `state`) and use the same inner union elsewhere too
(a subagent's state). `lower.py` turns a nested union's classes into classes that carry the outer
tag as well, which is only right where the union is nested. So a shared inner union is copied
for that branch: `<Inner>In<Outer>`, with classes `<InnerClass>In<Outer>` whose payloads are
inlined; the original stays as it is for its other uses. A note names every copy.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from .errors import Problem, SchemaError, pointer
from .unions import REF_PREFIX, UnionShape, branch_class_name, find_union

Flatten = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]


def clone_shared_nested_unions(
    source: dict[str, Any],
    shapes: dict[str, UnionShape],
    counts: dict[str, int],
    file: str,
    notes: list[str],
    flatten: Flatten,
) -> None:
    """Rewrite `source` and `shapes` in place so every nested union is used exactly once."""
    for outer in list(shapes):
        shape = shapes[outer]
        for b in shape.branches:
            inner = b.payload
            if b.fallback or inner not in shapes or counts.get(inner, 0) == 1:
                continue
            clone = f"{inner}In{outer}"
            at = pointer("$defs", outer, shape.key, b.index)
            if clone in source:
                msg = f"union {inner!r} is nested here and used elsewhere; {clone!r} is taken"
                raise SchemaError([Problem(file, at, msg)])
            source[clone] = _copy(inner, shapes[inner], source, counts, outer, flatten)
            branch = copy.deepcopy(source[outer])
            branch[shape.key][b.index]["allOf"] = [{"$ref": REF_PREFIX + clone}]
            source[outer] = branch
            notes.append(
                f"{file}#{at}: union {inner} is nested in {outer} ({b.tag!r}) and used "
                f"elsewhere too; that branch gets its own copy, {clone}"
            )
    # The copies are unions too: read every definition's shape again.
    shapes.clear()
    shapes.update({n: s for n in sorted(source) if (s := find_union(n, source[n], file))})


def _copy(
    inner: str,
    shape: UnionShape,
    source: dict[str, Any],
    counts: dict[str, int],
    outer: str,
    flatten: Flatten,
) -> dict[str, Any]:
    """The inner union with titled branches and inlined payloads (so no payload is shared)."""
    original = source[inner]
    branches = copy.deepcopy(original[shape.key])
    for b in shape.branches:
        branch = branches[b.index]
        if b.fallback:
            continue
        branch["title"] = branch_class_name(shape, b, counts) + "In" + outer
        if b.payload is not None:
            payload = flatten(source[b.payload], source)
            props = dict(payload.get("properties") or {})
            props.update(branch.get("properties") or {})
            branch["properties"] = props
            required = list(payload.get("required") or []) + list(branch.get("required") or [])
            branch["required"] = list(dict.fromkeys(required))
            branch["allOf"] = [
                a for a in branch.get("allOf") or [] if a.get("$ref") != REF_PREFIX + b.payload
            ]
            if not branch["allOf"]:
                del branch["allOf"]
            if "description" in source[b.payload] and "description" not in branch:
                branch["description"] = source[b.payload]["description"]
    result = {k: v for k, v in original.items() if k != shape.key}
    result[shape.key] = branches
    return result
