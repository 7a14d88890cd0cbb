"""Give a union nested in another union's branch that branch alone, copying it for other uses.

Newer upstream schemas put a union in a union branch (the `session/update` variant
`state_update` is itself a union on `state`) and use the same inner union elsewhere too
(a subagent's `state`). `lower.py` turns a nested union's classes into classes that carry the
outer tag as well, which is only right where the union is nested, and it needs the union used
there only. So:

- nested in one branch and used elsewhere: the branch keeps the union and its class names
  (what code matching a parsed `SessionUpdate` knows), and each definition using it elsewhere
  gets a copy, `<Inner>In<User>` with classes `<Class>In<User>`. Nothing is renamed that a
  reader would look for, so no note.
- nested in several branches: each branch gets a copy, `<Inner>In<Outer>`, and a note names it;
  the original serves the other uses.

A copy copies the unions nested in it too (idle's split by `stopReason` stays), and inlines a
payload the original's branch class consumes, so no payload or nested union is shared.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from .errors import Problem, SchemaError, pointer
from .unions import REF_PREFIX, Branch, UnionShape, branch_class_name, count_refs, find_union

Flatten = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]
Use = tuple[str, UnionShape, Branch]  # the outer union, its shape, the branch the inner fills


def clone_shared_nested_unions(
    source: dict[str, Any],
    shapes: dict[str, UnionShape],
    counts: dict[str, int],
    file: str,
    notes: list[str],
    flatten: Flatten,
) -> None:
    """Rewrite `source` and `shapes` in place so every nested union is used exactly once."""
    done: set[str] = set()
    while (shared := _first_shared(shapes, counts)) is not None:
        inner, uses = shared
        if inner in done:  # a copy shared it again: say so rather than copy without end
            outer, shape, b = uses[0]
            at = pointer("$defs", outer, shape.key, b.index)
            raise SchemaError(
                [Problem(file, at, "a union nested in a branch must be used there only")]
            )
        done.add(inner)
        if len(uses) == 1:
            _copy_for_other_users(inner, uses[0], source, shapes, counts, file, flatten)
        else:
            for outer, shape, b in uses:
                at = pointer("$defs", outer, shape.key, b.index)
                clone = _add_copy(inner, f"In{outer}", source, shapes, counts, file, at, flatten)
                branch = copy.deepcopy(source[outer])
                branch[shape.key][b.index]["allOf"] = [{"$ref": REF_PREFIX + clone}]
                source[outer] = branch
                notes.append(
                    f"{file}#{at}: union {inner} is nested in several branches; this one "
                    f"({b.tag!r}) gets its own copy, {clone}"
                )
        # The copies are unions too, and refs moved: read shapes and counts again.
        shapes.clear()
        shapes.update({n: s for n in sorted(source) if (s := find_union(n, source[n], file))})
        counts.clear()
        count_refs(source, counts)


def _first_shared(
    shapes: dict[str, UnionShape], counts: dict[str, int]
) -> tuple[str, list[Use]] | None:
    uses: dict[str, list[Use]] = {}
    for outer, shape in shapes.items():
        for b in shape.branches:
            if not b.fallback and b.payload in shapes:
                uses.setdefault(b.payload, []).append((outer, shape, b))
    for inner in sorted(uses):
        if len(uses[inner]) > 1 or counts.get(inner, 0) > 1:
            return inner, uses[inner]
    return None


def _copy_for_other_users(
    inner: str,
    use: Use,
    source: dict[str, Any],
    shapes: dict[str, UnionShape],
    counts: dict[str, int],
    file: str,
    flatten: Flatten,
) -> None:
    """Point every ref to `inner` but the branch's at a copy named after the definition."""
    outer, shape, b = use
    kept = source[outer][shape.key][b.index]
    target = REF_PREFIX + inner
    users = sorted(n for n in source if _refers(source[n], target, skip=kept))
    if not users:  # the other use is inside the branch itself: no copy can separate them
        at = pointer("$defs", outer, shape.key, b.index)
        msg = "a union nested in a branch must be used there only"
        raise SchemaError([Problem(file, at, msg)])
    for user in users:
        at = pointer("$defs", user)
        clone = _add_copy(inner, f"In{user}", source, shapes, counts, file, at, flatten)
        source[user] = _retarget(source[user], target, REF_PREFIX + clone, skip=kept)


def _refers(node: Any, target: str, skip: Any) -> bool:
    if node is skip:
        return False
    if isinstance(node, dict):
        return node.get("$ref") == target or any(_refers(v, target, skip) for v in node.values())
    if isinstance(node, list):
        return any(_refers(v, target, skip) for v in node)
    return False


def _retarget(node: Any, target: str, new: str, skip: Any) -> Any:
    """`node` with refs to `target` pointing at `new`; `skip` (the kept branch) stays as it is."""
    if node is skip:
        return node
    if isinstance(node, dict):
        out = {k: _retarget(v, target, new, skip) for k, v in node.items()}
        if out.get("$ref") == target:
            out["$ref"] = new
        return out
    if isinstance(node, list):
        return [_retarget(v, target, new, skip) for v in node]
    return node


def _add_copy(
    inner: str,
    suffix: str,
    source: dict[str, Any],
    shapes: dict[str, UnionShape],
    counts: dict[str, int],
    file: str,
    at: str,
    flatten: Flatten,
) -> str:
    """Add `<inner><suffix>` (and copies of the unions nested in it) to `source`; its name."""
    clone = inner + suffix
    if clone in source:
        msg = f"union {inner!r} is nested in a branch and used elsewhere; {clone!r} is taken"
        raise SchemaError([Problem(file, at, msg)])
    shape = shapes[inner]
    original = source[inner]
    branches = copy.deepcopy(original[shape.key])
    for b in shape.branches:
        if b.fallback:
            continue
        branch = branches[b.index]
        name = branch_class_name(shape, b, counts)
        branch["title"] = name + suffix
        if b.payload in shapes:  # a union nested in this one: copied along, so idle keeps its split
            nested = _add_copy(b.payload, suffix, source, shapes, counts, file, at, flatten)
            branch["allOf"] = [{"$ref": REF_PREFIX + nested}]
        elif b.payload is not None and name == b.payload:  # the original's class consumes it
            _inline_payload(branch, b.payload, source, flatten)
    source[clone] = {k: v for k, v in original.items() if k != shape.key}
    source[clone][shape.key] = branches
    return clone


def _inline_payload(
    branch: dict[str, Any], payload_name: str, source: dict[str, Any], flatten: Flatten
) -> None:
    payload = flatten(source[payload_name], source)
    props = dict(payload.get("properties") or {})
    props.update(branch.get("properties") or {})
    branch["properties"] = props
    required = list(payload.get("required") or []) + list(branch.get("required") or [])
    branch["required"] = list(dict.fromkeys(required))
    branch["allOf"] = [
        a for a in branch.get("allOf") or [] if a.get("$ref") != REF_PREFIX + payload_name
    ]
    if not branch["allOf"]:
        del branch["allOf"]
    if "description" in source[payload_name] and "description" not in branch:
        branch["description"] = source[payload_name]["description"]
