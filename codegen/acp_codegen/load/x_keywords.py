"""Check the shape of the x- keywords a schema uses against our meta-schema (meta_schema.json).

The meta-schema says it recursively: `$defs/node` visits every value under `$defs` and checks
each x- keyword it meets with that keyword's subschema. Left to `jsonschema`, that recursion is
a reference lookup and a validator per node of the document, nearly all of which carry no x-
keyword. So the recursion is walked here, in the same order over the same values, and only
the keywords' own subschemas (and the document's top, less its `$defs`) go to `jsonschema`:
the same problems at the same pointers (tests/test_x_keywords.py compares them with the
meta-schema checked whole)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported where used: a full generate checks in a child process
    from jsonschema import Draft202012Validator, ValidationError

from ..paths import META_SCHEMA

Path = tuple[str | int, ...]


@cache
def meta_schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(META_SCHEMA.read_text(encoding="utf-8"))
    return loaded


@cache
def _top() -> Draft202012Validator:
    """The meta-schema with `$defs` taken as any object: its nodes are walked by `_nodes`."""
    from jsonschema import Draft202012Validator

    meta = meta_schema()
    top = {**meta, "properties": {**meta["properties"], "$defs": {"type": "object"}}}
    return Draft202012Validator(top)


def x_keyword_errors(doc: Any) -> Iterator[tuple[Path, ValidationError]]:
    """Each error with the path of the value it was found under."""
    validator = _top()
    for err in validator.iter_errors(doc):
        yield (), err
    defs = doc.get("$defs") if isinstance(doc, dict) else None
    if isinstance(defs, dict):
        keywords: dict[str, Any] = meta_schema()["$defs"]["node"]["properties"]
        for name, node in defs.items():
            yield from _nodes(validator, keywords, node, ("$defs", name))


def _nodes(
    validator: Draft202012Validator, keywords: dict[str, Any], node: Any, path: Path
) -> Iterator[tuple[Path, ValidationError]]:
    # `$defs/node`: `items` for an array, `properties` and `additionalProperties` for an object.
    if isinstance(node, list):
        for index, item in enumerate(node):
            yield from _nodes(validator, keywords, item, (*path, index))
    elif isinstance(node, dict):
        for key, value in node.items():
            if key in keywords:
                for err in validator.evolve(schema=keywords[key]).iter_errors(value):
                    yield (*path, key), err
            else:
                yield from _nodes(validator, keywords, value, (*path, key))
