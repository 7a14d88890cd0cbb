"""The v1 dialect of the client side: what a client reads from and writes to a v1 agent.

`ClientSide` keeps the sessions, their states and the permission requests for both versions
and says everything version-specific through its `ClientDialect` (client/dialect.py). On a
connection that negotiated v1 that is `V1ClientWire`, which also sits behind v1's
`ValidatingDispatcher` (v1's types and repairs checked first) for what the agent sends, and:

- folds each `session/update` into its session through a `V1UpdateReader` (one per session);
- turns `session/request_permission` (v1: the `toolCall` it is about, and the options) into
  the client's permission request (title: the tool call's, as held once the request's fields
  are folded into it; subject the tool call), and shows the session `requires_action` while
  it is open;
- answers v1's file system and terminal requests (`fs/*`, `terminal/*`) through `services`
  (the application's typed handlers) when the client advertised them, and refuses them with
  -32601 and the missing capability otherwise;
- runs a prompt turn: records the user's prompt, shows the session `running`, and `idle` with
  the stop reason from the prompt's answer (v1 sends no state updates);
- checks every request and notification the client sends on v1 against v1's types;
- names the client's info and capabilities in `initialize` as v1 does, and reads the agent's.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..client.client_session import ClientSession
from ..client.dialect import AnswerChecks
from ..rpc.connection import Connection
from ..rpc.dispatch import Dispatcher, InlineHandler, ValidatingDispatcher
from ..rpc.outgoing_checks import OutgoingChecks
from ..wire.errors import ErrorCode, RpcError
from ..wire.jsonvalue import JsonObject, JsonValue
from ..wire.protocol import (
    REQUEST_PERMISSION,
    SESSION_LOAD,
    SESSION_NEW,
    SESSION_PROMPT,
    SESSION_UPDATE,
    STATE_IDLE,
    STATE_REQUIRES_ACTION,
    STATE_RUNNING,
    TOOL_CALL_UPDATE,
    UPDATE_TAG_FIELD,
)
from .children import SUBAGENTS_CAPABILITY, tables_take_subagents
from .client_updates import V1UpdateReader, state_update
from .constants import (
    AGENT_CAPABILITIES,
    AGENT_INFO,
    CLIENT_CAPABILITIES,
    CLIENT_INFO,
    FS_READ,
    FS_WRITE,
    MODELS,
    PROMPT_CAPABILITIES,
    PROMPT_CAPABILITY_NAMES,
    SERVICE_CAPABILITY,
    TERMINAL_METHODS,
    V1,
)

logger = logging.getLogger(__name__)

Repairs = Mapping[str, Any]  # method -> repair function (see `ValidatingDispatcher`)


@dataclass(frozen=True)
class V1Tables:
    """What the generated v1 bindings give either side's v1 adapter (`V1ClientWire` here,
    `agent_side.V1AgentSide`): v1's method tables (the agent's, what an agent is sent; the
    client's, what a client is sent) and the tolerant repairs of what that side receives
    (none: strict; `result_repairs`: of the answers a client folds into its sessions). The
    rows are `MethodSpec`s of whichever runtime copy the v1 bindings import (read by
    attribute), hence `Any`."""

    agent_specs: Sequence[Any]
    client_specs: Sequence[Any]
    repairs: Repairs = field(default_factory=dict)
    request_repairs: Repairs = field(default_factory=dict)
    result_repairs: Repairs = field(default_factory=dict)

    def checked(self, specs: Sequence[Any], inner: Dispatcher) -> ValidatingDispatcher:
        """`inner` behind the checks of `specs` (the receiving side's table) and the repairs."""
        return ValidatingDispatcher(
            specs, inner, self.repairs, request_repairs=self.request_repairs
        )

    def dialect(
        self, client: WireHost, *, services: Dispatcher | None, handled: Collection[str]
    ) -> V1ClientWire:
        """The v1 dialect of `client` (a `ClientSide`, which takes these tables as `v1=`)."""
        return V1ClientWire(client, self, services=services, handled=handled)


def client_capabilities(handled: Collection[str], auth_terminal: bool = False) -> JsonObject:
    """v1 `clientCapabilities` for the services the application answers: a file capability
    per handled fs method, `terminal` only when every `terminal/*` method is handled; and the
    session updates every session state folds as v2's (notices, compactions, boolean options),
    so a gating agent sends them rather than leaving them out or degrading them."""
    return {
        "fs": {"readTextFile": FS_READ in handled, "writeTextFile": FS_WRITE in handled},
        "terminal": all(method in handled for method in TERMINAL_METHODS),
        "auth": {"terminal": auth_terminal},
        "session": {"notices": {}, "compaction": {}, "configOptions": {"boolean": {}}},
    }


# Members of v2's `session` client capabilities that v1 names the same (unstable: prompt
# suggestions, advertised by a package generated with `--unstable`).
SHARED_SESSION_CAPABILITIES = ("promptSuggestions",)


def with_shared_session(v1_capabilities: JsonObject, params: JsonObject) -> JsonObject:
    """v1 `clientCapabilities` plus what the v2 `capabilities` in `params` advertise under
    `session` that v1 names the same (`SHARED_SESSION_CAPABILITIES`)."""
    v2 = params.get("capabilities")
    session = v2.get("session") if isinstance(v2, dict) else None
    shared = {
        name: session[name]
        for name in SHARED_SESSION_CAPABILITIES
        if isinstance(session, dict) and isinstance(session.get(name), dict)
    }
    if not shared:
        return v1_capabilities
    v1_session = v1_capabilities.get("session")
    return {
        **v1_capabilities,
        "session": {**(v1_session if isinstance(v1_session, dict) else {}), **shared},
    }


def prompt_capabilities_as_v2(agent_capabilities: JsonValue) -> JsonObject:
    """v1's prompt capabilities (booleans) in v2's form (`session.prompt`, `{}` = granted), so
    one check of prompt content serves both versions."""
    v1 = (
        agent_capabilities.get(PROMPT_CAPABILITIES)
        if isinstance(agent_capabilities, dict)
        else None
    )
    granted = v1 if isinstance(v1, dict) else {}
    prompt: JsonObject = {name: {} for name in PROMPT_CAPABILITY_NAMES if granted.get(name) is True}
    return {"session": {"prompt": prompt}}


class WireHost(Protocol):
    """What the dialect needs of its client (`client_side.ClientSide`)."""

    connection: Connection

    @property
    def sessions(self) -> Mapping[str, ClientSession[Any]]: ...
    @property
    def forwards_updates(self) -> bool: ...
    def fold_update(self, session_id: str, update: JsonValue) -> bool: ...
    async def updates_in(self, session_id: str, updates: list[JsonObject]) -> None: ...
    async def ask_permission(
        self, session: ClientSession[Any], params: JsonObject
    ) -> JsonObject: ...


class V1ClientWire:
    """The v1 dialect of one `ClientSide` (see the module docstring): a `VersionDialect`."""

    version = V1
    loads_sessions = True

    def __init__(
        self,
        client: WireHost,
        tables: V1Tables,
        *,
        services: Dispatcher | None = None,
        handled: Collection[str] = (),
    ) -> None:
        self._client = client
        self.tables = tables
        self._services = services
        self.capabilities = client_capabilities(handled)
        if tables_take_subagents(tables.client_specs):  # `--unstable`: children are folded
            self.capabilities[SUBAGENTS_CAPABILITY[0]] = {}
        self._checks = OutgoingChecks(sent=tables.agent_specs, answered=tables.client_specs)
        self._readers: dict[str, V1UpdateReader] = {}
        self._answers = AnswerChecks(tables.agent_specs, self.version, tables.result_repairs)

    def checked(self) -> ValidatingDispatcher:
        """This dialect behind v1's checks (and tolerant repairs) of incoming messages."""
        return self.tables.checked(self.tables.client_specs, self)

    def hello(self, params: JsonObject, info: JsonObject) -> None:
        params[CLIENT_INFO] = info
        params[CLIENT_CAPABILITIES] = with_shared_session(self.capabilities, params)

    def agent_hello(self, result: JsonObject) -> tuple[JsonValue, JsonValue]:
        return result.get(AGENT_INFO), result.get(AGENT_CAPABILITIES)

    def initialize_misfit(self, result: JsonObject) -> str | None:
        return self._answers.hello_misfit(result)

    def prompt_capabilities(self, agent_capabilities: JsonValue) -> JsonValue:
        return prompt_capabilities_as_v2(agent_capabilities)

    def reader(self, session_id: str) -> V1UpdateReader:
        reader = self._readers.get(session_id)
        if reader is None:
            reader = self._readers[session_id] = V1UpdateReader()
        return reader

    # -- what the client sends ---------------------------------------------------------------

    def check_request(self, method: str, params: JsonValue) -> None:
        """Raise pydantic's `ValidationError` when `params` do not fit v1's type."""
        self._checks.request(method, params)

    def check_notification(self, method: str, params: JsonValue) -> None:
        self._checks.notification(method, params)

    def setup_params(self, method: str, params: JsonObject) -> JsonObject:
        """v1 requires the MCP server list in `session/new` and `session/load`; none given is
        none."""
        return {"mcpServers": [], **params} if method in (SESSION_NEW, SESSION_LOAD) else params

    def setup_answer(self, method: str, session_id: str, result: JsonValue) -> JsonValue:
        """A v1 setup answer in v2's shape: its modes, models (older unstable v1) and config
        options as v2's config options (the mode a select option of category `mode`, the
        models one of category `model`); a message a load replayed ends
        with the replay (the next chunk starts a new one)."""
        result = self._answers.kept(method, result)
        if not isinstance(result, dict):
            return result
        reader = self._readers.get(session_id)
        if reader is None and not any(
            name in result for name in ("modes", MODELS, "configOptions")
        ):
            return result  # nothing to translate: the session's first update makes its reader
        reader = self.reader(session_id)
        reader.end_message()
        answer = {name: value for name, value in result.items() if name not in ("modes", MODELS)}
        answer.pop("configOptions", None)
        for update in reader.session_setup(result):
            answer["configOptions"] = update["configOptions"]
        return answer

    def replay_begins(self, session_id: str) -> None:
        """The replay starts a new reader: no message of before continues into it."""
        self._readers.pop(session_id, None)

    def loads_instead(
        self, session_id: str, params: JsonObject, agent_capabilities: JsonValue
    ) -> bool:
        """Whether a resume asking for replay (`replayFrom`, taken out of `params`: v1's
        resume has no such field) is sent as `session/load`, which replays the history: when
        the agent can load (`loadSession`); else it is a resume without replay, logged."""
        if params.pop("replayFrom", None) is None:
            return False
        if isinstance(agent_capabilities, dict) and agent_capabilities.get("loadSession") is True:
            return True
        logger.warning("session %r: resumed without replay (no loadSession)", session_id)
        return False

    async def prompt(
        self, session: ClientSession[Any], blocks: list[JsonValue], key: str | None = None
    ) -> str:
        """One v1 turn (see `ClientSession.prompt`); the session is idle afterwards, also when
        the request failed (then without a stop reason) or was abandoned. v1 has no
        idempotency key: `key` is not sent."""
        params: JsonObject = {"sessionId": session.session_id, "prompt": blocks}
        self.check_request(SESSION_PROMPT, params)  # before the state shows a turn
        reader = self.reader(session.session_id)
        message_id, user_message = reader.user_prompt(blocks)
        session.apply(user_message)
        session.apply(state_update(STATE_RUNNING))
        stop_reason: str | None = None
        try:
            answer = await self._client.connection.request(SESSION_PROMPT, params)
            found = answer.get("stopReason") if isinstance(answer, dict) else None
            stop_reason = found if isinstance(found, str) else None
            if stop_reason is None:
                logger.warning(
                    "session %s: v1 prompt answer without a stop reason", session.session_id
                )
        finally:
            reader.end_message()
            session.apply(state_update(STATE_IDLE, stop_reason))
        return message_id

    # -- Dispatcher: what the agent sends ----------------------------------------------------

    async def handle_request(self, method: str, params: Any) -> Any:
        if method == REQUEST_PERMISSION:
            return await self._permission(params)
        capability = SERVICE_CAPABILITY.get(method)
        if capability is not None and not self._advertised(capability):
            raise RpcError(
                ErrorCode.METHOD_NOT_FOUND,
                f"{method}: this client did not advertise"
                f" {CLIENT_CAPABILITIES}.{'.'.join(capability)}",
                {"method": method},
            )
        if capability is not None:
            self._known_session(params)
        if self._services is None:
            raise RpcError.method_not_found(method)
        return await self._services.handle_request(method, params)

    async def handle_notification(self, method: str, params: Any) -> None:
        if method == SESSION_UPDATE:
            read = self._read(params)
            if read is not None:
                await self._client.updates_in(*read)
        elif self._services is not None:
            await self._services.handle_notification(method, params)

    def inline_notifications(self) -> dict[str, InlineHandler]:
        """Updates are folded without awaiting anything unless the application hears them."""
        if self._client.forwards_updates:
            return {}
        return {SESSION_UPDATE: self._fold}

    def _fold(self, params: JsonValue) -> None:
        """`_read`, then the fold, in one frame: this runs for most of a v1 agent's traffic."""
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        update = params.get("update") if isinstance(params, dict) else None
        if not isinstance(session_id, str) or not isinstance(update, dict):
            logger.warning("ignoring a session/update without sessionId or update")
            return
        reader = self._readers.get(session_id) or self.reader(session_id)
        fold = self._client.fold_update
        for read in reader.read(update):
            fold(session_id, read)

    def _read(self, params: JsonValue) -> tuple[str, list[JsonObject]] | None:
        """A v1 `session/update`: its session and the v2 updates that say what it says."""
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        update = params.get("update") if isinstance(params, dict) else None
        if not isinstance(session_id, str) or not isinstance(update, dict):
            logger.warning("ignoring a session/update without sessionId or update")
            return None
        reader = self._readers.get(session_id) or self.reader(session_id)
        return session_id, reader.read(update)

    def _advertised(self, capability: tuple[str, ...]) -> bool:
        value: JsonValue = self.capabilities
        for part in capability:
            value = value.get(part) if isinstance(value, dict) else None
        return value is True

    def _known_session(self, params: JsonValue) -> ClientSession[Any]:
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        session = self._client.sessions.get(session_id) if isinstance(session_id, str) else None
        if session is None:
            raise RpcError(
                ErrorCode.RESOURCE_NOT_FOUND, "Unknown session", {"sessionId": session_id}
            )
        return session

    async def _permission(self, params: JsonValue) -> JsonObject:
        session = self._known_session(params)
        about = params["toolCall"] if isinstance(params, dict) else None
        assert isinstance(about, dict) and isinstance(params, dict)  # v1's checks saw to it
        # The tool call it is about, read as a v1 tool_call_update: its fields are the call's
        # own, folded into the call held (a title only when given), and shown (in v2's shape)
        # as the request's subject. The question is the call's title (v1 asks nothing else).
        update = {**about, "sessionUpdate": TOOL_CALL_UPDATE}
        folded = self.reader(session.session_id).read(update)
        for item in folded:
            session.apply(item)
        tool_call = {k: v for k, v in folded[0].items() if k != UPDATE_TAG_FIELD}
        call_id = tool_call.get("toolCallId")
        held = session.state.tool_call(call_id) if isinstance(call_id, str) else None
        title = (held or tool_call).get("title")
        request: JsonObject = {
            "sessionId": session.session_id,
            "title": title if isinstance(title, str) and title else "Allow this tool call?",
            "subject": {"type": "tool_call", "toolCall": tool_call},
            "options": params["options"],
        }
        if params.get("_meta") is not None:
            request["_meta"] = params["_meta"]
        # Shown as v2 shows it; once no permission is open, back to what it was (a
        # request outside a turn still means the agent is working: running).
        before, before_stop = session.state.state, session.state.stop_reason
        session.apply(state_update(STATE_REQUIRES_ACTION))
        try:
            return await self._client.ask_permission(session, request)
        finally:
            if session.state.state == STATE_REQUIRES_ACTION and not session.pending_permissions:
                if before == STATE_IDLE:
                    session.apply(state_update(STATE_IDLE, before_stop))
                else:
                    session.apply(state_update(STATE_RUNNING))
