"""Check a schema document before anything is generated; every problem carries its JSON pointer."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported where used: a full generate checks in a child process
    from jsonschema import Draft202012Validator, ValidationError

from ..model.errors import Problem, SchemaError, pointer
from ..model.naming import RESERVED_NAMES, is_identifier, method_handler
from ..model.unions import REF_PREFIX, find_union
from .meta_bundle import bundled_meta_schema
from .validate_hostile import hostile_input_problems
from .x_keywords import x_keyword_errors


def check(doc: dict[str, Any], file: str) -> list[Problem]:
    """Every problem in `doc`, sorted by pointer; empty when it can be generated from."""
    problems = list(_standard(doc, file))
    problems += _x_keywords(doc, file)
    for semantic in (_acp, _refs, _names, _unions, _method_table, _merge_rules, _tristate):
        try:
            problems += semantic(doc, file)
        except (KeyError, TypeError, AttributeError, IndexError):
            # These checks read the document's structure; where it is malformed, the
            # structural problems above already say so.
            if not problems:
                raise
    problems += hostile_input_problems(doc, file)
    return sorted(set(problems), key=lambda p: (p.pointer, p.message))


def _acp(doc: dict[str, Any], file: str) -> Iterator[Problem]:
    """A schema with no ACP method would generate a package that speaks nothing (a JSON Schema
    of something else, or `{"$defs": {}}`): refuse it and say why."""
    if doc.get("x-methods"):
        return
    defs = doc.get("$defs")
    if isinstance(defs, dict) and any(
        isinstance(schema, dict) and "x-method" in schema for schema in defs.values()
    ):
        return
    yield Problem(
        file,
        "",
        "no ACP methods: no /x-methods table and no $defs entry marked x-method, so there is "
        "nothing to generate (is this a schema of the Agent Client Protocol?)",
    )


@cache
def _meta_validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(bundled_meta_schema())


def _standard(doc: dict[str, Any], file: str) -> Iterator[Problem]:
    for err in _meta_validator().iter_errors(doc):
        yield Problem(file, pointer(*err.absolute_path), f"not a valid JSON Schema: {err.message}")


def _x_keywords(doc: dict[str, Any], file: str) -> Iterator[Problem]:
    for at, err in x_keyword_errors(doc):
        for leaf in _leaves(err):
            yield Problem(file, pointer(*at, *leaf.absolute_path), leaf.message)


def _leaves(err: ValidationError) -> Iterator[ValidationError]:
    """The errors that explain `err`: inside an `anyOf`, those of the branch that got furthest."""
    if not err.context:
        yield err
        return
    branches: dict[Any, list[ValidationError]] = {}
    for sub in err.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    closest = max(branches.values(), key=lambda errs: max(len(e.absolute_path) for e in errs))
    for sub in closest:
        yield from _leaves(sub)


def _walk(
    node: Any, path: tuple[str | int, ...] = ()
) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _walk(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, (*path, i))


def _refs(doc: dict[str, Any], file: str) -> Iterator[Problem]:
    defs = doc["$defs"]
    for path, node in _walk(doc):
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            name = ref[len(REF_PREFIX) :] if ref.startswith(REF_PREFIX) else None
            if name is None or name not in defs:
                yield Problem(file, pointer(*path, "$ref"), f"unknown $ref {ref!r}")


def _names(doc: dict[str, Any], file: str) -> Iterator[Problem]:
    for name, schema in doc["$defs"].items():
        if not is_identifier(name):
            yield Problem(
                file,
                pointer("$defs", name),
                f"definition name {name!r} cannot be a Python identifier",
            )
        elif name in RESERVED_NAMES or name.startswith("_"):
            msg = f"definition name {name!r} would shadow a name the generated models need"
            yield Problem(file, pointer("$defs", name), msg)
        title = schema.get("title") if isinstance(schema, dict) else None
        if isinstance(title, str) and title != name and title[:1].isupper():
            yield Problem(
                file,
                pointer("$defs", name, "title"),
                f"title {title!r} differs from the definition name",
            )


def _unions(doc: dict[str, Any], file: str) -> Iterator[Problem]:
    for name, schema in doc["$defs"].items():
        if not isinstance(schema, dict):
            continue
        try:
            shape = find_union(name, schema, file)
        except SchemaError as exc:
            yield from exc.problems
            continue
        if shape is None:
            if "x-union" in schema:
                yield Problem(
                    file,
                    pointer("$defs", name, "x-union"),
                    "x-union on a definition with no tagged branches",
                )
            continue
        seen: dict[str, int] = {}
        for b in shape.branches:
            at = pointer("$defs", name, shape.key, b.index)
            if b.tag is not None and b.tag in seen:
                yield Problem(
                    file, at, f"tag value {b.tag!r} appears twice (first in branch {seen[b.tag]})"
                )
            if b.tag is not None:
                seen[b.tag] = b.index
            if (
                b.title
                and b.title != "other"
                and b.title[:1].isupper()
                and not is_identifier(b.title)
            ):
                yield Problem(
                    file,
                    pointer("$defs", name, shape.key, b.index, "title"),
                    f"title {b.title!r} cannot be a Python class name",
                )


def _method_table(doc: dict[str, Any], file: str) -> Iterator[Problem]:
    table = doc.get("x-methods")
    if not isinstance(table, list):
        return
    defs = doc["$defs"]
    seen: dict[tuple[str, str], int] = {}
    handlers: dict[str, int] = {}
    requests = {row["method"] for row in table if row["kind"] == "request"}
    for i, row in enumerate(table):
        at = ("x-methods", i)
        method = row["method"]
        if (method, row["kind"]) in seen:
            first = seen[method, row["kind"]]
            yield Problem(
                file,
                pointer(*at, "method"),
                f"duplicate method {method!r} (first at /x-methods/{first})",
            )
            continue
        seen[method, row["kind"]] = i
        handler = method_handler(method, row["kind"], requests)
        if handler in handlers:
            yield Problem(
                file,
                pointer(*at, "method"),
                f"method {method!r} gives the same Python name as /x-methods/{handlers[handler]}",
            )
        handlers[handler] = i
        for role in ("params", "result"):
            name = row.get(role)
            if name is None:
                continue
            if name not in defs:
                yield Problem(file, pointer(*at, role), f"unknown definition {name!r}")
                continue
            schema = defs[name]
            if schema.get("x-method") != method:
                yield Problem(
                    file,
                    pointer("$defs", name, "x-method"),
                    f"x-method should be {method!r} (see /x-methods/{i})",
                )
            if schema.get("x-side") != row["side"]:
                yield Problem(
                    file,
                    pointer("$defs", name, "x-side"),
                    f"x-side should be {row['side']!r} (see /x-methods/{i})",
                )
    listed = {row.get(r) for row in table for r in ("params", "result")}
    for name, schema in defs.items():
        if isinstance(schema, dict) and "x-method" in schema and name not in listed:
            yield Problem(
                file,
                pointer("$defs", name, "x-method"),
                f"{schema['x-method']!r} is missing from x-methods",
            )


def _merge_rules(doc: dict[str, Any], file: str) -> Iterator[Problem]:
    union = doc.get("x-update-union")
    if union is None:
        return
    defs = doc["$defs"]
    if union not in defs:
        yield Problem(file, pointer("x-update-union"), f"unknown definition {union!r}")
        return
    shape = find_union(union, defs[union], file)
    if shape is None:
        yield Problem(
            file, pointer("$defs", union), "the session-update union must be a tagged union"
        )
        return
    for b in shape.branches:
        branch = defs[union][shape.key][b.index]
        if not b.fallback and "x-merge" not in branch:
            yield Problem(
                file,
                pointer("$defs", union, shape.key, b.index),
                f"variant {b.tag!r} has no x-merge rule",
            )


def _tristate(doc: dict[str, Any], file: str) -> Iterator[Problem]:
    for name, schema in doc["$defs"].items():
        if not isinstance(schema, dict):
            continue
        required = set(schema.get("required") or [])
        for prop, sub in (schema.get("properties") or {}).items():
            if not (isinstance(sub, dict) and sub.get("x-tristate") is True):
                continue
            at = pointer("$defs", name, "properties", prop)
            if prop in required:
                yield Problem(file, at, "an x-tristate property must be optional")
            if not accepts_null(sub, doc["$defs"]):
                yield Problem(file, at, "an x-tristate property must accept null")


def accepts_null(schema: dict[str, Any], defs: dict[str, Any]) -> bool:
    types = schema.get("type")
    if types == "null" or (isinstance(types, list) and "null" in types):
        return True
    if "type" not in schema and not any(
        k in schema for k in ("anyOf", "oneOf", "$ref", "allOf", "const", "enum")
    ):
        return True  # unconstrained (any JSON value)
    return any(
        isinstance(b, dict) and accepts_null(b, defs)
        for b in schema.get("anyOf") or schema.get("oneOf") or []
    )
