"""The generated `Client` (the committed bindings, which carry v1) driving a real v1 agent
through one turn."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_codegen._bindings import Client, ClientSession, PermissionRequest, models

HANG_GUARD = 120.0  # a hang guard, never a statement about speed


@dataclass
class Turn:
    version: int | None
    agent_info: Any
    stop: str | None
    snapshot: dict[str, Any]
    asked: list[dict[str, Any]]  # the permission requests' params (v2-shaped)
    exit_code: int


class TurnClient(Client):
    """Answers each permission request with its first allow (or reject) option, or cancels the
    turn instead (`cancel`); keeps the requests it was asked."""

    info = models.Implementation(name="v1-interop-client", version="0")

    def __init__(self, *, approve: bool, cancel: bool) -> None:
        self.approve, self.cancel = approve, cancel
        self.asked: list[dict[str, Any]] = []

    async def on_permission(self, session: ClientSession[Any], request: PermissionRequest) -> Any:
        self.asked.append(request.params)
        assert session.state.state == "requires_action"
        if self.cancel:
            await session.cancel()  # answers this request cancelled
            return {"outcome": "cancelled"}
        kinds = ("allow_once", "allow_always") if self.approve else ("reject_once", "reject_always")
        option = next(o for o in request.params["options"] if o["kind"] in kinds)
        return {"outcome": "selected", "optionId": option["optionId"]}


def drive(
    argv: list[str],
    cwd: Path,
    *,
    text: str = "stream these words back",
    approve: bool = True,
    cancel_on_permission: bool = False,
    env: Mapping[str, str] | None = None,
) -> Turn:
    """One turn; a permission request is approved (first allow option), rejected, or answered
    by cancelling the turn (`cancel_on_permission`)."""

    async def scenario() -> Turn:
        client = TurnClient(approve=approve, cancel=cancel_on_permission)
        process = await client.spawn(argv, env=None if env is None else {**os.environ, **env})
        try:
            await client.lifecycle.initialize()
            session = await client.lifecycle.new_session(cwd=str(cwd))
            stop = await session.run_turn([{"type": "text", "text": text}])
            snapshot = dict(session.snapshot())
        finally:
            exit_code = await process.close()
        side = client.lifecycle
        return Turn(side.protocol_version, side.agent_info, stop, snapshot, client.asked, exit_code)

    return asyncio.run(asyncio.wait_for(scenario(), HANG_GUARD))


def message_texts(snapshot: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each message as (role, its text)."""
    return [
        (m["role"], "".join(b.get("text", "") for b in m["content"])) for m in snapshot["messages"]
    ]
