"""Overlays: the canonical schema's merge rules and patch fields applied to inputs without them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.commands.cli import main
from acp_codegen.commands.exits import EXIT_USAGE as EXIT_SCHEMA
from acp_codegen.commands.pipeline import load_protocol
from acp_codegen.load.overlay import V1_OVERLAY, V2_OVERLAY, overlay_from_schema
from acp_codegen.model.errors import SchemaError
from acp_codegen.model.ir import Protocol
from conftest import REPO, SCHEMA, load_script

UPSTREAM_V1 = REPO / "tests" / "fixtures" / "upstream" / "v1-2.4.0" / "schema.json"


def strip(node: Any) -> Any:
    """`node` without our merge rules, patch markers and update-union name (what upstream's
    files look like: a schema that names the union must give every variant a rule)."""
    if isinstance(node, dict):
        drop = ("x-merge", "x-tristate", "x-update-union")
        return {k: strip(v) for k, v in node.items() if k not in drop}
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node


def write(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def canonical_doc() -> dict[str, Any]:
    return json.loads(SCHEMA.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def canonical_protocol() -> Protocol:
    return load_protocol(SCHEMA)


def test_the_built_in_overlay_is_the_canonical_schemas_annotations(
    canonical_doc: dict[str, Any],
) -> None:
    """The shipped file is what scripts/update_overlay.py writes from schema/acp.schema.json."""
    assert V2_OVERLAY.read_bytes() == load_script("update_overlay").render()
    overlay = json.loads(V2_OVERLAY.read_text(encoding="utf-8"))
    assert overlay == overlay_from_schema(canonical_doc)
    assert len(overlay["merge"]) == 24 and "ToolCallUpdate" in overlay["tristate"]


def test_a_stripped_canonical_schema_gets_the_same_rules_back(
    tmp_path: Path, canonical_doc: dict[str, Any], canonical_protocol: Protocol
) -> None:
    stripped = strip(canonical_doc)
    protocol = load_protocol(write(tmp_path / "plain.json", stripped))
    assert protocol.update_variants == canonical_protocol.update_variants
    assert protocol.tristate_fields == canonical_protocol.tristate_fields
    assert any("acp-v2.json (built in)" in note for note in protocol.notes)


def test_an_input_with_its_own_rules_gets_no_overlay(canonical_protocol: Protocol) -> None:
    assert not any("overlay" in note for note in canonical_protocol.notes)


def test_a_v1_shaped_input_gets_the_v1_overlay(
    tmp_path: Path, canonical_doc: dict[str, Any]
) -> None:
    """v1's rules apply where a v1 input has the tag; v2-only tags get none."""
    doc = strip(canonical_doc)
    doc["x-acp"]["protocolVersion"] = 1
    protocol = load_protocol(write(tmp_path / "v1.json", doc))
    merges = {v.tag: v.merge for v in protocol.update_variants}
    assert merges["tool_call_update"] is not None
    assert merges["agent_message"] is None  # a v2 whole message: not in the v1 overlay
    assert any("acp-v1.json (built in)" in note for note in protocol.notes)
    assert any("protocol version 1" in note and "Not automated" in note for note in protocol.notes)


def test_upstream_v1_gets_merge_rules_for_its_updates() -> None:
    protocol = load_protocol(UPSTREAM_V1)
    merges = {v.tag: v.merge for v in protocol.update_variants}
    for tag in ("tool_call", "tool_call_update"):
        rule = merges[tag]
        assert rule is not None and rule.key == "/toolCallId", tag
    chunk = merges["agent_thought_chunk"]
    assert chunk is not None and (chunk.op, chunk.role) == ("append", "thought")
    assert merges["plan"] is None  # v1's plan has no id to key the plan entity by
    assert json.loads(V1_OVERLAY.read_text(encoding="utf-8"))["acpCodegenOverlay"] == 1


