"""The agent's turns run on the core's machine: the `Turn` a session holds is the core's
`TurnState`, and its phase follows what the wire says (running, requires_action, idle)."""

from __future__ import annotations

import asyncio
from typing import Any

from acp_codegen.runtime.agent.agent_session import AgentSession, Prompt, Turn
from acp_codegen.runtime.core.turn_state import Phase, TurnState

from .agent_harness import OPTIONS, REQUIRES_ACTION, RUNNING, Client, agent, idle
from .streams import run


def phase(turn: TurnState) -> Phase:
    """The turn's phase now (read afresh: a type checker would keep an earlier reading)."""
    return turn.phase


def test_a_turn_s_phase_follows_its_permission_request_and_its_end() -> None:
    phases: list[Phase] = []
    turns: list[Turn] = []

    async def handler(session: AgentSession, prompt: Prompt) -> str | None:
        turn = session.turn
        assert isinstance(turn, TurnState)
        turns.append(turn)
        phases.append(turn.phase)
        await session.request_permission("Go?", OPTIONS)
        phases.append(turn.phase)
        return None

    async def scenario() -> None:
        _, peer, side = await agent(handler)
        client = Client(peer)
        session_id = await client.setup()
        await client.prompt(session_id)
        assert (await client.updates(2))[1] == RUNNING  # after the user_message echo
        assert await client.updates(1) == [REQUIRES_ACTION]
        asking = await peer.recv()
        assert asking["method"] == "session/request_permission"
        assert phase(turns[0]) is Phase.REQUIRES_ACTION  # while the client has not answered
        outcome = {"outcome": {"outcome": "selected", "optionId": "yes"}}
        await peer.send({"jsonrpc": "2.0", "id": asking["id"], "result": outcome})
        assert await client.updates(2) == [RUNNING, idle("end_turn")]
        assert phases == [Phase.RUNNING, Phase.RUNNING]
        assert phase(turns[0]) is Phase.ENDED
        assert side.sessions[session_id].turn is None  # idle: the next prompt starts a turn

    run(scenario())


def test_a_duplicate_cancel_changes_nothing_and_a_late_one_is_ignored() -> None:
    cancelled = asyncio.Event()
    turns: list[Turn] = []

    async def handler(session: AgentSession, prompt: Prompt) -> str | None:
        assert session.turn is not None
        turns.append(session.turn)
        if len(turns) == 1:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.set()
                raise
        return None

    async def scenario() -> None:
        _, peer, _ = await agent(handler)
        client = Client(peer)
        session_id = await client.setup()
        await client.prompt(session_id)
        await client.updates(2)  # user_message, running
        for _ in range(2):
            await client.notify("session/cancel", {"sessionId": session_id})
        await cancelled.wait()
        assert await client.updates(1) == [idle("cancelled")]
        assert phase(turns[0]) is Phase.ENDED and turns[0].cancel_sent
        await client.notify("session/cancel", {"sessionId": session_id})  # late: no turn
        await client.prompt(session_id)
        updates: list[dict[str, Any]] = await client.updates(3)
        assert updates[0]["sessionUpdate"] == "user_message"
        assert updates[1:] == [RUNNING, idle("end_turn")]  # the late cancel touched nothing
        assert not turns[1].cancel_requested

    run(scenario())
