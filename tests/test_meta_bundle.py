"""The bundled 2020-12 meta-schema (load/meta_bundle.py) finds exactly the problems the published
one finds: same instance paths, same messages, on valid and broken schema documents. Compared as
sets, as the checks report them: the published document repeats a problem once per vocabulary
(a `type` of each), the flat bundle says it once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.load.meta_bundle import bundled_meta_schema
from conftest import FIXTURE_SCHEMAS, REPO, UPSTREAM_HISTORY
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

BROKEN: list[Any] = [
    {"type": 5},
    {"$defs": {"X": {"type": 5, "properties": [], "minLength": -1, "items": {"enum": 3}}}},
    {
        "properties": {
            "a": {"$ref": 3, "anyOf": [], "required": "x", "dependentRequired": {"a": [1]}}
        }
    },
    {
        "$defs": {
            "X": {
                "if": 3,
                "then": {"not": "no"},
                "unevaluatedProperties": 1,
                "contentSchema": 2,
                "deprecated": "yes",
                "format": 1,
                "$anchor": "1bad",
                "$dynamicAnchor": 3,
                "$vocabulary": 1,
                "$comment": 2,
            }
        }
    },
    {"$schema": 5, "$id": 3, "examples": 3, "prefixItems": [], "patternProperties": {"a": 1}},
    # The older keywords the root still describes (through the vocabularies' own $defs).
    {"definitions": {"a": 1}, "dependencies": {"b": [2], "c": 3}, "$recursiveAnchor": "x"},
    {"allOf": [{"enum": "x", "multipleOf": 0, "maxItems": -1, "uniqueItems": 1}], "oneOf": {}},
    [],
    "not a schema",
]


def _problems(meta: dict[str, Any], document: Any) -> list[tuple[tuple[str, ...], str]]:
    errors = Draft202012Validator(meta).iter_errors(document)
    return sorted({(tuple(map(str, e.absolute_path)), e.message) for e in errors})


@pytest.mark.parametrize("document", BROKEN, ids=range(len(BROKEN)))
def test_broken_documents_get_the_same_problems(document: Any) -> None:
    published = _problems(Draft202012Validator.META_SCHEMA, document)
    assert published, "the case should be broken"
    assert _problems(bundled_meta_schema(), document) == published


# Keywords of every vocabulary (and the root's older ones), with values of every JSON type.
_KEYWORDS = sorted(
    {"$ref", "$id", "$anchor", "$dynamicAnchor", "$comment", "$defs", "$vocabulary", "items"}
    | {"prefixItems", "contains", "additionalProperties", "properties", "patternProperties"}
    | {"dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "not"}
    | {"unevaluatedItems", "unevaluatedProperties", "type", "const", "enum", "multipleOf"}
    | {"maxLength", "minLength", "pattern", "minItems", "uniqueItems", "required", "format"}
    | {"dependentRequired", "title", "default", "deprecated", "examples", "contentSchema"}
    | {"contentEncoding", "definitions", "dependencies", "$recursiveRef", "maxContains", "x"}
)
_SCALARS = st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "a", "#", "1x"])
_DOCUMENTS = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(_KEYWORDS) | st.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=25,
)


@given(_DOCUMENTS)
def test_any_document_gets_the_same_problems(document: Any) -> None:
    assert _problems(bundled_meta_schema(), document) == _problems(
        Draft202012Validator.META_SCHEMA, document
    )


# The canonical schema, upstream's history and every fixture: all must pass the checks.
EVERY_SCHEMA = [
    REPO / "schema" / "acp.schema.json",
    *UPSTREAM_HISTORY,
    *sorted(FIXTURE_SCHEMAS.glob("*.json")),
]


@pytest.mark.parametrize("schema", EVERY_SCHEMA, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_valid_documents_stay_valid(schema: Path) -> None:
    document = json.loads(schema.read_text(encoding="utf-8"))
    assert _problems(bundled_meta_schema(), document) == []


def _references(node: Any) -> list[tuple[str, str]]:
    """Every reference keyword with a string value (a property named `$ref` has an object)."""
    if isinstance(node, list):
        return [ref for item in node for ref in _references(item)]
    if not isinstance(node, dict):
        return []
    found = [(k, v) for k, v in node.items() if k in ("$ref", "$dynamicRef") and isinstance(v, str)]
    return found + [ref for value in node.values() for ref in _references(value)]


def test_every_reference_stays_inside_the_bundle() -> None:
    references = _references(bundled_meta_schema())
    assert references
    assert all(key == "$ref" and value.startswith("#") for key, value in references)
