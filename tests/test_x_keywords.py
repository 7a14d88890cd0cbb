"""The x- keyword check walks `$defs/node`'s recursion itself (load/x_keywords.py): it must find
exactly what the meta-schema, checked whole by `jsonschema`, finds. Same pointers, same
messages, on the shipped schemas and on broken or random documents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.load.validate import _leaves, _x_keywords
from acp_codegen.load.x_keywords import meta_schema
from acp_codegen.model.errors import pointer
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from test_meta_bundle import EVERY_SCHEMA


def _whole(document: Any) -> list[tuple[str, str]]:
    """The meta-schema checked whole, its recursion left to `jsonschema` (the reference)."""
    errors = Draft202012Validator(meta_schema()).iter_errors(document)
    return sorted(
        {(pointer(*leaf.absolute_path), leaf.message) for err in errors for leaf in _leaves(err)}
    )


def _walked(document: Any) -> list[tuple[str, str]]:
    return sorted({(p.pointer, p.message) for p in _x_keywords(document, "s.json")})


_MERGE = {"entity": "message", "op": "upsert", "key": "/messageId", "role": "agent"}
BROKEN: list[Any] = [
    {},
    {"$defs": []},
    {"$defs": {"A": {"x-method": 3, "x-side": "", "x-union": {"tag": ""}, "x-tristate": False}}},
    {"$defs": {"A": {"anyOf": [{"x-unstable": 1}, [{"x-union": {}}]], "x-merge": {}}}},
    {"$defs": {"A": {"properties": {"b": {"x-merge": {**_MERGE, "key": "no~2", "op": "x"}}}}}},
    {"$defs": {"A": {"x-merge": {"entity": "notice", "op": "append", "key": "/a"}}}},
    {"$defs": {"A": {"x-merge": {"entity": "replay", "op": "upsert", "from": "/a"}}}},
    {"$defs": {"A": {"x-merge": {"entity": "usage", "op": "remove", "field": "f", "bytes": 1}}}},
    {"$defs": {"A": 5}, "x-acp": {"protocolVersion": -1}, "x-update-union": 3},
    {"$defs": {}, "x-methods": [{"method": "", "side": "x", "kind": "request", "params": 1}]},
    {"$defs": {}, "x-methods": [{"method": "a", "side": "agent", "kind": "notification"}, 3]},
    {"$defs": {"A": {"x-deserialize-default-on-error": "yes", "x-method": "m"}}, "x-acp": []},
    [],
    "not a schema",
]


@pytest.mark.parametrize("document", BROKEN, ids=range(len(BROKEN)))
def test_broken_documents_get_the_same_problems(document: Any) -> None:
    whole = _whole(document)
    assert whole, "the case should be broken"
    assert _walked(document) == whole


@pytest.mark.parametrize("schema", EVERY_SCHEMA, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_shipped_and_fixture_schemas_get_the_same_problems(schema: Path) -> None:
    document = json.loads(schema.read_text(encoding="utf-8"))
    assert _walked(document) == _whole(document)


_KEYS = st.sampled_from(
    [
        *("x-method", "x-side", "x-union", "x-tristate", "x-unstable", "x-merge", "tag"),
        *("entity", "op", "key", "field", "role", "from", "$defs", "x-methods", "x-acp", "a"),
        *("x-deserialize-skip-invalid-items", "x-deserialize-default-on-null", "properties"),
        "protocolVersion",
    ]
)
_SCALARS = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from(["", "m", "/a"])
_VALUES = st.recursive(
    _SCALARS | st.sampled_from(["message", "notice", "append", "remove", "request", "agent"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=30,
)


@given(st.dictionaries(_KEYS, _VALUES, max_size=4) | _VALUES)
def test_any_document_gets_the_same_problems(document: Any) -> None:
    assert _walked(document) == _whole(document)
