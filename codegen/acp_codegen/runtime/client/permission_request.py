"""A permission the agent asks for (`session/request_permission`), waiting for the client's
answer: the client's handler, or the author's code, selects an option or cancels."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

from ..rpc.task_owner import TaskOwner
from ..wire.errors import ErrorCode, RpcError
from ..wire.jsonvalue import JsonObject, JsonValue, as_object
from ..wire.protocol import OUTCOME_CANCELLED, OUTCOME_SELECTED

Session = TypeVar("Session")


def asked_on(sessions: Mapping[str, Session], params: JsonValue) -> tuple[Session, JsonObject]:
    """The session a permission request names, and its params; -32002 when there is none."""
    session_id = params.get("sessionId") if isinstance(params, dict) else None
    session = sessions.get(session_id) if isinstance(session_id, str) else None
    if session is None or not isinstance(params, dict):
        raise RpcError(ErrorCode.RESOURCE_NOT_FOUND, "Unknown session", {"sessionId": session_id})
    return session, params


class PermissionRequest:
    """One pending `session/request_permission` from the agent."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params
        self._answer: asyncio.Future[JsonObject] = asyncio.get_running_loop().create_future()

    @property
    def answered(self) -> bool:
        return self._answer.done()

    def respond(self, outcome: Mapping[str, object] | BaseModel) -> None:
        """Answer with an outcome object; later answers are ignored."""
        if not self._answer.done():
            self._answer.set_result(as_object(outcome))

    def select(self, option_id: str) -> None:
        self.respond({"outcome": OUTCOME_SELECTED, "optionId": option_id})

    def cancel(self) -> None:
        self.respond({"outcome": OUTCOME_CANCELLED})


logger = logging.getLogger(__name__)


async def wait_for_answer(
    params: dict[str, Any],
    pending: list[PermissionRequest],
    hook: Callable[[PermissionRequest], Awaitable[Mapping[str, object] | BaseModel]] | None,
) -> JsonObject:
    """The client's answer to a permission request: kept in `pending` (the session's) until
    answered, by `hook` when given (a failing hook answers with an internal error) or by the
    application through the request; the result of `session/request_permission`. The hook
    runs in a task of this wait's own: answered otherwise (or the wait cancelled), the hook
    is cancelled and waited for before this returns."""
    request = PermissionRequest(params)
    pending.append(request)
    try:
        async with TaskOwner("a permission request") as asking:
            if hook is not None:
                asking.spawn(_ask(request, hook), name="acp permission hook")
            outcome = await request._answer
    finally:
        pending.remove(request)
    return {"outcome": outcome}


async def _ask(
    request: PermissionRequest,
    hook: Callable[[PermissionRequest], Awaitable[Mapping[str, object] | BaseModel]],
) -> None:
    try:
        request.respond(await hook(request))
    except Exception as error:
        logger.exception("permission handler failed; answering with an internal error")
        if not request.answered:
            request._answer.set_exception(
                RpcError.internal_error(f"permission handler failed: {error}")
            )
