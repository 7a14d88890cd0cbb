"""Helpers take generated models wherever they take dicts, and send them in wire form:
fields a model never set are absent, an explicit None is null, names are wire names."""

from __future__ import annotations

import json
from typing import Any

from acp_codegen.runtime.agent.agent_session import AgentSession, Prompt
from acp_codegen.runtime.wire.jsonvalue import to_json
from conftest import GeneratedPackage

from .agent_harness import agent_with_session
from .streams import run


def test_to_json_dumps_models_inside_plain_data(canonical: GeneratedPackage) -> None:
    models = canonical.models
    entry = models.PlanEntry(content="Read", priority="high", status="pending")
    location = models.ToolCallLocation(path="/a", line=None)
    data = to_json({"entries": [entry], "where": (location,), "n": 1})
    assert data == {
        "entries": [{"content": "Read", "priority": "high", "status": "pending"}],
        "where": [{"path": "/a", "line": None}],  # null stays null, MISSING is absent
        "n": 1,
    }
    json.dumps(data)  # no sentinel, no model left


def test_to_json_returns_plain_json_unchanged() -> None:
    plain: dict[str, Any] = {"a": [1, {"b": None}], "c": "d"}
    assert to_json(plain) is plain


def test_every_helper_accepts_models(canonical: GeneratedPackage) -> None:
    models = canonical.models

    async def handler(session: AgentSession, prompt: Prompt) -> str:
        await session.update_plan(
            [models.PlanEntry(content="Read", priority="high", status="pending")], plan_id="p1"
        )
        await session.agent_message("m1").append(models.TextContent(text="Hi"))
        call = await session.start_tool_call("Look", tool_call_id="c1")
        await call.update(locations=[models.ToolCallLocation(path="/a")], rawInput=None)
        await call.append_content(
            models.Content(type="content", content=models.TextContent(text="x"))
        )
        await session.request_permission(
            "Go?", [models.PermissionOption(option_id="ok", name="OK", kind="allow_once")]
        )
        return "end_turn"

    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(handler)
        await client.prompt(session_id)
        _user, _running, plan, chunk, start, patch, item, _blocked = await client.updates(8)
        assert plan["plan"]["entries"] == [
            {"content": "Read", "priority": "high", "status": "pending"}
        ]
        assert chunk["content"] == {"type": "text", "text": "Hi"}
        assert start == {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "title": "Look"}
        assert patch["locations"] == [{"path": "/a"}]
        assert patch["rawInput"] is None and "rawOutput" not in patch
        assert item["content"] == {"type": "content", "content": {"type": "text", "text": "x"}}
        ask = await client.peer.recv()
        assert ask["params"]["options"] == [{"optionId": "ok", "name": "OK", "kind": "allow_once"}]
        await connection.close()

    run(scenario())
