"""The post-2.4.0 v2 items of issue 33's subagent part: `subagent_update`, `session_message`,
`session_message_chunk` and `plan_removed`.

Upstream's 2.4.0 package ships them in `schema.unstable.json` only; the Rust schema crate
(1.22.0, module v2) and the announcement of 2026-11-20 put them in v2's baseline. Our canonical
schema has them with the wire shape 2.4.0's unstable file gives them (the same as the crate's),
in our own words, and `acp-codegen diff` against 2.4.0's `schema.json` names exactly them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from acp_codegen.commands.diff import diff_files
from acp_codegen.commands.pipeline import load_protocol
from conftest import REPO, UPSTREAM
from pydantic import TypeAdapter
from test_schema_upstream import def_facts

OURS = REPO / "schema" / "acp.schema.json"
V240 = UPSTREAM / "sdk-2.4.0" / "schema.json"
V240_UNSTABLE = UPSTREAM / "sdk-2.4.0" / "schema.unstable.json"

# What `acp-codegen diff` from 2.4.0 to ours reports for this part: (category, subject, change).
SUBAGENT_ITEMS = frozenset(
    {
        ("session-updates", "plan_removed", "added"),
        ("session-updates", "subagent_update", "added"),
        ("session-updates", "session_message", "added"),
        ("session-updates", "session_message_chunk", "added"),
        ("types", "PlanRemoved", "added"),
        ("types", "SubagentUpdate", "added"),
        ("types", "SubagentSessionCapabilities", "added"),
        ("types", "SessionCancelCapabilities", "added"),
        ("types", "SessionMessage", "added"),
        ("types", "SessionMessageChunk", "added"),
    }
)
NEW_DEFS = sorted({subject for category, subject, _ in SUBAGENT_ITEMS if category == "types"})
NEW_TAGS = sorted(
    {subject for category, subject, _ in SUBAGENT_ITEMS if category == "session-updates"}
)


def _doc(path: Any) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def _payloads(doc: dict[str, Any]) -> dict[str, str]:
    """sessionUpdate tag -> payload definition name."""
    out = {}
    for branch in doc["$defs"]["SessionUpdate"]["anyOf"]:
        tag = branch.get("properties", {}).get("sessionUpdate", {}).get("const")
        if tag is not None:
            out[tag] = branch["allOf"][0]["$ref"].rsplit("/", 1)[-1]
    return out


@pytest.mark.slow  # loads two whole schemas, as tests/test_diff_upstream.py does
def test_diff_against_2_4_0_names_the_subagent_items() -> None:
    found = {(c.category, c.subject, c.change) for c in diff_files(V240, OURS)}
    assert found >= SUBAGENT_ITEMS
    assert not [c for c in diff_files(V240, OURS) if c.breaking]


@pytest.mark.parametrize("name", NEW_DEFS)
def test_each_definition_has_upstreams_wire_shape(name: str) -> None:
    """Names, types, required lists and tolerant-reading marks as upstream has them; only the
    annotations (descriptions, our x- keywords) differ."""
    ours, upstream = _doc(OURS)["$defs"][name], _doc(V240_UNSTABLE)["$defs"][name]
    assert def_facts(name, ours) == def_facts(name, upstream)
    assert ours["description"] != upstream["description"]  # our own words


def test_the_session_update_branches_carry_upstreams_payloads() -> None:
    ours, upstream = _payloads(_doc(OURS)), _payloads(_doc(V240_UNSTABLE))
    assert {tag: ours[tag] for tag in NEW_TAGS} == {tag: upstream[tag] for tag in NEW_TAGS}
    stable = _payloads(_doc(V240))
    assert not set(NEW_TAGS) & stable.keys()  # after 2.4.0's stable schema


def test_each_new_variant_has_its_merge_rule() -> None:
    rules = {
        branch["properties"]["sessionUpdate"]["const"]: branch["x-merge"]
        for branch in _doc(OURS)["$defs"]["SessionUpdate"]["anyOf"]
        if "const" in branch.get("properties", {}).get("sessionUpdate", {})
    }
    assert rules["subagent_update"] == {"entity": "subagent", "op": "upsert", "key": "/sessionId"}
    assert rules["session_message"]["entity"] == "message"
    assert rules["session_message_chunk"]["op"] == "append"
    assert rules["session_message"]["role"] == rules["session_message_chunk"]["role"] == "session"
    assert rules["plan_removed"] == {"entity": "plan", "op": "remove", "key": "/planId"}


def test_the_items_round_trip_through_the_generated_models() -> None:
    """Each new variant parses into its own class and serialises back to the same JSON
    (absent stays absent, null stays null)."""
    from acp_codegen._bindings import models

    adapter: TypeAdapter[Any] = TypeAdapter(models.SessionUpdate)
    updates = [
        {"sessionUpdate": "plan_removed", "planId": "p1"},
        {
            "sessionUpdate": "subagent_update",
            "sessionId": "child-1",
            "title": "Researcher",
            "description": None,
            "capabilities": {"cancel": {}},
            "state": {"state": "running"},
            "cwd": "/work/child",
            "additionalDirectories": ["/work/shared"],
        },
        {"sessionUpdate": "subagent_update", "sessionId": "child-1", "cwd": None},
        {
            "sessionUpdate": "session_message",
            "messageId": "m1",
            "senderSessionId": "parent",
            "recipientSessionId": "child-1",
            "recipientMessageId": None,
            "content": [{"type": "text", "text": "look at src/"}],
        },
        {
            "sessionUpdate": "session_message_chunk",
            "messageId": "m1",
            "content": {"type": "text", "text": " please"},
        },
    ]
    names = []
    for update in updates:
        parsed = adapter.validate_python(update)
        names.append(type(parsed).__name__)
        assert adapter.dump_python(parsed, mode="json", by_alias=True) == update
    assert names == [
        "PlanRemoved",
        "SubagentUpdate",
        "SubagentUpdate",
        "SessionMessage",
        "SessionMessageChunk",
    ]


@pytest.mark.parametrize(
    ("update", "old_class"),
    [
        ({"state": "running"}, "RunningStateUpdate"),
        ({"state": "requires_action"}, "RequiresActionStateUpdate"),
        ({"state": "idle", "stopReason": "end_turn"}, "EndTurnIdleStateUpdate"),
        ({"state": "idle", "stopReason": "cancelled"}, "CancelledIdleStateUpdate"),
        ({"state": "idle"}, "NoneIdleStateUpdate"),
        ({"state": "_custom"}, "OtherStateUpdate"),
    ],
)
def test_a_state_update_parses_into_the_classes_it_had_before_subagents(
    update: dict[str, Any], old_class: str
) -> None:
    """A subagent's `state` is a StateUpdate too; the session-update branch keeps the class
    names (and idle's split by stopReason) code matching a parsed SessionUpdate knows, and the
    subagent side gets the copy."""
    from acp_codegen._bindings import models

    parsed = TypeAdapter(models.SessionUpdate).validate_python(
        {"sessionUpdate": "state_update", **update}
    )
    assert isinstance(parsed, getattr(models, old_class))
    child = models.SubagentUpdate.model_validate({"sessionId": "child-1", "state": update})
    assert type(child.state).__name__ == f"{old_class}InSubagentUpdate"


def test_generating_the_shipped_schema_notes_no_nested_union_copy() -> None:
    """`acp-codegen generate` printed one for StateUpdate on every run since subagents."""
    notes = load_protocol(OURS).notes
    assert not [n for n in notes if "nested" in n or "copy" in n], notes
