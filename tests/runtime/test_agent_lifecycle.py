"""Lifecycle defects found on the wire (issue 7, part 2): each test failed before its fix."""

from __future__ import annotations

import asyncio
import contextvars
import logging
from typing import Any

import pytest
from acp_codegen.runtime.agent.agent_session import CURRENT_TURN, AgentSession, Prompt, Turn

from .agent_harness import (
    OPTIONS,
    REQUIRES_ACTION,
    RUNNING,
    TEXT,
    Client,
    agent,
    agent_with_session,
    end_turn,
    idle,
    receipt,
)
from .streams import run


def tag(update: dict[str, Any]) -> Any:
    return update["sessionUpdate"] if update["sessionUpdate"] != "state_update" else update


def test_a_prompt_accepted_while_the_turn_is_being_cancelled_gets_its_own_turn() -> None:
    release = asyncio.Event()
    seen: list[str] = []

    async def handler(session: AgentSession, prompt: Prompt) -> str | None:
        seen.append(prompt.content[0]["text"])
        if len(seen) == 1:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                await release.wait()  # still winding down when the next prompt arrives
                raise
        return None

    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(handler)
        await client.prompt(session_id)
        await client.updates(2)  # user_message, running
        await client.notify("session/cancel", {"sessionId": session_id})
        second = [{"type": "text", "text": "again"}]
        reply = await client.prompt(session_id, second)
        receipt(reply["result"])
        release.set()
        updates = await client.updates(4)
        assert updates[0] == idle("cancelled")
        assert updates[1]["sessionUpdate"] == "user_message"
        assert updates[1]["content"] == second
        assert updates[2:] == [RUNNING, idle("end_turn")]
        assert seen == ["hi", "again"]
        await connection.close()

    run(scenario())


def test_a_background_permission_request_after_idle_reports_no_state() -> None:
    go = asyncio.Event()
    outcomes: list[Any] = []

    async def handler(session: AgentSession, prompt: Prompt) -> None:
        async def later() -> None:
            await go.wait()
            outcomes.append(await session.request_permission("Later?", OPTIONS))

        asyncio.get_running_loop().create_task(later())

    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(handler)
        await client.prompt(session_id)
        assert (await client.updates(3))[2] == idle("end_turn")
        go.set()
        ask = await client.peer.recv()  # no requires_action first: there is no foreground work
        assert ask["method"] == "session/request_permission"
        answer = {"outcome": {"outcome": "selected", "optionId": "yes"}}
        await client.peer.send({"jsonrpc": "2.0", "id": ask["id"], "result": answer})
        # No running update came before the answer to this:
        reply = await client.call("session/new", {"cwd": "/tmp"})
        assert "result" in reply
        assert outcomes == [answer["outcome"]]
        await connection.close()

    run(scenario())


def test_a_permission_request_the_handler_gives_up_on_reports_running_again() -> None:
    give_up = asyncio.Event()

    async def handler(session: AgentSession, prompt: Prompt) -> str:
        asking = asyncio.ensure_future(session.request_permission("Wait?", OPTIONS))
        await give_up.wait()
        asking.cancel()  # as asyncio.wait_for does on a timeout
        await asyncio.gather(asking, return_exceptions=True)
        return "end_turn"

    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(handler)
        await client.prompt(session_id)
        assert (await client.updates(3))[2] == REQUIRES_ACTION
        ask = await client.peer.recv()
        give_up.set()
        withdrawn = await client.peer.recv()
        assert withdrawn["method"] == "$/cancel_request"
        assert withdrawn["params"] == {"requestId": ask["id"]}
        assert await client.updates(2) == [RUNNING, idle("end_turn")]
        await connection.close()

    run(scenario())


class SlowPeer:
    """Records notifications; the first requires_action update blocks (a slow reader)."""

    def __init__(self) -> None:
        self.sent: list[Any] = []
        self.blocked = asyncio.Event()
        self.slow = True

    async def notify(self, method: str, params: Any = None) -> None:
        self.sent.append(params["update"])
        if self.slow and params["update"] == REQUIRES_ACTION:
            self.slow = False
            self.blocked.set()
            await asyncio.Event().wait()

    async def request(self, method: str, params: Any = None) -> Any:
        return {"outcome": {"outcome": "selected", "optionId": "yes"}}


