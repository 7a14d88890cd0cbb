"""Structural abuse of a schema: recursion, depth, size and count. Each gets a correct result or a
clear error, quickly (the sizes here are the real ones where that is cheap; the measured bounds
for the big inputs come from fuzz/bounds.py and are in docs/robustness.md)."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.commands.pipeline import load_protocol, render_tree
from acp_codegen.emit.render import Target
from acp_codegen.load import limits
from acp_codegen.load.parse import build_protocol
from acp_codegen.model.errors import SchemaError
from conftest import FIXTURE_SCHEMAS, render, write_tree

REQUEST = json.loads((FIXTURE_SCHEMAS / "request.json").read_text(encoding="utf-8"))
UNION = json.loads((FIXTURE_SCHEMAS / "tagged_union.json").read_text(encoding="utf-8"))


def _write(tmp_path: Path, doc: Any) -> Path:
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _with_property(schema: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(REQUEST)
    doc["$defs"]["RenameSessionRequest"]["properties"]["extra"] = schema
    return doc


def _problems(path: Path) -> list[tuple[str, str]]:
    with pytest.raises(SchemaError) as caught:
        load_protocol(path)
    return [(p.pointer, p.message) for p in caught.value.problems]


def _import(out: Path, package: str) -> Any:
    sys.path.insert(0, str(out))
    try:
        return __import__(f"{package}.models").models
    finally:
        sys.path.remove(str(out))


def test_legal_recursion_generates_and_round_trips(tmp_path: Path) -> None:
    doc = _with_property({"$ref": "#/$defs/Tree"})
    doc["$defs"]["Tree"] = {
        "title": "Tree",
        "type": "object",
        "properties": {
            "label": {"type": "string"},
            "kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}},
        },
    }
    write_tree(tmp_path / "out", render(_write(tmp_path, doc), "hostile_tree"))
    models = _import(tmp_path / "out", "hostile_tree")
    tree = {"label": "a", "kids": [{"label": "b", "kids": [{"label": "c", "kids": []}]}]}
    assert models.Tree.model_validate(tree).model_dump(mode="json", exclude_unset=True) == tree


@pytest.mark.parametrize("levels", [limits.MAX_SCHEMA_DEPTH, 1000])
def test_deep_nesting_is_a_clear_error(tmp_path: Path, levels: int) -> None:
    """Nesting past the limit fails before any recursive validator runs (1,000 levels included)."""
    # written as text: json.dumps itself cannot nest 1,000 objects
    nested = '{"type":"object","properties":{"x":' * levels + '{"type":"string"}' + "}}" * levels
    text = json.dumps(_with_property({"$ref": "#/$defs/SessionId"}))
    path = tmp_path / "schema.json"
    path.write_text(text.replace('{"$ref": "#/$defs/SessionId"}', nested, 1), encoding="utf-8")
    [(at, message)] = _problems(path)
    assert at == "" and f"at most {limits.MAX_SCHEMA_DEPTH} levels are supported" in message


def test_nesting_just_inside_the_limit_generates(tmp_path: Path) -> None:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(20):  # 20 objects = 40 JSON levels below the property, 8 above it
        node = {"type": "object", "properties": {"x": node}}
    files = render(_write(tmp_path, _with_property(node)), "hostile_deep")
    assert "hostile_deep/models.py" in files


def test_nesting_past_the_json_decoder_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "schema.json"
    path.write_text('{"$defs": {"A": ' + "[" * 100_000 + "]" * 100_000 + "}}", encoding="utf-8")
    [(at, message)] = _problems(path)
    assert at == "" and "nested" in message


def test_ten_thousand_definitions_is_a_clear_error(tmp_path: Path) -> None:
    doc = copy.deepcopy(REQUEST)
    for i in range(10_000):
        doc["$defs"][f"Thing{i}"] = {"title": f"Thing{i}", "type": "string"}
    [(at, message)] = _problems(_write(tmp_path, doc))
    assert at == "/$defs" and f"at most {limits.MAX_DEFINITIONS}" in message


def test_oversized_file_is_refused_without_reading_it_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_SCHEMA_BYTES", 1024)
    doc = copy.deepcopy(REQUEST)
    doc["description"] = "x" * 2048
    [(at, message)] = _problems(_write(tmp_path, doc))
    assert at == "" and "larger than" in message


def test_long_strings_generate(tmp_path: Path) -> None:
    """A megabyte of description and a 10,000-character enum value are data, not a problem."""
    doc = _with_property({"type": "string", "enum": ["v" * 10_000, "w"]})
    doc["$defs"]["RenameSessionRequest"]["description"] = "d" * (1 << 20)
    write_tree(tmp_path / "out", render(_write(tmp_path, doc), "hostile_long"))
    models = _import(tmp_path / "out", "hostile_long")
    message = {"sessionId": "s", "title": "t", "extra": "v" * 10_000}
    parsed = models.RenameSessionRequest.model_validate(message)
    assert parsed.model_dump(mode="json", by_alias=True, exclude_unset=True) == message
    assert models.RenameSessionRequest.__doc__.count("d") >= 1 << 20


def test_generator_rejection_is_a_schema_error(tmp_path: Path) -> None:
    """Should validate miss a shape datamodel-code-generator rejects, the user still gets a
    located error, not a traceback (here validate is bypassed on purpose)."""
    doc = _with_property({"$ref": "#/$defs/A"})
    doc["$defs"]["A"] = {"title": "A", "allOf": [{"$ref": "#/$defs/A"}]}
    raw = json.dumps(doc).encode()
    protocol = build_protocol(doc, raw, "schema.json")
    with pytest.raises(SchemaError) as caught:
        render_tree(protocol, Target(package="hostile_cycle", command="x"))
    assert "cycle" in str(caught.value)


def test_untagged_default_branch_takes_unknown_tags_without_a_fallback(tmp_path: Path) -> None:
    """The schema lets a branch without a tag const match any tag value; so does the model."""
    doc = copy.deepcopy(UNION)
    doc["$defs"]["Shape"]["anyOf"].append(
        {
            "title": "Blob",
            "type": "object",
            "properties": {"b": {"type": "string"}},
            "required": ["b"],
        }
    )
    write_tree(tmp_path / "out", render(_write(tmp_path, doc), "hostile_default"))
    models = _import(tmp_path / "out", "hostile_default")
    from pydantic import TypeAdapter, ValidationError

    shape: TypeAdapter[Any] = TypeAdapter(models.Shape)
    for sample in ({"b": "x"}, {"kind": "hexagon", "b": "x"}):
        parsed = shape.validate_python(sample)
        assert type(parsed).__name__ == "Blob"
        assert shape.dump_python(parsed, mode="json", by_alias=True) == sample
    assert type(shape.validate_python({"kind": "circle", "radius": 1})).__name__ == "Circle"
    with pytest.raises(ValidationError):
        shape.validate_python({"kind": "circle"})  # a known tag with a bad payload stays an error