def test_overlay_option_replaces_the_built_in_one(
    tmp_path: Path, canonical_doc: dict[str, Any]
) -> None:
    rule = {"entity": "usage", "op": "replace"}
    overlay = write(
        tmp_path / "mine.json",
        {"acpCodegenOverlay": 1, "merge": {"usage_update": rule}, "tristate": {"Plan": ["x"]}},
    )
    protocol = load_protocol(write(tmp_path / "plain.json", strip(canonical_doc)), None, overlay)
    ruled = {v.tag: v.merge for v in protocol.update_variants if v.merge}
    assert list(ruled) == ["usage_update"]
    assert protocol.tristate_fields == ()
    unruled = next(note for note in protocol.notes if "has no merge rule" in note)
    assert "agent_message_chunk" in unruled and "usage_update" not in unruled
    assert any("Plan.x" in note and "left out" in note for note in protocol.notes)


@pytest.mark.parametrize(
    ("overlay", "where", "says"),
    [
        ({"merge": {}}, "", "acpCodegenOverlay"),
        (
            {"acpCodegenOverlay": 1, "merge": {"plan_update": {"op": "merge"}}},
            "/merge/plan_update",
            "entity",
        ),
        (
            {"acpCodegenOverlay": 1, "merge": {"plan_update": {"entity": "plan", "op": "merge"}}},
            "/merge/plan_update/op",
            "merge",
        ),
        (
            {"acpCodegenOverlay": 1, "tristate": {"ToolCallUpdate": "title"}},
            "/tristate/ToolCallUpdate",
            "array",
        ),
        ({"acpCodegenOverlay": 1, "rules": {}}, "", "rules"),
    ],
)
def test_a_bad_overlay_is_an_error_with_file_and_pointer(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    overlay: dict[str, Any],
    where: str,
    says: str,
) -> None:
    path = write(tmp_path / "bad-overlay.json", overlay)
    out = tmp_path / "out"
    argv = ["generate", "--schema", str(SCHEMA), "--out", str(out), "--package", "p"]
    assert main([*argv, "--overlay", str(path)]) == EXIT_SCHEMA
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert any(f"bad-overlay.json#{where or '/'}:" in e and says in e for e in errors), err
    assert not out.exists()  # nothing written


def test_an_overlay_that_is_not_json_names_the_position(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"acpCodegenOverlay": 1,', encoding="utf-8")
    with pytest.raises(SchemaError, match=r"broken\.json#/: not valid JSON at line 1"):
        load_protocol(SCHEMA, None, path)


@pytest.mark.slow
def test_the_regenerate_command_names_the_overlay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, canonical_doc: dict[str, Any]
) -> None:
    monkeypatch.chdir(tmp_path)
    schema = write(tmp_path / "plain.json", strip(canonical_doc))
    overlay = tmp_path / "acp-v2.json"
    overlay.write_bytes(V2_OVERLAY.read_bytes())
    argv = ["generate", "--schema", "plain.json", "--out", "out", "--package", "p"]
    assert main([*argv, "--overlay", "acp-v2.json"]) == 0
    header = (tmp_path / "out" / "p" / "merge_rules.py").read_text(encoding="utf-8")
    assert "--overlay acp-v2.json" in header
    assert (
        "'agent_message_chunk': MergeRule(" in header
        or '"agent_message_chunk": MergeRule(' in header
    )
    assert schema.is_file()
    check = ["check", "--schema", "plain.json", "--out", "out", "--package", "p"]
    assert main([*check, "--overlay", "acp-v2.json"]) == 0  # the same overlay: up to date
    overlay.write_text('{"acpCodegenOverlay": 1}', encoding="utf-8")
    assert main([*check, "--overlay", "acp-v2.json"]) == 1  # no rules now: out of date


def test_a_rule_whose_pointers_miss_the_variant_is_left_out(
    tmp_path: Path, canonical_doc: dict[str, Any]
) -> None:
    rules = {
        "usage_update": {"entity": "usage", "op": "replace"},
        "plan_update": {"entity": "plan", "op": "replace", "key": "/plan/nope", "from": "/plan"},
        "tool_call_content_chunk": {
            "entity": "toolCall",
            "op": "append",
            "key": "/toolCallId",
            "field": "output",
        },
    }
    overlay = write(tmp_path / "o.json", {"acpCodegenOverlay": 1, "merge": rules})
    protocol = load_protocol(write(tmp_path / "plain.json", strip(canonical_doc)), None, overlay)
    assert [v.tag for v in protocol.update_variants if v.merge] == ["usage_update"]
    note = next(n for n in protocol.notes if "rules left out" in n)
    assert "plan_update (/plan/nope)" in note and "tool_call_content_chunk (/output)" in note
