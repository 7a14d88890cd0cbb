"""Tolerant reading: a bad part of a session update is dropped where the schema allows it
(`x-deserialize-*`), logged, and the rest is kept; strict mode rejects the update whole."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
from acp_codegen.runtime.wire.tolerant import FieldRule, ToleranceTable, plan_repair
from conftest import REPO, UPSTREAM, GeneratedPackage
from runtime.streams import connected, run

TEXT = {"type": "text", "text": "ok"}
BAD_IMAGE = {"type": "image"}  # data and mimeType missing
KEYWORDS = ("x-deserialize-default-on-error", "x-deserialize-skip-invalid-items")


def state(canonical: GeneratedPackage, **options: Any) -> Any:
    return canonical.module.SessionState(**options)


def test_a_bad_content_block_is_skipped_and_logged(
    canonical: GeneratedPackage, caplog: pytest.LogCaptureFixture
) -> None:
    s = state(canonical)
    with caplog.at_level(logging.WARNING):
        s.apply(
            {
                "sessionUpdate": "agent_message",
                "messageId": "m1",
                "content": [TEXT, BAD_IMAGE, {"type": "text", "text": 5}, TEXT],
            }
        )
    (message,) = s.snapshot()["messages"]
    assert message["content"] == [TEXT, TEXT]
    logged = caplog.text
    assert "agent_message" in logged and "/content/1" in logged and "/content/2" in logged


def test_one_bad_field_leaves_the_rest_of_a_tool_call_update(
    canonical: GeneratedPackage, caplog: pytest.LogCaptureFixture
) -> None:
    s = state(canonical)
    with caplog.at_level(logging.WARNING):
        s.apply(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "c1",
                "title": "Read",
                "status": "in_progress",
                "kind": 7,
                "locations": [{"path": "/a"}, {"path": 5}],
            }
        )
    call = s.snapshot()["toolCalls"]["c1"]
    assert call["title"] == "Read" and call["status"] == "in_progress"
    assert "kind" not in call
    assert call["locations"] == [{"path": "/a"}]
    assert "/kind" in caplog.text and "/locations/1" in caplog.text


def test_a_bad_plan_entry_is_skipped(canonical: GeneratedPackage) -> None:
    s = state(canonical)
    good = {"content": "x", "priority": "high", "status": "pending"}
    s.apply(
        {
            "sessionUpdate": "plan_update",
            "plan": {"type": "items", "planId": "p", "entries": [good, {"content": "y"}]},
        }
    )
    assert s.snapshot()["plans"]["p"]["entries"] == [good]


def test_a_nested_bad_optional_value_falls_back_to_absent(canonical: GeneratedPackage) -> None:
    s = state(canonical)
    chunk = {"type": "text", "text": "hi", "_meta": 5}
    s.apply({"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": chunk})
    assert s.snapshot()["messages"][0]["content"] == [{"type": "text", "text": "hi"}]


@pytest.mark.parametrize(
    "update",
    [
        # a chunk's required block has no mark: the whole chunk is bad
        {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": BAD_IMAGE},
        # the key itself is missing
        {"sessionUpdate": "tool_call_update", "title": "x"},
        # a repairable part and an unrepairable one: nothing is applied
        {"sessionUpdate": "tool_call_update", "toolCallId": 5, "kind": 7},
    ],
)
def test_what_no_mark_covers_is_still_rejected(
    canonical: GeneratedPackage, update: dict[str, Any]
) -> None:
    s = state(canonical)
    before = s.snapshot()
    with pytest.raises(canonical.module.MalformedUpdateError):
        s.apply(update)
    assert s.snapshot() == before


def test_strict_mode_rejects_what_tolerant_mode_repairs(canonical: GeneratedPackage) -> None:
    update = {"sessionUpdate": "agent_message", "messageId": "m1", "content": [TEXT, BAD_IMAGE]}
    strict = state(canonical, strict=True)
    with pytest.raises(canonical.module.MalformedUpdateError, match="content"):
        strict.apply(update)
    assert strict.snapshot()["messages"] == []
    tolerant = state(canonical)
    tolerant.apply(update)
    assert tolerant.snapshot()["messages"][0]["content"] == [TEXT]
    assert update["content"] == [TEXT, BAD_IMAGE]  # the caller's data is left alone


def test_valid_updates_are_applied_as_they_are(canonical: GeneratedPackage) -> None:
    s = state(canonical)
    update = {"sessionUpdate": "tool_call_update", "toolCallId": "c", "locations": [{"path": "/a"}]}
    s.apply(update)
    assert s.snapshot()["toolCalls"]["c"]["locations"] == [{"path": "/a"}]


def test_repair_planning_is_driven_by_the_table_alone() -> None:
    table = ToleranceTable(
        root="U",
        classes={
            "A": {"items": FieldRule(skip_invalid_items=True, type="B")},
            "B": {"note": FieldRule(default_on_error=True), "must": FieldRule(required=True)},
        },
        unions={"U": {"a": "A"}},
    )
    skip = plan_repair(table, ("a", "items", 2, "must"))
    assert skip is not None and skip.path == ("items", 2)
    inner = plan_repair(table, ("a", "items", 0, "note"))  # the innermost mark wins
    assert inner is not None and inner.path == ("items", 0, "note")
    assert plan_repair(table, ("b", "items", 0)) is None  # unknown tag
    assert plan_repair(table, ("a", "other")) is None  # unmarked field


def client_flow(canonical: GeneratedPackage, strict: bool) -> dict[str, Any]:
    """A raw agent sends a turn with one half-bad update; returns the client's snapshot."""

    async def scenario() -> dict[str, Any]:
        client = canonical.module.Client()
        client.strict = strict
        connection, agent = await connected(client.dispatcher)

        async def serve() -> None:
            init = await agent.recv()
            await agent.send(
                {
                    "jsonrpc": "2.0",
                    "id": init["id"],
                    "result": {
                        "protocolVersion": 2,
                        "info": {"name": "a", "version": "1"},
                        "capabilities": {"session": {}},
                    },
                }
            )
            new = await agent.recv()
            await agent.send({"jsonrpc": "2.0", "id": new["id"], "result": {"sessionId": "s"}})
            prompt = await agent.recv()
            await agent.send({"jsonrpc": "2.0", "id": prompt["id"], "result": {}})
            for update in (
                {"sessionUpdate": "agent_message", "messageId": "m", "content": [TEXT, BAD_IMAGE]},
                {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"},
            ):
                await agent.send(
                    {
                        "jsonrpc": "2.0",
                        "method": "session/update",
                        "params": {"sessionId": "s", "update": update},
                    }
                )

        server = asyncio.create_task(serve())
        await client.lifecycle.initialize()
        session = await client.lifecycle.new_session(cwd="/tmp")
        assert await session.run_turn([TEXT]) == "end_turn"
        await server
        snapshot: dict[str, Any] = session.snapshot()
        await connection.close()
        return snapshot

    return run(scenario())


def test_a_client_keeps_the_good_blocks_of_a_half_bad_message(canonical: GeneratedPackage) -> None:
    assert client_flow(canonical, strict=False)["messages"][0]["content"] == [TEXT]


def test_a_strict_client_drops_the_whole_bad_message(canonical: GeneratedPackage) -> None:
    assert client_flow(canonical, strict=True)["messages"] == []


def _marks(node: Any, path: tuple[Any, ...] = ()) -> dict[tuple[Any, ...], dict[str, Any]]:
    found: dict[tuple[Any, ...], dict[str, Any]] = {}
    if isinstance(node, dict):
        marks = {k: node[k] for k in KEYWORDS if k in node}
        if marks:
            found[path] = marks
        for key, value in node.items():
            found.update(_marks(value, (*path, key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found.update(_marks(value, (*path, index)))
    return found


def test_the_schema_marks_the_same_places_as_upstream() -> None:
    upstream_path = UPSTREAM / "sdk-2.4.0" / "schema.json"  # the release ours follows
    if not upstream_path.is_file():
        pytest.skip(f"upstream reference schema not found at {upstream_path}")
    upstream = json.loads(upstream_path.read_text(encoding="utf-8"))
    ours = json.loads((REPO / "schema" / "acp.schema.json").read_text(encoding="utf-8"))
    # What upstream added after 2.4.0 is marked as 2.4.0's unstable file marks it where that file
    # has it; a definition it lacks carries the mark where upstream puts it on every
    # definition, on `_meta`.
    unstable = json.loads(upstream_path.with_name("schema.unstable.json").read_text("utf-8"))
    added = ours["$defs"].keys() - upstream["$defs"]
    later = {name: unstable["$defs"][name] for name in added if name in unstable["$defs"]}
    expected = {**upstream["$defs"], **later}
    marked = _marks(ours["$defs"], ("$defs",))
    newest = {path: marks for path, marks in marked.items() if path[1] in added - later.keys()}
    assert all(path[-1] == "_meta" for path in newest), newest
    shared = {path: marks for path, marks in marked.items() if path not in newest}
    assert shared == _marks(expected, ("$defs",))


def test_valid_updates_never_reach_the_repair_step(
    canonical: GeneratedPackage, monkeypatch: pytest.MonkeyPatch
) -> None:
    tolerant = canonical.submodule("_runtime.wire.tolerant")

    def fail(*args: Any) -> None:
        raise AssertionError("repair ran for a valid update")

    monkeypatch.setattr(tolerant, "repair_update", fail)
    s = state(canonical)
    s.apply({"sessionUpdate": "agent_message", "messageId": "m", "content": [TEXT]})
    s.apply({"sessionUpdate": "tool_call_update", "toolCallId": "c", "kind": "read"})
    assert s.snapshot()["toolCalls"]["c"]["kind"] == "read"
