"""The bundled 2020-12 meta-schema (load/meta_bundle.py) finds exactly the problems the published
one finds: same instance paths, same messages, on valid and broken schema documents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.load.meta_bundle import bundled_meta_schema
from conftest import FIXTURE_SCHEMAS, REPO, UPSTREAM_HISTORY
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
    return sorted((tuple(map(str, e.absolute_path)), e.message) for e in errors)


@pytest.mark.parametrize("document", BROKEN, ids=range(len(BROKEN)))
def test_broken_documents_get_the_same_problems(document: Any) -> None:
    published = _problems(Draft202012Validator.META_SCHEMA, document)
    assert published, "the case should be broken"
    assert _problems(bundled_meta_schema(), document) == published


@pytest.mark.parametrize(
    "schema",
    [REPO / "schema" / "acp.schema.json", *UPSTREAM_HISTORY, *FIXTURE_SCHEMAS.glob("*.json")],
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
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
