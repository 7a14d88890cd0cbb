"""The client's half of the v2 prompt lifecycle, as a `Dispatcher` working on wire JSON.

`ClientSide` sends `initialize` (checking the version the agent answers), sets sessions up,
and keeps one `SessionState` per session, fed by every `session/update` in wire order.
Updates that arrive while a session setup request is in flight (before its result names the
session) are buffered and applied, in order, once the session exists; updates for a session
nobody is setting up are logged and dropped.

`ClientSession.prompt` refuses, with `ProtocolUsageError` and nothing sent, a prompt before
initialization and session setup, or content the agent's prompt capabilities do not allow.
`ClientSession.cancel` sends `session/cancel`, marks the unfinished tool calls of the current
active work cancelled (`SessionState.mark_cancelled`) and answers every pending
`session/request_permission` with the cancelled outcome; updates arriving later are still
applied.

`session/request_permission` requests become `PermissionRequest`s on their session; the optional
`on_permission` hook answers them (it returns an outcome object), or the application answers
them itself with `PermissionRequest.select` / `respond`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Generic

from pydantic import BaseModel
from typing_extensions import TypeVar  # a TypeVar default (PEP 696) before Python 3.13

from .connection import Connection
from .dispatch import Dispatcher, InlineHandler
from .errors import (
    ConnectionClosed,
    ErrorCode,
    MalformedUpdateError,
    ProtocolUsageError,
    RpcError,
    UnsupportedProtocolVersion,
)
from .jsonvalue import as_object
from .permission_request import PermissionRequest
from .protocol import (
    INITIALIZE,
    REQUEST_PERMISSION,
    SESSION_CANCEL,
    SESSION_CLOSE,
    SESSION_LIST,
    SESSION_NEW,
    SESSION_PROMPT,
    SESSION_RESUME,
    SESSION_UPDATE,
    STATE_IDLE,
    SUPPORTED_PROTOCOL_VERSIONS,
    UPDATE_TAG_FIELD,
    prompt_content_problems,
)
from .state import SessionState
from .tables import MergeRule
from .versions import UNSUPPORTED_PROTOCOL_VERSION

logger = logging.getLogger(__name__)

# The static type of a session's snapshot: generated clients bind it to their `SessionSnapshot`
# TypedDict, so `session.snapshot()` is typed; a bare `ClientSession` reads as a Mapping.
SnapshotT = TypeVar("SnapshotT", default=Mapping[str, Any])
SnapshotT_co = TypeVar("SnapshotT_co", covariant=True, default=Mapping[str, Any])

PermissionHandler = Callable[
    ["ClientSession[Any]", "PermissionRequest"], Awaitable[Mapping[str, Any] | BaseModel]
]
UpdateValidator = Callable[[dict[str, Any]], object]


class ClientSession(Generic[SnapshotT_co]):
    """One session on the client side: its folded state, prompting and cancelling."""

    def __init__(self, client: ClientSide[Any], session_id: str) -> None:
        self.client = client
        self.session_id = session_id
        self.state: SessionState[SnapshotT_co] = client.new_state()
        self.pending_permissions: list[PermissionRequest] = []
        self.closed = False
        self._idle_reports = 0
        self._idle_changed = asyncio.Event()

    def snapshot(self) -> SnapshotT_co:
        """The session's state as plain JSON (typed by the generated `SessionSnapshot`)."""
        return self.state.snapshot()

    def apply(self, update: Any, *, owned: bool = False) -> None:
        """Fold one update; a malformed one is logged and skipped (it cannot be answered).
        `owned`: see `SessionState.apply` (the connection hands over what it decoded)."""
        try:
            self.state.apply(update, owned=owned)
        except MalformedUpdateError as error:
            logger.error("session %s: %s", self.session_id, error)
            return
        if self.state.state == STATE_IDLE and self.client.is_state_update(update):
            self._idle_reports += 1
            self._idle_changed.set()
            self._idle_changed = asyncio.Event()

    async def prompt(self, content: Sequence[Mapping[str, Any] | BaseModel]) -> str | None:
        """Send `session/prompt` (blocks as dicts or generated models); returns once the agent
        accepted it, with the id of the user message it inserted (the answer's receipt), or
        None from an agent of a draft that answers `{}`."""
        blocks = [as_object(block) for block in content]
        self.client.check_prompt(self.session_id, blocks)
        params = {"sessionId": self.session_id, "prompt": blocks}
        answer = await self.client.connection.request(SESSION_PROMPT, params)
        message_id = answer.get("messageId") if isinstance(answer, dict) else None
        return message_id if isinstance(message_id, str) else None

    async def run_turn(self, content: Sequence[Mapping[str, Any] | BaseModel]) -> str | None:
        """Prompt, then wait for the first idle report after it; returns its stop reason."""
        seen = self._idle_reports
        await self.prompt(content)
        while self._idle_reports == seen:
            await self._wait_for_change()
        return self.state.stop_reason

    async def _wait_for_change(self) -> None:
        changed = asyncio.ensure_future(self._idle_changed.wait())
        closed = asyncio.ensure_future(self.client.connection.wait_closed())
        try:
            await asyncio.wait({changed, closed}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            changed.cancel()
            closed.cancel()
        if not changed.done() or changed.cancelled():
            raise ConnectionClosed("connection closed while waiting for the session to go idle")

    async def close(self) -> None:
        """`session/close`: the agent cancels the work (its idle report still lands here) and
        forgets the session until it is resumed; later prompts are refused, later updates
        dropped (logged)."""
        await self.client.connection.request(SESSION_CLOSE, {"sessionId": self.session_id})
        self.closed = True

    async def cancel(self) -> None:
        """Cancel the session's work: send `session/cancel`, mark the current work's unfinished
        tool calls cancelled, answer pending permission requests with the cancelled outcome."""
        await self.client.connection.notify(SESSION_CANCEL, {"sessionId": self.session_id})
        self.state.mark_cancelled()
        for request in list(self.pending_permissions):
            request.cancel()


class ClientSide(Generic[SnapshotT]):
    """Dispatcher for a client's connection, plus the calls a client makes.

    `rules`, `tag_field` and `validate_update` configure each session's `SessionState`
    (generated code passes `MERGE_RULES`, `UPDATE_TAG` and a validator of the update union).
    """

    def __init__(
        self,
        connection: Connection,
        *,
        info: Mapping[str, Any],
        rules: Mapping[str, MergeRule],
        tag_field: str = UPDATE_TAG_FIELD,
        validate_update: UpdateValidator | None = None,
        capabilities: Mapping[str, Any] | None = None,
        protocol_versions: Sequence[int] = SUPPORTED_PROTOCOL_VERSIONS,
        on_permission: PermissionHandler | None = None,
        fallback: Dispatcher | None = None,
        forward_updates: bool = False,
    ) -> None:
        if not protocol_versions:
            raise ValueError("a client must support at least one protocol version")
        self.connection = connection
        self.info = dict(info)
        self.capabilities = dict(capabilities or {})
        self.protocol_versions = tuple(protocol_versions)
        self._rules = rules
        self._tag_field = tag_field
        self._validate_update = validate_update
        self._on_permission = on_permission
        self._fallback = fallback
        # Also hand each kept session/update to `fallback` (after it is folded into its
        # session): the author's typed handler wants to know; off, nobody pays for it.
        self._forward_updates = forward_updates and fallback is not None
        self.protocol_version: int | None = None
        self.agent_info: Any = None
        self.agent_capabilities: Any = None
        self.auth_methods: list[Any] = []
        self.sessions: dict[str, ClientSession[SnapshotT]] = {}
        self._setups_in_flight = 0
        self._early_updates: dict[str, list[Any]] = {}

    @property
    def initialized(self) -> bool:
        return self.protocol_version is not None

    def new_state(self) -> SessionState[Any]:
        return SessionState(self._rules, self._tag_field, self._validate_update)

    def is_state_update(self, update: Any) -> bool:
        tag = update.get(self._tag_field) if isinstance(update, dict) else None
        rule = self._rules.get(tag) if isinstance(tag, str) else None
        return rule is not None and rule.entity == "state"

    # -- calls to the agent ---------------------------------------------------------------------

    async def initialize(self) -> dict[str, Any]:
        """Offer our newest version; raise `UnsupportedProtocolVersion` (and close the
        connection) when the agent answers one we cannot use."""
        params = {
            "protocolVersion": max(self.protocol_versions),
            "info": self.info,
            "capabilities": self.capabilities,
        }
        try:
            result = await self.connection.request(INITIALIZE, params)
        except RpcError as error:
            if error.code != UNSUPPORTED_PROTOCOL_VERSION:
                raise
            await self.connection.close()
            data = error.data if isinstance(error.data, dict) else {}
            raise UnsupportedProtocolVersion(
                None, self.protocol_versions, data.get("supported")
            ) from None
        version = result.get("protocolVersion") if isinstance(result, dict) else None
        if (
            not isinstance(version, int)
            or isinstance(version, bool)
            or version not in self.protocol_versions
        ):
            await self.connection.close()
            raise UnsupportedProtocolVersion(version, self.protocol_versions)
        assert isinstance(result, dict)
        self.protocol_version = version
        self.agent_info = result.get("info")
        self.agent_capabilities = result.get("capabilities") or {}
        self.auth_methods = list(result.get("authMethods") or [])
        return result

    async def new_session(self, cwd: str, **params: Any) -> ClientSession[SnapshotT]:
        return await self._set_up(SESSION_NEW, {"cwd": cwd, **params}, None)

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None
    ) -> dict[str, Any]:
        """One page of `session/list` (`sessions`, and `nextCursor` when there is more)."""
        params = {name: value for name, value in (("cwd", cwd), ("cursor", cursor)) if value}
        result: dict[str, Any] = await self.connection.request(SESSION_LIST, params)
        return result

    async def resume_session(
        self, session_id: str, cwd: str, **params: Any
    ) -> ClientSession[SnapshotT]:
        """`session/resume`; replayed history (updates sent before the result) is kept."""
        params = {"sessionId": session_id, "cwd": cwd, **params}
        return await self._set_up(SESSION_RESUME, params, session_id)

    async def _set_up(
        self, method: str, params: dict[str, Any], session_id: str | None
    ) -> ClientSession[SnapshotT]:
        if not self.initialized:
            raise ProtocolUsageError(f"{method} before initialize")
        self._setups_in_flight += 1
        try:
            result = await self.connection.request(method, params)
        finally:
            self._setups_in_flight -= 1
        if session_id is None:
            session_id = result.get("sessionId") if isinstance(result, dict) else None
            if not isinstance(session_id, str):
                raise RpcError(ErrorCode.INTERNAL_ERROR, f"{method} result has no sessionId")
        # No await from here on: buffered updates are applied before any newer one.
        session = self.sessions.get(session_id) or ClientSession[SnapshotT](self, session_id)
        session.closed = False  # a resumed session is open again
        self.sessions[session_id] = session
        for update in self._early_updates.pop(session_id, []):
            session.apply(update, owned=True)
        if self._setups_in_flight == 0 and self._early_updates:
            logger.warning("dropping updates for unknown sessions %s", list(self._early_updates))
            self._early_updates.clear()
        return session

    def check_prompt(self, session_id: str, content: Any) -> None:
        """Raise `ProtocolUsageError` when a prompt may not be sent (nothing is sent)."""
        if not self.initialized:
            raise ProtocolUsageError("session/prompt before initialize")
        if session_id not in self.sessions:
            raise ProtocolUsageError(f"session/prompt for {session_id!r}, which is not set up")
        if self.sessions[session_id].closed:
            raise ProtocolUsageError(f"session/prompt for {session_id!r}, which is closed")
        problems = prompt_content_problems(content, self.agent_capabilities)
        if problems:
            where = ", ".join(
                f"{'/'.join(str(p) for p in problem['loc'])}: {problem['msg']}"
                for problem in problems
            )
            raise ProtocolUsageError(f"prompt not allowed by the agent's capabilities: {where}")

    # -- Dispatcher -----------------------------------------------------------------------------

    async def handle_request(self, method: str, params: Any) -> Any:
        if method == REQUEST_PERMISSION:
            return await self._permission(params)
        if self._fallback is not None:
            return await self._fallback.handle_request(method, params)
        raise RpcError.method_not_found(method)

    async def handle_notification(self, method: str, params: Any) -> None:
        """Takes ownership of `params` (the connection decoded them for this call alone): a
        session's state keeps their parts without copying them."""
        if method == SESSION_UPDATE:
            kept = self._update(params)
            if kept and self._forward_updates:
                assert self._fallback is not None
                await self._fallback.handle_notification(method, params)
        elif self._fallback is not None:
            await self._fallback.handle_notification(method, params)

    def inline_notifications(self) -> dict[str, InlineHandler]:
        """`session/update` is folded without awaiting anything (`handle_notification` does
        the same), unless it is also forwarded to the author's handler."""
        return {} if self._forward_updates else {SESSION_UPDATE: self._update}

    def _update(self, params: Any) -> bool:
        """Fold the update into its session (or keep it until session/new answers); False
        when it is dropped."""
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        if not isinstance(session_id, str) or "update" not in params:
            logger.warning("ignoring a session/update without sessionId or update")
            return False
        session = self.sessions.get(session_id)
        if session is not None and session.closed:
            logger.warning("dropping a session/update for closed session %r", session_id)
            return False
        if session is not None:
            session.apply(params["update"], owned=True)  # decoded for us, referenced nowhere
        elif self._setups_in_flight:
            self._early_updates.setdefault(session_id, []).append(params["update"])
        else:
            logger.warning("dropping a session/update for unknown session %r", session_id)
            return False
        return True

    async def _permission(self, params: Any) -> dict[str, Any]:
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        session = self.sessions.get(session_id) if isinstance(session_id, str) else None
        if session is None:
            raise RpcError(
                ErrorCode.RESOURCE_NOT_FOUND, "Unknown session", {"sessionId": session_id}
            )
        assert isinstance(params, dict)
        request = PermissionRequest(params)
        session.pending_permissions.append(request)
        hook: asyncio.Task[None] | None = None
        if self._on_permission is not None:
            hook = asyncio.create_task(self._ask(session, request, self._on_permission))
        try:
            outcome = await request._answer
        finally:
            session.pending_permissions.remove(request)
            if hook is not None and not hook.done():
                hook.cancel()
        return {"outcome": outcome}

    async def _ask(
        self,
        session: ClientSession[SnapshotT],
        request: PermissionRequest,
        handler: PermissionHandler,
    ) -> None:
        try:
            request.respond(await handler(session, request))
        except Exception as error:
            logger.exception("permission handler failed; answering with an internal error")
            if not request.answered:
                request._answer.set_exception(
                    RpcError.internal_error(f"permission handler failed: {error}")
                )
