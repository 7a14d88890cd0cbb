"""Conformance of `examples/demo_agent.py`, driven as an independent client would drive it:
capability advertising, the session surface, prompts and cancels in every state, batches."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from acp_codegen.runtime.state.session_state import SessionState

from .wire import RawAgent, is_idle, is_state, prompt, receipt, run

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "generated"))

from acp_bindings.merge_rules import MERGE_RULES, UPDATE_TAG

ALLOW = {"outcome": {"outcome": "selected", "optionId": "allow"}}
CANCELLED = {"outcome": {"outcome": "cancelled"}}


def folded(updates: list[dict[str, Any]]) -> dict[str, Any]:
    state: SessionState[dict[str, Any]] = SessionState(MERGE_RULES, UPDATE_TAG)
    for update in updates:
        state.apply(update)
    return state.snapshot()


async def until_permission(agent: RawAgent) -> dict[str, Any]:
    """From an accepted prompt to the agent's permission request (requires_action first)."""
    updates = await agent.updates_until(is_state("requires_action"))
    assert updates[0]["sessionUpdate"] == "user_message"
    assert updates[1] == {"sessionUpdate": "state_update", "state": "running"}
    ask: dict[str, Any] = await agent.recv()
    assert ask["method"] == "session/request_permission"
    return ask


def test_initialize_advertises_exactly_the_served_surface() -> None:
    async def scenario() -> None:
        agent = await RawAgent.start()
        result = await agent.initialize()
        assert result["protocolVersion"] == 2
        assert isinstance(result["capabilities"]["session"], dict)  # the baseline is served
        assert "delete" not in result["capabilities"]["session"]
        reply = await agent.call("session/delete", {"sessionId": "x"})
        assert reply["error"]["code"] == -32601
        for method in ("session/list", "session/close", "session/resume"):
            reply = await agent.call(method, {"sessionId": "nope", "cwd": "/tmp"})
            assert reply.get("error", {}).get("code") != -32601, (method, reply)
        assert await agent.close() == 0

    run(scenario())


def test_nothing_before_initialize_and_a_non_json_line_is_a_parse_error() -> None:
    async def scenario() -> None:
        agent = await RawAgent.start()
        assert (await agent.call("session/new", {"cwd": "/tmp"}))["error"]["code"] == -32600
        await agent.send_line(b"hello?")
        reply = await agent.recv()
        assert reply["id"] is None and reply["error"]["code"] == -32700
        await agent.close()

    run(scenario())


def test_session_list_close_and_resume() -> None:
    async def scenario() -> None:
        agent = await RawAgent.start()
        await agent.initialize()
        here, there = await agent.new_session("/here"), await agent.new_session("/there")
        listed = (await agent.call("session/list", {"cwd": "/here"}))["result"]
        assert [info["sessionId"] for info in listed["sessions"]] == [here]
        everything = (await agent.call("session/list", {}))["result"]["sessions"]
        assert {info["sessionId"] for info in everything} == {here, there}
        assert (await agent.call("session/close", {"sessionId": there}))["result"] == {}
        reply = await agent.call("session/prompt", prompt(there))
        assert reply["error"]["code"] == -32002
        resumed = await agent.call("session/resume", {"sessionId": there, "cwd": "/there"})
        assert resumed["result"] == {}
        receipt((await agent.call("session/prompt", prompt(there)))["result"])
        await until_permission(agent)
        unknown = await agent.call("session/resume", {"sessionId": "nope", "cwd": "/"})
        assert unknown["error"]["code"] == -32002
        await agent.close()

    run(scenario())


def test_a_whole_turn_and_resume_with_replay() -> None:
    async def scenario() -> None:
        agent = await RawAgent.start()
        await agent.initialize()
        session_id = await agent.new_session()
        receipt((await agent.call("session/prompt", prompt(session_id)))["result"])
        asking = await agent.updates_until(is_state("requires_action"))
        ask = await agent.recv()
        assert ask["method"] == "session/request_permission"
        await agent.send({"jsonrpc": "2.0", "id": ask["id"], "result": ALLOW})
        updates = await agent.updates_until(is_idle)
        assert updates[0] == {"sessionUpdate": "state_update", "state": "running"}
        assert updates[-1]["stopReason"] == "end_turn"
        request = agent.request(
            "session/resume",
            {"sessionId": session_id, "cwd": "/tmp", "replayFrom": {"type": "start"}},
        )
        await agent.send(request)
        replayed = []
        while "id" not in (message := await agent.recv()):
            replayed.append(message["params"]["update"])
        assert message == {"jsonrpc": "2.0", "id": request["id"], "result": {}}
        tags = [update["sessionUpdate"] for update in replayed]
        assert tags[0] == "user_message" and "agent_message" in tags  # the streamed answer, whole
        assert "state_update" not in tags[:-1]  # only where the session stands now, last
        assert replayed[-1] == updates[-1]
        # The replay leaves the client where everything sent during the turn left it.
        assert folded(replayed) == folded([*asking, *updates])
        await agent.close()

    run(scenario())