def test_cancel_while_requires_action_is_being_written_does_not_leak_the_open_count() -> None:
    async def in_turn(session: AgentSession, turn: Turn) -> asyncio.Task[Any]:
        session.turn = turn
        context = contextvars.copy_context()
        context.run(CURRENT_TURN.set, turn)
        return asyncio.get_running_loop().create_task(
            session.request_permission("Go?", OPTIONS), context=context
        )

    async def scenario() -> None:
        peer = SlowPeer()
        session = AgentSession("s", peer, {}, {})
        first = Turn()
        asking = await in_turn(session, first)
        await peer.blocked.wait()
        first.cancel_requested = True
        asking.cancel()
        await asyncio.gather(asking, return_exceptions=True)
        assert first.blocked == 0
        first.finished = True
        peer.sent.clear()
        second = await in_turn(session, Turn())
        await second
        assert peer.sent == [REQUIRES_ACTION, RUNNING]  # later work still reports both

    run(scenario())


def test_a_batch_answers_its_prompts_before_any_turn_speaks_and_echoes_precede_idle() -> None:
    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(end_turn)
        prompt = {"sessionId": session_id, "prompt": TEXT}
        await client.peer.send(
            [
                {"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": prompt},
                {"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": prompt},
            ]
        )
        reply = await client.peer.recv()
        assert [answer["id"] for answer in reply] == [1, 2]
        inserted = [receipt(answer["result"]) for answer in reply]
        updates = await client.updates(4)
        assert [tag(u) for u in updates] == [
            "user_message",
            "user_message",
            RUNNING,
            idle("end_turn"),
        ]
        # each answer names the user message its prompt became, in order
        assert [u["messageId"] for u in updates[:2]] == inserted
        await connection.close()

    run(scenario())


def test_a_queued_prompt_is_echoed_after_its_answer_and_before_the_turn_ends() -> None:
    proceed = asyncio.Event()

    async def handler(session: AgentSession, prompt: Prompt) -> None:
        if prompt.content == TEXT:
            await proceed.wait()

    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(handler)
        await client.prompt(session_id)
        await client.updates(2)
        second = [{"type": "text", "text": "more"}]
        reply = await client.prompt(session_id, second)
        receipt(reply["result"])
        proceed.set()
        echo, last = await client.updates(2)
        assert echo["sessionUpdate"] == "user_message" and echo["content"] == second
        assert last == idle("end_turn")
        await connection.close()

    run(scenario())


def test_the_late_cancelled_answer_to_a_withdrawn_permission_request_is_accepted_quietly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def handler(session: AgentSession, prompt: Prompt) -> None:
        await session.request_permission("Go?", OPTIONS)

    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(handler)
        await client.prompt(session_id)
        await client.updates(3)
        ask = await client.peer.recv()
        await client.notify("session/cancel", {"sessionId": session_id})
        assert (await client.peer.recv())["method"] == "$/cancel_request"
        assert await client.updates(1) == [idle("cancelled")]
        cancelled = {"outcome": {"outcome": "cancelled"}}
        await client.peer.send({"jsonrpc": "2.0", "id": ask["id"], "result": cancelled})
        # Handled after the late answer:
        assert "result" in await client.call("session/new", {"cwd": "/tmp"})
        await connection.close()

    with caplog.at_level(logging.DEBUG):
        run(scenario())
    assert "unknown request id" not in caplog.text


def test_a_non_json_line_is_reported_as_such(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> None:
        connection, peer, _ = await agent(end_turn)
        await peer.send_bytes(b"Starting agent v1...\n")
        reply = await peer.recv()
        assert reply["id"] is None and reply["error"]["code"] == -32700
        await peer.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "x"}})
        assert "result" in await Client(peer).call("initialize", {"protocolVersion": 2})
        await connection.close()

    run(scenario())
    assert "not JSON" in caplog.text and "Starting agent v1..." in caplog.text
    assert "error without a request id" in caplog.text
    assert "unknown request id" not in caplog.text


def test_a_cancelled_error_escaping_the_handler_is_no_cancellation_of_the_turn(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def handler(session: AgentSession, prompt: Prompt) -> None:
        helper = asyncio.ensure_future(asyncio.Event().wait())
        helper.cancel()
        await helper  # its CancelledError escapes: the turn itself was never cancelled

    async def scenario() -> None:
        connection, client, session_id = await agent_with_session(handler)
        await client.prompt(session_id)
        assert (await client.updates(3))[2] == idle("_internal_error")
        await connection.close()

    run(scenario())
    assert "raised CancelledError" in caplog.text
