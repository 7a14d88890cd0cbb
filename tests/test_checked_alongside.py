"""A full render checks the schema alongside (pipeline.loading): the checks' problems still win,
and both ways give the same bytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.commands import pipeline
from acp_codegen.commands.pipeline import load_protocol, loading, render_files
from acp_codegen.emit import ahead as ahead_module
from acp_codegen.emit.render import Target
from acp_codegen.model.errors import SchemaError
from acp_codegen.model.ir import Protocol
from conftest import FIXTURE_SCHEMAS

REPO = Path(__file__).resolve().parent.parent
VALID = json.loads((FIXTURE_SCHEMAS / "merge_annotation.json").read_text(encoding="utf-8"))


def _broken(tmp_path: Path) -> Path:
    """A schema the checks reject (an unknown $ref) and the build trips over."""
    doc = json.loads(json.dumps(VALID))
    doc["$defs"]["ContentChunk"]["properties"]["content"] = {"$ref": "#/$defs/Nope"}
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _serial(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ahead_module, "_spare_core", lambda: False)


@pytest.mark.parametrize("forked", [True, False], ids=["forked", "serial"])
def test_the_checks_problems_win_over_an_error_of_the_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forked: bool
) -> None:
    if not forked:
        _serial(monkeypatch)
    path = _broken(tmp_path)
    with pytest.raises(SchemaError) as expected:
        load_protocol(path, "shown.json")
    with pytest.raises(SchemaError) as got, loading(path, "shown.json"):
        raise KeyError("Nope")  # what work on the unchecked protocol might raise
    assert got.value.problems == expected.value.problems
    assert any("unknown $ref" in p.message for p in got.value.problems)


def test_without_a_spare_core_the_block_never_sees_an_unchecked_protocol(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _serial(monkeypatch)
    built: list[str] = []
    real_build = pipeline._build

    def counting(*args: Any) -> Protocol:
        built.append("built")
        return real_build(*args)

    monkeypatch.setattr(pipeline, "_build", counting)
    with pytest.raises(SchemaError), loading(_broken(tmp_path)):
        pytest.fail("the block ran on a schema with problems")
    assert built == []


def test_an_error_of_the_block_on_a_valid_schema_is_raised_as_it_is() -> None:
    with pytest.raises(KeyError, match="mine"), loading(FIXTURE_SCHEMAS / "merge_annotation.json"):
        raise KeyError("mine")


@pytest.mark.slow
@pytest.mark.skipif(not ahead_module.can_fork(), reason="no fork or no spare core")
def test_forked_and_serial_renders_give_the_same_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The golden tests check the forked path's bytes; this one pins the serial path to them."""
    schema = REPO / "schema" / "acp.schema.json"
    target = Target("acp_bindings", "acp-codegen generate")
    with loading(schema, "schema/acp.schema.json") as protocol:
        forked = render_files(protocol, target)
    _serial(monkeypatch)
    with loading(schema, "schema/acp.schema.json") as protocol:
        assert render_files(protocol, target) == forked