def test_cancel_in_every_state() -> None:
    async def scenario() -> None:
        agent = await RawAgent.start()
        await agent.initialize()
        session_id = await agent.new_session()
        cancel = {"sessionId": session_id}
        # idle: nothing happens (the next line answers the next request)
        await agent.notify("session/cancel", cancel)
        await agent.notify("session/cancel", {"sessionId": "unknown"})
        assert "result" in await agent.call("session/list", {})
        # requires_action: the request is withdrawn, the work ends idle cancelled
        await agent.call("session/prompt", prompt(session_id))
        ask = await until_permission(agent)
        await agent.notify("session/cancel", cancel)
        withdrawn = await agent.recv()
        assert withdrawn == {
            "jsonrpc": "2.0",
            "method": "$/cancel_request",
            "params": {"requestId": ask["id"]},
        }
        updates = await agent.updates_until(is_idle)
        assert updates[-1]["stopReason"] == "cancelled"
        await agent.send({"jsonrpc": "2.0", "id": ask["id"], "result": CANCELLED})
        # before the work starts: a batch with the prompt and the cancel
        batch = [
            agent.request("session/prompt", prompt(session_id)),
            {"jsonrpc": "2.0", "method": "session/cancel", "params": cancel},
        ]
        await agent.send(batch)
        (answer,) = await agent.recv()
        assert answer["id"] == batch[0]["id"]
        inserted = receipt(answer["result"])
        updates = await agent.updates_until(is_idle)
        assert [u["sessionUpdate"] for u in updates] == ["user_message", "state_update"]
        assert updates[0]["messageId"] == inserted  # the receipt names the reported message
        assert updates[-1]["stopReason"] == "cancelled"
        # after cancelling, the session takes prompts again
        receipt((await agent.call("session/prompt", prompt(session_id)))["result"])
        await until_permission(agent)
        await agent.close()

    run(scenario())


def test_prompts_in_every_state() -> None:
    async def scenario() -> None:
        agent = await RawAgent.start()
        await agent.initialize()
        session_id = await agent.new_session()
        assert (await agent.call("session/prompt", prompt("nope")))["error"]["code"] == -32002
        image = {"type": "image", "data": "AA==", "mimeType": "image/png"}
        refused = await agent.call("session/prompt", {"sessionId": session_id, "prompt": [image]})
        assert refused["error"]["code"] == -32602  # not in the prompt capabilities
        # idle -> accepted at once
        receipt((await agent.call("session/prompt", prompt(session_id, "one")))["result"])
        ask = await until_permission(agent)
        # requires_action -> accepted at once and echoed, handled in the same work
        receipt((await agent.call("session/prompt", prompt(session_id, "two")))["result"])
        echo = await agent.recv()
        assert echo["params"]["update"]["sessionUpdate"] == "user_message"
        assert echo["params"]["update"]["content"][0]["text"] == "two"
        await agent.send({"jsonrpc": "2.0", "id": ask["id"], "result": ALLOW})
        ask = await agent.recv()  # the second prompt's permission request, same work
        while ask.get("method") != "session/request_permission":
            update = ask["params"]["update"]
            assert not is_idle(update), "no idle between queued prompts"
            ask = await agent.recv()
        await agent.send({"jsonrpc": "2.0", "id": ask["id"], "result": ALLOW})
        updates = await agent.updates_until(is_idle)
        assert updates[-1]["stopReason"] == "end_turn"
        await agent.close()

    run(scenario())


def test_a_batch_is_answered_before_its_prompt_turn_speaks() -> None:
    async def scenario() -> None:
        agent = await RawAgent.start()
        await agent.initialize()
        session_id = await agent.new_session()
        batch = [
            agent.request("session/prompt", prompt(session_id)),
            agent.request("session/list", {}),
            {"jsonrpc": "2.0", "id": "bad"},
        ]
        await agent.send(batch)
        reply = await agent.recv()
        assert isinstance(reply, list) and len(reply) == 3
        by_id = {entry["id"]: entry for entry in reply}
        receipt(by_id[batch[0]["id"]]["result"])
        assert "sessions" in by_id[batch[1]["id"]]["result"]
        assert by_id["bad"]["error"]["code"] == -32600
        await until_permission(agent)
        await agent.close()

    run(scenario())
