"""Our client runtime (the committed bindings' `ClientSide`, given v1's tables from a package
generated from upstream's v1 schema) driving a real v1 agent through one turn."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from acp_codegen._bindings import MERGE_RULES, UPDATE_TAG
from acp_codegen._bindings._runtime.client_side import ClientSession, ClientSide, V1Tables
from acp_codegen._bindings._runtime.dispatch import Dispatcher, ValidatingDispatcher
from acp_codegen._bindings._runtime.permission_request import PermissionRequest
from acp_codegen._bindings._runtime.stdio import spawn_agent
from acp_codegen._bindings.methods import CLIENT_SPECS

HANG_GUARD = 120.0  # a hang guard, never a statement about speed
REPO = Path(__file__).resolve().parents[2]
V1_SCHEMA = REPO / "tests" / "fixtures" / "upstream" / "v1-2.4.0" / "schema.json"
INFO = {"name": "v1-interop-client", "version": "0"}


def v1_tables(v1: ModuleType) -> V1Tables:
    tolerance = v1.tolerance
    return V1Tables(
        v1.methods.AGENT_SPECS,
        v1.methods.CLIENT_SPECS,
        {**tolerance.params_repairs(), **tolerance.client_notification_repairs()},
        tolerance.client_request_repairs(),
    )


@dataclass
class Turn:
    version: int | None
    agent_info: Any
    stop: str | None
    snapshot: dict[str, Any]
    asked: list[dict[str, Any]]  # the permission requests' params (v2-shaped)
    exit_code: int


def drive(
    argv: list[str],
    v1: ModuleType,
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
        sides: list[ClientSide[Any]] = []
        asked: list[dict[str, Any]] = []

        async def on_permission(session: ClientSession[Any], request: PermissionRequest) -> Any:
            asked.append(request.params)
            assert session.state.state == "requires_action"
            if cancel_on_permission:
                await session.cancel()  # answers this request cancelled
                return {"outcome": "cancelled"}
            kinds = ("allow_once", "allow_always") if approve else ("reject_once", "reject_always")
            option = next(o for o in request.params["options"] if o["kind"] in kinds)
            return {"outcome": "selected", "optionId": option["optionId"]}

        def factory(connection: Any) -> Dispatcher:
            side = ClientSide[Any](
                connection,
                info=INFO,
                rules=MERGE_RULES,
                tag_field=UPDATE_TAG,
                v1=v1_tables(v1),
                on_permission=on_permission,
            )
            sides.append(side)
            return side.versioned(ValidatingDispatcher(CLIENT_SPECS, side))

        process = await spawn_agent(
            argv, factory, env=None if env is None else {**os.environ, **env}
        )
        try:
            (side,) = sides
            await side.initialize()
            session = await side.new_session(cwd=str(cwd))
            stop = await session.run_turn([{"type": "text", "text": text}])
            snapshot = dict(session.snapshot())
        finally:
            exit_code = await process.close()
        return Turn(side.protocol_version, side.agent_info, stop, snapshot, asked, exit_code)

    return asyncio.run(asyncio.wait_for(scenario(), HANG_GUARD))


def message_texts(snapshot: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each message as (role, its text)."""
    return [
        (m["role"], "".join(b.get("text", "") for b in m["content"])) for m in snapshot["messages"]
    ]
