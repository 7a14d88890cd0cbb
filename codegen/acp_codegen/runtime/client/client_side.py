"""The client's half of the prompt lifecycle, as a `Dispatcher` working on wire JSON.

`ClientSide` sends `initialize` (checking the version the agent answers, and that the body is
that version's answer), sets sessions up, and keeps one `SessionState` per session
(`client_session.ClientSession`), fed by every `session/update` in wire order and by what a
setup answer carries that the state keeps (config options, commands: folded as the updates
that say it). Updates that arrive while a setup is in flight (before its result names the
session) are buffered and applied in order once the session exists; a subagent a session
announces becomes a session too; updates for any other session are logged and dropped. A
setup that replays a held session's whole history rebuilds its state from the replay.

Everything that depends on the version is said through a `ClientDialect` (dialect.py): v2's
(`V2ClientWire`) until `initialize` settles on another. It asks for v2; given v1's tables
(`v1=V1Tables(...)`, from the v1 floor) it also accepts an agent that answers v1, whose
messages that dialect reads into the same sessions and states, writing what v1 expects
(`versioned()` routes each message to the negotiated version's checks, `protocol_version`).

`session/request_permission` requests become `PermissionRequest`s on their session; the
optional `on_permission` hook answers them, or the application does (`PermissionRequest`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from functools import partial
from typing import Any, Generic

from pydantic import BaseModel
from typing_extensions import TypeVar  # a TypeVar default (PEP 696) before Python 3.13

from ..core.client_rules import load_refusal, prompt_refusal, setup_refusal
from ..core.client_setup import rebuilds_state, setup_fields, setup_updates
from ..rpc.connection import Connection
from ..rpc.dispatch import Dispatcher, InlineHandler, MethodTable
from ..rpc.version_router import VersionedDispatcher
from ..state.merge_plan import plan_for
from ..state.session_state import SessionState
from ..wire.errors import ErrorCode, ProtocolUsageError, RpcError
from ..wire.jsonvalue import JsonObject, JsonValue
from ..wire.protocol import (
    INITIALIZE,
    REQUEST_PERMISSION,
    SESSION_LIST,
    SESSION_LOAD,
    SESSION_NEW,
    SESSION_RESUME,
    SESSION_UPDATE,
    SUPPORTED_PROTOCOL_VERSIONS,
    UPDATE_TAG_FIELD,
)
from ..wire.tables import MergeRule
from ..wire.tolerant import ParamsRepair
from .client_session import ClientSession, adopt_child, apply_early
from .dialect import ClientDialect, DialectTables, V2ClientWire, initialize_refused, spoken_version
from .permission_request import PermissionRequest, asked_on, wait_for_answer

__all__ = ["ClientSession", "ClientSide"]

logger = logging.getLogger(__name__)

# The static type of a session's snapshot: generated clients bind it to their `SessionSnapshot`
# TypedDict, so `session.snapshot()` is typed; a bare `ClientSession` reads as a Mapping.
SnapshotT = TypeVar("SnapshotT", default=Mapping[str, Any])

PermissionHandler = Callable[
    ["ClientSession[Any]", "PermissionRequest"], Awaitable[Mapping[str, Any] | BaseModel]
]
UpdateValidator = Callable[[JsonObject], object]


class ClientSide(Generic[SnapshotT]):
    """Dispatcher for a client's connection, plus the calls a client makes.

    `rules`, `tag_field` and `validate_update` configure each session's `SessionState`
    (generated code passes `MERGE_RULES`, `UPDATE_TAG` and a validator of the update union).
    `protocol_versions`: those accepted, the highest asked for; `v1`: v1's tables, to accept
    v1 agents too (1 is then accepted whether listed or not); `v1_services` answers v1's
    client requests (`fs/*`, `terminal/*`, extensions), and `v1_handled` names the ones it
    answers, from which the v1 client capabilities are derived. `agent_specs`: v2's agent
    table (generated `AGENT_SPECS`), whose answer types tell a v2 `initialize` body and check
    the setup answers folded into sessions (`answer_repairs`: their tolerant repairs).
    """

    def __init__(
        self,
        connection: Connection,
        *,
        info: Mapping[str, JsonValue],
        rules: Mapping[str, MergeRule],
        tag_field: str = UPDATE_TAG_FIELD,
        validate_update: UpdateValidator | None = None,
        capabilities: Mapping[str, JsonValue] | None = None,
        protocol_versions: Sequence[int] = SUPPORTED_PROTOCOL_VERSIONS,
        on_permission: PermissionHandler | None = None,
        fallback: Dispatcher | None = None,
        forward_updates: bool = False,
        v1: DialectTables | None = None,
        v1_services: Dispatcher | None = None,
        v1_handled: Collection[str] = (),
        agent_specs: MethodTable = (),
        answer_repairs: Mapping[str, ParamsRepair] | None = None,
    ) -> None:
        if not protocol_versions:
            raise ValueError("a client must support at least one protocol version")
        older = min(SUPPORTED_PROTOCOL_VERSIONS)  # a version before v2's needs its dialect
        if v1 is None and any(version < older for version in protocol_versions):
            version = min(protocol_versions)
            raise ValueError(f"accepting protocol version {version} needs v1's tables (v1=...)")
        self.connection = connection
        self.info = dict(info)
        self.capabilities = dict(capabilities or {})
        self.v1 = None if v1 is None else v1.dialect(self, services=v1_services, handled=v1_handled)
        # The wire spoken: v2's unless the version negotiated is the dialect's (see below).
        self._v2_wire = V2ClientWire(connection, agent_specs, answer_repairs)
        self._wire: ClientDialect = self._v2_wire
        accepted = set(protocol_versions) | ({self.v1.version} if self.v1 is not None else set())
        self.protocol_versions = tuple(sorted(accepted))
        self._rules = rules
        self._plan = plan_for(rules)  # compiled once: a new session then only builds its state
        self._setup_fields = setup_fields(rules)  # what a setup answer carries that state keeps
        self._tag_field = tag_field
        self._validate_update = validate_update
        self._on_permission = on_permission
        self._fallback = fallback
        # Also hand each kept session/update (once folded) to `fallback`: the author's handler.
        self._forward_updates = forward_updates and fallback is not None
        self._router: VersionedDispatcher | None = None
        self._protocol_version: int | None = None
        # What the agent's `initialize` answer said, read freely by applications (hence `Any`).
        self.agent_info: Any = None
        self.agent_capabilities: Any = None
        self.auth_methods: list[Any] = []
        self.sessions: dict[str, ClientSession[SnapshotT]] = {}
        self._setups_in_flight = 0
        self._early_updates: dict[str, list[JsonValue]] = {}
        self._adopt = partial(adopt_child, self)  # children announced by its sessions
        # A fast path (`_update`; False: every update takes `ClientSession.apply`, the reference).
        self.folds_held = tag_field == UPDATE_TAG_FIELD

    @property
    def initialized(self) -> bool:
        return self._protocol_version is not None

    @property
    def protocol_version(self) -> int | None:
        """The version `initialize` negotiated (None before)."""
        return self._protocol_version

    @protocol_version.setter
    def protocol_version(self, version: int | None) -> None:
        self._protocol_version = version
        v1 = self.v1
        self._wire = v1 if v1 is not None and version == v1.version else self._v2_wire
        if self._router is not None:
            self._router.settle()  # the connection now reads this version's messages directly

    def new_state(self) -> SessionState[Any]:
        return SessionState(self._plan, self._tag_field, self._validate_update, self._adopt)

    def is_state_update(self, update: JsonValue | BaseModel) -> bool:
        tag = update.get(self._tag_field) if isinstance(update, dict) else None
        rule = self._rules.get(tag) if isinstance(tag, str) else None
        return rule is not None and rule.entity == "state"

    @property
    def forwards_updates(self) -> bool:
        return self._forward_updates

    @property
    def wire(self) -> ClientDialect:
        """The dialect of the negotiated version (v2's before `initialize`)."""
        return self._wire

    def versioned(self, v2: Dispatcher) -> Dispatcher:
        """The connection's dispatcher: `v2` (this lifecycle behind v2's checks) and, when v1
        is configured, the v1 dialect behind v1's checks, chosen by the negotiated version."""
        if self.v1 is None:
            return v2
        self._router = VersionedDispatcher(
            {2: v2, self.v1.version: self.v1.checked()},
            version=lambda: self._protocol_version,
            default=max(self.protocol_versions),
            connection=self.connection,
        )
        return self._router

    async def request(self, method: str, params: JsonValue) -> JsonValue:
        """Send a request to the agent (first checked against the wire's types: v1's on v1)."""
        self._wire.check_request(method, params)
        answer: JsonValue = await self.connection.request(method, params)
        return answer

    async def notify(self, method: str, params: JsonValue) -> None:
        self._wire.check_notification(method, params)
        await self.connection.notify(method, params)

    async def send_prompt(
        self, session: ClientSession[Any], blocks: list[JsonValue], key: str | None = None
    ) -> str | None:
        """`session/prompt` on the negotiated version's wire (see `ClientSession.prompt`)."""
        return await self._wire.prompt(session, blocks, key)

    # -- calls to the agent ---------------------------------------------------------------------

    async def initialize(self) -> JsonObject:
        """Offer our newest version; raise `UnsupportedProtocolVersion` (and close the
        connection) when the agent answers one we cannot use, `ProtocolUsageError` when its
        answer's body is not that version's (unless it is v1's and v1 was offered)."""
        params: JsonObject = {
            "protocolVersion": max(self.protocol_versions),
            "info": self.info,
            "capabilities": self.capabilities,
        }
        if self.v1 is not None:  # its names for these too: an agent of only that version knows us
            self.v1.hello(params, self.info)
        try:  # the version answered, when its body is its answer (else v1's when offered)
            result = await self.connection.request(INITIALIZE, params)
            spoken, said = spoken_version(result, self.protocol_versions, self._v2_wire, self.v1)
        except (RpcError, ProtocolUsageError) as error:
            refused = initialize_refused(error, self.protocol_versions)
            if refused is None:
                raise
            await self.connection.close()
            raise refused from None
        if said:  # answered with another version's body: the agent's fault, logged
            logger.warning("%s", said)
        assert isinstance(result, dict)
        self.protocol_version = spoken  # and the wire that version speaks
        self.agent_info, capabilities = self._wire.agent_hello(result)
        self.agent_capabilities = capabilities or {}
        self.auth_methods = list(result.get("authMethods") or [])
        return result

    async def new_session(self, cwd: str, **params: Any) -> ClientSession[SnapshotT]:
        return await self._set_up(SESSION_NEW, {"cwd": cwd, **params}, None)

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None
    ) -> dict[str, Any]:
        """One page of `session/list` (`sessions`, and `nextCursor` when there is more; read
        freely by applications, hence `Any`)."""
        asked = {"cwd": cwd, "cursor": cursor}
        params: JsonObject = {name: value for name, value in asked.items() if value}
        result = await self.request(SESSION_LIST, params)
        if not isinstance(result, dict):
            raise RpcError(ErrorCode.INTERNAL_ERROR, f"{SESSION_LIST} result is not an object")
        return result

    async def resume_session(
        self, session_id: str, cwd: str, **params: Any
    ) -> ClientSession[SnapshotT]:
        """`session/resume`; replayed history (updates sent before the result) is kept. v1's
        resume replays nothing: asked to (`replayFrom`), a v1 agent is sent `session/load`."""
        if self._wire.loads_instead(session_id, params, self.agent_capabilities):
            return await self.load_session(session_id, cwd, **params)
        params = {"sessionId": session_id, "cwd": cwd, **params}
        return await self._set_up(SESSION_RESUME, params, session_id)

    async def load_session(
        self, session_id: str, cwd: str, **params: Any
    ) -> ClientSession[SnapshotT]:
        """v1's `session/load`: the history the agent replays before answering is folded in."""
        refusal = load_refusal(self.initialized, self._wire.loads_sessions)
        if refusal is not None:
            raise ProtocolUsageError(refusal)
        params = {"sessionId": session_id, "cwd": cwd, **params}
        return await self._set_up(SESSION_LOAD, params, session_id)

    async def _set_up(
        self, method: str, params: JsonObject, session_id: str | None
    ) -> ClientSession[SnapshotT]:
        refusal = setup_refusal(method, self.initialized)
        if refusal is not None:
            raise ProtocolUsageError(refusal)
        params = self._wire.setup_params(method, params)
        # A whole replay rebuilds a held session's state afresh (kept once the agent answers).
        held = self.sessions.get(session_id) if session_id is not None else None
        if session_id is not None and rebuilds_state(method, params):
            self._wire.replay_begins(session_id)
        before = held.rebuild() if held is not None and rebuilds_state(method, params) else None
        self._setups_in_flight += 1
        try:
            result = await self.request(method, params)
        except BaseException:
            if held is not None:  # refused or lost: what was held stays; a replay was cut short
                held.setup_failed(params, before)
            raise
        finally:
            self._setups_in_flight -= 1
        if session_id is None:
            named = result.get("sessionId") if isinstance(result, dict) else None
            if not isinstance(named, str):
                raise RpcError(ErrorCode.INTERNAL_ERROR, f"{method} result has no sessionId")
            session_id = named
        # No await from here on: buffered updates are applied before any newer one.
        # Not `ClientSession[SnapshotT](...)`: calling the subscripted alias costs a frame.
        session: ClientSession[SnapshotT] = self.sessions.get(session_id) or ClientSession(
            self, session_id
        )
        # Open and ours again when resumed; its cwd kept, to resume it after a lost connection.
        session.reopened(params)
        session.cwd = str(params.get("cwd", session.cwd))
        self.sessions[session_id] = session
        apply_early(self.sessions, self._early_updates, session_id)
        # What the answer carries that the state keeps, folded as the updates that say it.
        answer = self._wire.setup_answer(method, session_id, result)
        for update in setup_updates(self._setup_fields, answer, self._tag_field):
            session.apply(update, owned=True)
        if self._setups_in_flight == 0 and self._early_updates:
            logger.warning("dropping updates for unknown sessions %s", list(self._early_updates))
            self._early_updates.clear()
        return session

    def check_prompt(self, session_id: str, content: JsonValue) -> None:
        """Raise `ProtocolUsageError` when a prompt may not be sent (nothing is sent)."""
        refusal = prompt_refusal(
            session_id,
            initialized=self.initialized,
            set_up=session_id in self.sessions,
            content=content,
            capabilities=self._wire.prompt_capabilities(self.agent_capabilities),
        )
        if refusal is not None:
            raise ProtocolUsageError(refusal)

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

    async def updates_in(self, session_id: str, updates: list[JsonObject]) -> None:
        """Fold updates of one session in order, handing each kept one to the author's handler
        when it listens (the v1 dialect gives what one v1 update says as v2 updates)."""
        for update in updates:
            if self.fold_update(session_id, update) and self._forward_updates:
                assert self._fallback is not None
                params: JsonObject = {"sessionId": session_id, "update": update}
                await self._fallback.handle_notification(SESSION_UPDATE, params)

    def _update(self, params: JsonValue) -> bool:
        """Fold a session/update's update into its session (False: dropped); one of a held
        record by `fold_held` (no takeover notice, no state report: nothing else of `apply`)."""
        if type(params) is dict:
            session_id = params.get("sessionId")
            if type(session_id) is str and "update" in params:
                update = params["update"]
                session = self.sessions.get(session_id) if self.folds_held else None
                if session is None or session.closed or not session.state.fold_held(update):
                    return self.fold_update(session_id, update)
                return True
        logger.warning("ignoring a session/update without sessionId or update")
        return False

    def fold_update(self, session_id: str, update: JsonValue) -> bool:
        """Fold `update` (decoded for us, referenced nowhere else) into its session, or keep it
        until the session's setup answers; False when it is dropped."""
        session = self.sessions.get(session_id)
        if session is not None and not session.closed:  # the common case first
            session.apply(update, owned=True)
        elif session is not None and not self._setups_in_flight:
            logger.warning("dropping a session/update for closed session %r", session_id)
            return False
        elif self._setups_in_flight:  # a new session's, or a closed one's being resumed
            self._early_updates.setdefault(session_id, []).append(update)
        else:
            logger.warning("dropping a session/update for unknown session %r", session_id)
            return False
        return True

    async def _permission(self, params: JsonValue) -> JsonObject:
        session, asked = asked_on(self.sessions, params)
        return await self.ask_permission(session, asked)

    async def ask_permission(self, session: ClientSession[Any], params: JsonObject) -> JsonObject:
        """Wait for the answer to a permission request (v2-shaped params) on `session`."""
        handler = self._on_permission
        hook = None if handler is None else partial(handler, session)
        return await wait_for_answer(params, session.pending_permissions, hook)
