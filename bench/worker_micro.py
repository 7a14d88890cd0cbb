"""The measures of one runtime piece alone (`merge`, `outgoing`), for `worker.py`: each returns
its values for one sample in the fresh process `worker.py` started."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import stream
from worker import Sink, inner, timed_async


def merge_growth() -> dict[str, float]:
    from acp_bindings import MERGE_RULES, UPDATE_TAG
    from acp_bindings._runtime.state.session_state import SessionState

    def seconds(n: int) -> float:
        updates = [
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "m",
                "content": {"type": "text", "text": "t "},
            }
            for _ in range(n)
        ]

        def run() -> float:
            state: SessionState[Any] = SessionState(MERGE_RULES, UPDATE_TAG)
            start = time.perf_counter()
            for update in updates:
                state.apply(update)
            return time.perf_counter() - start

        return inner(run)

    small, large = seconds(10_000), seconds(100_000)
    return {"merge_10k": small, "merge_100k": large, "merge_ratio": large / small}


def outgoing_validation() -> dict[str, float]:
    """The runtime's check of an outgoing `session/update` (what `AgentSession` runs before it
    writes one), against sending it."""
    from acp_bindings._runtime.rpc.connection import Connection
    from acp_bindings._runtime.rpc.outgoing_checks import OutgoingChecks
    from acp_bindings.methods import AGENT_SPECS, CLIENT_SPECS

    updates = [json.loads(line)["params"]["update"] for line in stream.ours(20_000)]
    messages = [{"sessionId": stream.SESSION, "update": update} for update in updates]
    # The agent's checks: it sends the client's methods and answers its own.
    checks = OutgoingChecks(sent=CLIENT_SPECS, answered=AGENT_SPECS)

    def run_validate() -> float:
        check = checks.notification
        start = time.perf_counter()
        for params in messages:
            check("session/update", params)
        return (time.perf_counter() - start) / len(messages)

    async def send() -> float:
        connection = Connection(asyncio.StreamReader(), Sink())
        start = time.perf_counter()
        for params in messages:
            await connection.notify("session/update", params)
        return (time.perf_counter() - start) / len(messages)

    validating, sending = inner(run_validate), timed_async(send)
    return {"validate": validating, "send": sending, "validate_share": validating / sending}
