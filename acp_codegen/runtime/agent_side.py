"""The agent's half of the v2 prompt lifecycle, as a `Dispatcher` working on wire JSON.

`AgentSide` answers `initialize`, `session/new`, `session/prompt` and `session/cancel`; every
other method goes to `fallback` (e.g. the generated `TableDispatcher`), else -32601.

A prompt turn, as the prompt-lifecycle page prescribes:

1. `session/prompt` is checked (initialized, known session, content allowed by the agent's
   prompt capabilities; otherwise a JSON-RPC error) and answered `{}` at once.
2. The agent reports `user_message` (with a messageId it generates), then `state_update`
   running, then awaits `on_prompt(session, prompt)`, the author's turn handler.
3. The handler's return value is the stop reason (None means `end_turn`); the turn ends with
   an idle `state_update` carrying it.

A prompt accepted while a turn is running is answered `{}` and reported as a `user_message`
too. The handler can collect such prompts with `session.take_prompts()`; those it has not taken
when it returns are handed to `on_prompt` one by one within the same foreground work (still
running, no idle in between). After a cancellation, prompts still queued are dropped.

`session/cancel` cancels the turn task. The runner catches the CancelledError (and any other
exception an aborted operation raises once cancellation was requested), so every update the
handler already sent stays before the final idle `cancelled`. If the handler raises on its own,
the error is logged to stderr and the turn ends idle with stop reason `_internal_error`.

Errors: -32600 before `initialize`, -32602 for malformed params or content the prompt
capabilities do not allow (with `loc`), -32002 for an unknown session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import Any

from .agent_session import AgentSession, Prompt, Turn, new_id
from .connection import Connection
from .dispatch import Dispatcher
from .errors import ConnectionClosed, ErrorCode, RpcError
from .jsonvalue import copy_json
from .protocol import (
    INITIALIZE,
    SESSION_CANCEL,
    SESSION_NEW,
    SESSION_PROMPT,
    STATE_IDLE,
    STATE_RUNNING,
    STOP_CANCELLED,
    STOP_END_TURN,
    STOP_INTERNAL_ERROR,
    SUPPORTED_PROTOCOL_VERSIONS,
    prompt_content_problems,
)

logger = logging.getLogger(__name__)

PromptHandler = Callable[[AgentSession, Prompt], Awaitable[str | None]]
SessionHook = Callable[[AgentSession], Awaitable[Mapping[str, Any] | None]]


def _invalid(loc: list[Any], message: str) -> RpcError:
    return RpcError.invalid_params([{"loc": loc, "msg": message, "type": "value_error"}])


class AgentSide:
    """Dispatcher for an agent's connection. `info` is the agent's `Implementation` object,
    `capabilities` its `AgentCapabilities` (prompt capabilities are read from it)."""

    def __init__(
        self,
        connection: Connection,
        *,
        info: Mapping[str, Any],
        on_prompt: PromptHandler,
        capabilities: Mapping[str, Any] | None = None,
        auth_methods: Sequence[Mapping[str, Any]] = (),
        protocol_versions: Sequence[int] = SUPPORTED_PROTOCOL_VERSIONS,
        on_new_session: SessionHook | None = None,
        fallback: Dispatcher | None = None,
        prompt_result: Callable[[Prompt], dict[str, Any]] = lambda prompt: {},
    ) -> None:
        if not protocol_versions:
            raise ValueError("an agent must support at least one protocol version")
        self.connection = connection
        self.info = dict(info)
        self.capabilities = dict(capabilities or {})
        self.auth_methods = [dict(method) for method in auth_methods]
        self.protocol_versions = tuple(protocol_versions)
        self._on_prompt = on_prompt
        self._on_new_session = on_new_session
        self._fallback = fallback
        # The `session/prompt` answer for an accepted prompt: `{}`, or what the schema requires
        # (e.g. `{"messageId": prompt.message_id}`, the id of the reported user_message).
        self._prompt_result = prompt_result
        self.initialized = False
        self.protocol_version: int | None = None
        self.client_capabilities: Any = None
        self.client_info: Any = None
        self.sessions: dict[str, AgentSession] = {}
        self._background: set[asyncio.Task[Any]] = set()

    # -- Dispatcher -----------------------------------------------------------------------------

    async def handle_request(self, method: str, params: Any) -> Any:
        if method == INITIALIZE:
            return self._initialize(params)
        if method == SESSION_NEW:
            return await self._new_session(params)
        if method == SESSION_PROMPT:
            return self._prompt(params)
        if self._fallback is not None:
            return await self._fallback.handle_request(method, params)
        raise RpcError.method_not_found(method)

    async def handle_notification(self, method: str, params: Any) -> None:
        if method == SESSION_CANCEL:
            self._cancel(params)
        elif self._fallback is not None:
            await self._fallback.handle_notification(method, params)

    # -- sessions -------------------------------------------------------------------------------

    def open_session(
        self, session_id: str | None = None, setup: Mapping[str, Any] | None = None
    ) -> AgentSession:
        """Register a session (session/new does this; call it from a session/resume handler)."""
        session_id = session_id or new_id("sess")
        session = AgentSession(session_id, self.connection, setup or {}, self.client_capabilities)
        self.sessions[session_id] = session
        return session

    async def aclose(self) -> None:
        """Cancel every running turn and wait for the runners to finish."""
        for session in self.sessions.values():
            if session.turn is not None and session.turn.task is not None:
                session.turn.task.cancel()
        await asyncio.gather(*list(self._background), return_exceptions=True)

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    def _require_initialized(self) -> None:
        if not self.initialized:
            raise RpcError.invalid_request("initialize must come first")

    def _session_of(self, params: Any) -> AgentSession:
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        if not isinstance(session_id, str):
            raise _invalid(["sessionId"], "sessionId must be a string")
        session = self.sessions.get(session_id)
        if session is None:
            raise RpcError(
                ErrorCode.RESOURCE_NOT_FOUND, "Unknown session", {"sessionId": session_id}
            )
        return session

    def _initialize(self, params: Any) -> dict[str, Any]:
        requested = params.get("protocolVersion") if isinstance(params, dict) else None
        if not isinstance(requested, int) or isinstance(requested, bool) or requested < 0:
            raise _invalid(["protocolVersion"], "protocolVersion must be a non-negative integer")
        assert isinstance(params, dict)
        # Echo a version we support; otherwise answer our newest and let the client decide.
        version = requested if requested in self.protocol_versions else max(self.protocol_versions)
        self.protocol_version = version
        self.client_capabilities = params.get("capabilities") or {}
        self.client_info = params.get("info")
        self.initialized = True
        result: dict[str, Any] = {
            "protocolVersion": version,
            "info": self.info,
            "capabilities": self.capabilities,
        }
        if self.auth_methods:
            result["authMethods"] = self.auth_methods
        return result

    async def _new_session(self, params: Any) -> dict[str, Any]:
        self._require_initialized()
        if not isinstance(params, dict):
            raise _invalid([], "params must be an object")
        session = self.open_session(setup=params)
        try:
            extra = await self._on_new_session(session) if self._on_new_session else None
        except BaseException:
            del self.sessions[session.session_id]
            raise
        return {**(extra or {}), "sessionId": session.session_id}

    # -- prompt turns ---------------------------------------------------------------------------

    def _prompt(self, params: Any) -> dict[str, Any]:
        """Accept a prompt. Synchronous on purpose: the turn is registered before any other
        message is handled, and the `{}` answer is written before the turn's first update."""
        self._require_initialized()
        session = self._session_of(params)
        content = params.get("prompt")
        problems = prompt_content_problems(content, self.capabilities)
        if problems:
            raise RpcError.invalid_params(problems)
        prompt = Prompt(message_id=new_id("msg_user"), content=copy_json(content))
        if session.turn is None:
            session.turn = Turn()
            session.turn.task = self._spawn(self._run_turn(session, session.turn, prompt))
        else:
            session.turn.queued.append(prompt)
            self._spawn(self._report_quietly(session, prompt))
        return self._prompt_result(prompt)

    async def _report_quietly(self, session: AgentSession, prompt: Prompt) -> None:
        with contextlib.suppress(ConnectionClosed):
            await session.report_user_message(prompt)

    def _cancel(self, params: Any) -> None:
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        session = self.sessions.get(session_id) if isinstance(session_id, str) else None
        turn = session.turn if session is not None else None
        if turn is None or turn.cancel_requested:
            return
        turn.cancel_requested = True
        if turn.started and turn.task is not None and not turn.task.done():
            turn.cancel_sent = True
            turn.task.cancel()
        # A turn that has not started yet sees cancel_requested and ends right away.

    async def _run_turn(self, session: AgentSession, turn: Turn, first: Prompt) -> None:
        turn.started = True
        stop_reason = STOP_END_TURN
        try:
            await session.report_user_message(first)
            if turn.cancel_requested:
                stop_reason = STOP_CANCELLED
            else:
                await session.report_state(STATE_RUNNING)
                stop_reason = await self._drive(session, turn, first)
        except asyncio.CancelledError:
            if not turn.cancel_requested:
                session.turn = None
                raise  # not the client's cancel (e.g. shutdown): let it propagate
            stop_reason = STOP_CANCELLED
        except ConnectionClosed:
            session.turn = None
            return
        except Exception:
            if turn.cancel_requested:
                stop_reason = STOP_CANCELLED  # an aborted operation's own error
            else:
                logger.exception("turn handler failed in session %s", session.session_id)
                stop_reason = STOP_INTERNAL_ERROR
        if turn.cancel_requested:
            stop_reason = STOP_CANCELLED
        task = asyncio.current_task()
        if turn.cancel_sent and task is not None and task.cancelling():
            task.uncancel()
        session.turn = None  # from here on a new prompt starts a new turn
        with contextlib.suppress(ConnectionClosed):
            await session.report_state(STATE_IDLE, stop_reason)

    async def _drive(self, session: AgentSession, turn: Turn, first: Prompt) -> str:
        prompt = first
        while True:
            result = await self._on_prompt(session, prompt)
            if result is not None and not isinstance(result, str):
                raise TypeError(f"a turn handler must return a stop reason or None: {result!r}")
            if turn.cancel_requested or not turn.queued:
                return result or STOP_END_TURN
            prompt = turn.queued.pop(0)
