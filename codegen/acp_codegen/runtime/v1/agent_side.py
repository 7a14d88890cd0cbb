"""The agent lifecycle served to a v1 client: v1's requests in, the same `AgentSide` (sessions,
turns, the author's hooks and `on_prompt`) behind, v1's answers and updates out.

What differs from v2, per request (the updates are `v1.agent_wire`'s):

- `initialize`: v1's field names (`clientCapabilities`, `clientInfo` in; `agentCapabilities`,
  `agentInfo` out). The v1 capabilities are derived from what is served, as v2's are:
  `loadSession` (history is kept, or the author restores sessions), `promptCapabilities`
  from the author's v2 prompt capabilities, `sessionCapabilities` list/resume/close (and delete
  when served).
- `session/prompt`: answered `{stopReason}` when the prompt's turn ends (v1 has no receipt). A
  turn that failed (`_internal_error`, `error`) is answered -32603 instead.
- `session/load`: the session (known here, else restored by the author's `load_session`) is
  reopened and its history replayed in v1's words before the answer.
- `session/resume`: reopened without replay (v1 has none); `session/list`, `session/close`,
  `session/delete` as on v2. v2's `availableCommands` in a result is told with an
  `available_commands_update` right after the answer; other result fields v1's types lack are
  left out, logged.
- `session/cancel`: the turn ends, and its prompt is answered `cancelled`.
- `authenticate`, `logout`, `session/set_config_option`, `session/set_mode`: the author's
  typed v2 handlers (`auth/login`, `auth/logout`, `session/set_config_option`), see
  `v1.agent_renamed`; -32601 when the author did not override them. `auth.logout` is
  advertised when `auth/logout` is served; a session's answer carries v1 `modes` (from its
  option of category `mode`) when `session/set_config_option` is served and it has one.

Extension methods (`_...`) go to the author's `ext_method` / `ext_notification`, as on v2.
Other methods are answered -32601: the author's typed handlers are v2's.

A message naming a session attached to another connection is refused (-32002) or, as a
notification, ignored, before any of the above, as on v2 (session_owner.py); `session/load`
takes the session over, as `session/resume` does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from typing import Any, cast

from ..agent.agent_session import Accepted, AgentSession, Prompt, new_id
from ..agent.agent_side import AgentSide
from ..agent.sessions import invalid
from ..agent.unstable_sessions import unstable_capabilities
from ..core.prompt_content import prompt_capabilities, prompt_content_problems
from ..rpc.connection import answer_written
from ..rpc.dispatch import EXTENSION_PREFIX, Dispatcher, ValidatingDispatcher
from ..rpc.outgoing_checks import OutgoingChecks
from ..wire.errors import ConnectionClosed, RpcError
from ..wire.jsonvalue import JsonObject, JsonValue, copy_json
from ..wire.protocol import (
    INITIALIZE,
    SESSION_CANCEL,
    SESSION_CLOSE,
    SESSION_DELETE,
    SESSION_LIST,
    SESSION_LOAD,
    SESSION_NEW,
    SESSION_PROMPT,
    SESSION_RESUME,
)
from .agent_renamed import (
    RenamedMethods,
    v1_auth_methods,
    v1_config_options,
    v1_models,
    v1_modes,
)
from .agent_wire import V1SessionDialect, v1_stop_reason
from .client_wire import V1Tables
from .constants import (
    AGENT_CAPABILITIES,
    AGENT_INFO,
    AVAILABLE_COMMANDS,
    AVAILABLE_COMMANDS_UPDATE,
    CLIENT_CAPABILITIES,
    CLIENT_INFO,
    LOGOUT,
    PROMPT_CAPABILITY_NAMES,
    SET_MODE,
    SET_MODEL,
    V1,
    V2_HANDLER,
)

logger = logging.getLogger(__name__)

# What each v1 answer may carry besides what the runtime sets, by method.
_RESULT_FIELDS = {
    SESSION_NEW: ("sessionId", "configOptions", "modes", "_meta"),
    SESSION_LOAD: ("configOptions", "modes", "_meta"),
    SESSION_RESUME: ("configOptions", "modes", "_meta"),
}
_REGISTRY = {SESSION_LIST: "list", SESSION_CLOSE: "close", SESSION_DELETE: "delete"}


def v1_agent_capabilities(side: AgentSide, logout: bool = False) -> JsonObject:
    """v1 `agentCapabilities` for what `side` serves (its v2 capabilities are the author's);
    `logout`: whether the author serves it (`auth/logout`)."""
    registry = side.registry
    history = registry.history_limit is None or registry.history_limit > 0
    session: JsonObject = {"list": {}, "resume": {}, "close": {}}
    if registry.serves_delete:
        session["delete"] = {}
    session.update(unstable_capabilities(side.unstable.served))  # none without --unstable
    declared = side.capabilities.get("session") or {}
    if "additionalDirectories" in declared:
        session["additionalDirectories"] = declared["additionalDirectories"]
    granted = prompt_capabilities(side.capabilities)
    prompt: JsonObject = {name: granted.get(name) is not None for name in PROMPT_CAPABILITY_NAMES}
    mcp = declared.get("mcp")
    mcp = mcp if isinstance(mcp, dict) else {}
    out: JsonObject = {
        "loadSession": history or registry.hooks.load_session is not None,
        "promptCapabilities": prompt,
        "mcpCapabilities": {name: mcp.get(name) is not None for name in ("http", "sse")},
        "sessionCapabilities": session,
    }
    if logout:
        out["auth"] = {"logout": {}}
    if "_meta" in side.capabilities:
        out["_meta"] = side.capabilities["_meta"]
    return out


class V1AgentSide:
    """Dispatcher for a connection that negotiated v1, over `side` (shared with v2: the
    version is settled per connection), and the `AgentDialect` it hands `side.initialize`.
    `checks` (of what it sends) are built from `tables`."""

    version = V1
    sends_cancel_request = False  # v1 has no `$/cancel_request`

    def __init__(
        self,
        side: AgentSide,
        tables: V1Tables,
        extensions: Dispatcher | None = None,
        serves: Callable[[str], bool] = lambda method: False,
    ) -> None:
        """`tables`: v1's, with the repairs of what an agent receives; `serves(v2_method)`:
        whether the author overrode the typed handler of that v2 method (`extensions`), which
        then serves v1's renamed methods too."""
        self.side = side
        self.tables = tables
        self.checks = OutgoingChecks(sent=tables.client_specs, answered=tables.agent_specs)
        # Where extension methods (`_...`, free-form on every version) go: the author's
        # `ext_method` / `ext_notification` through the typed dispatcher.
        self._extensions = extensions
        self._renamed = RenamedMethods(extensions, serves, lambda: side.client_gates)
        # Older unstable v1's model selection: only when v1's tables have it (`--unstable`).
        self._models_known = any(spec.method == SET_MODEL for spec in tables.agent_specs)
        # Per session: prompts accepted and not yet taken up by a turn, and those taken up by
        # the running turn (answered when it reports idle). By the prompt's messageId.
        self._accepted: dict[str, dict[str, asyncio.Future[str | None]]] = {}
        self._in_turn: dict[str, dict[str, asyncio.Future[str | None]]] = {}
        # The dialects' callbacks, bound once: each session's dialect shares them.
        self._on_echo, self._on_idle = self._echoed, self._idle
        self._on_options = self._renamed.updated
        # AgentDialect: what writes each session's reports (`side.initialize` sets it up).
        self.session_dialect = self._dialect

    def checked(self) -> ValidatingDispatcher:
        """This adapter behind v1's checks (and tolerant repairs) of incoming messages."""
        return self.tables.checked(self.tables.agent_specs, self)

    async def handle_request(self, method: str, params: Any) -> Any:
        if method != INITIALIZE:
            self.side.registry.check(method, params)  # a session attached elsewhere: refused
        if method.startswith(EXTENSION_PREFIX) and self._extensions is not None:
            return await self._extensions.handle_request(method, params)
        if method == INITIALIZE:
            result = self.side.initialize(params, self)
        else:
            self.side.require_initialized()
            params = {} if params is None else params
            if not isinstance(params, dict):
                raise invalid([], "params must be an object")
            result = await self._session_request(method, params)
        self.checks.result(method, result)
        return result

    def synchronous_requests(self) -> frozenset[str]:
        """As v2's (`AgentSide.synchronous_requests`): v1's steps around them never suspend."""
        return self.side.synchronous_requests()

    async def handle_notification(self, method: str, params: Any) -> None:
        if not self.side.registry.allows(method, params):
            return  # names a session attached elsewhere (logged)
        if method == SESSION_CANCEL:
            self.side.cancel(params)
        elif method.startswith(EXTENSION_PREFIX) and self._extensions is not None:
            await self._extensions.handle_notification(method, params)
        else:
            logger.debug("v1: notification %r not handled", method)

    async def _session_request(self, method: str, params: JsonObject) -> JsonObject:
        registry = self.side.registry
        if method == SESSION_PROMPT:
            return await self._prompt(params)
        if method == SET_MODEL and not self._models_known:  # generated without --unstable
            raise RpcError.method_not_found(method)
        if method in V2_HANDLER:
            return await self._renamed.handle(method, params)
        if method == SESSION_NEW:
            result = await registry.new(params)
            session_id = result.get("sessionId")
        elif method == SESSION_LOAD:
            result, session_id = await self._load(params), params.get("sessionId")
        elif method == SESSION_RESUME:
            result, session_id = await registry.resume(params), params.get("sessionId")
        else:
            return await self._registry_request(method, params)
        commands = result.get(AVAILABLE_COMMANDS)
        if isinstance(commands, list) and isinstance(session_id, str):
            self._after_answer(session_id, commands)
        self._renamed.remember(session_id, result)
        return self._fields(method, result)

    async def _registry_request(self, method: str, params: JsonObject) -> JsonObject:
        if method in self.side.unstable.served:  # the same meaning in v1 (unstable_sessions.py)
            return await self.side.unstable.serve(method, params)
        if method in _REGISTRY:
            registry = self.side.registry
            result: JsonObject = await getattr(registry, _REGISTRY[method])(params)
            if method in (SESSION_CLOSE, SESSION_DELETE):
                self._renamed.forget(params.get("sessionId"))
            return result
        raise RpcError.method_not_found(method)

    # -- AgentDialect: `initialize` and each session's reports in v1's words ------------------

    def client_hello(self, params: JsonObject) -> tuple[JsonValue, JsonValue]:
        return params.get(CLIENT_CAPABILITIES), params.get(CLIENT_INFO)

    def hello(self, version: int) -> JsonObject:
        side = self.side
        return {
            "protocolVersion": version,
            AGENT_CAPABILITIES: v1_agent_capabilities(side, self._renamed.served(LOGOUT)),
            AGENT_INFO: side.info,
            "authMethods": v1_auth_methods(side.auth_methods),
        }

    def _dialect(self, session: AgentSession) -> V1SessionDialect:
        return V1SessionDialect(
            session.session_id,
            self.side.connection,
            self.checks,
            on_echo=self._on_echo,
            on_idle=self._on_idle,
            on_options=self._on_options,
            gates=self.side.client_gates,
        )

    def _echoed(self, session_id: str, message_id: str) -> None:
        future = self._accepted.get(session_id, {}).pop(message_id, None)
        if future is not None:
            self._in_turn.setdefault(session_id, {})[message_id] = future

    def _idle(self, session_id: str, reason: str | None) -> None:
        for future in self._in_turn.pop(session_id, {}).values():
            if not future.done():
                future.set_result(reason)

    def _after_answer(self, session_id: str, commands: list[JsonValue]) -> None:
        """v2 answers a new session with its commands; v1 tells them with an update, which
        must follow the answer (before it the client does not know the session)."""
        session = self.side.sessions.get(session_id)
        written = answer_written()
        if session is None or written is None:
            return

        async def tell() -> None:
            await asyncio.shield(written)
            update = {"sessionUpdate": AVAILABLE_COMMANDS_UPDATE, AVAILABLE_COMMANDS: commands}
            with contextlib.suppress(ConnectionClosed):
                await session.send_update(update)

        self.side.spawn(tell())

    def _fields(self, method: str, result: Mapping[str, JsonValue]) -> JsonObject:
        allowed = _RESULT_FIELDS[method]
        fields = {key: value for key, value in result.items() if key in allowed}
        if len(fields) + (AVAILABLE_COMMANDS in result) < len(result):  # some have no v1 form
            left = sorted(key for key in result if key not in allowed and key != AVAILABLE_COMMANDS)
            logger.debug("v1: %r result fields %s not sent (no v1 form)", method, left)
        if "configOptions" in fields:
            options = v1_config_options(fields["configOptions"])
            fields["configOptions"] = self.side.client_gates.config_options(options)
            modes = v1_modes(result["configOptions"])
            if "modes" not in fields and modes and self._renamed.served(SET_MODE):
                fields["modes"] = modes
            models = v1_models(result["configOptions"]) if self._models_known else None
            if "models" not in fields and models and self._renamed.served(SET_MODEL):
                fields["models"] = models
        return fields

    async def _prompt(self, params: JsonObject) -> JsonObject:
        """Accept the prompt as v2 does (its turn, queueing, cancellation), then answer once
        the turn it was taken up by reports idle."""
        session = self.side.registry.prompt_session_of(params)
        content = params.get("prompt")
        problems = prompt_content_problems(content, self.side.capabilities)
        if problems:
            raise RpcError.invalid_params(problems)
        # No problems: `content` is a list of objects.
        blocks = cast(list[JsonObject], content)
        prompt = Prompt(message_id=new_id("msg_user"), content=copy_json(blocks))
        ended: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._accepted.setdefault(session.session_id, {})[prompt.message_id] = ended
        # No answer to wait for: on v1 the answer is the turn's end.
        self.side.turns.accept(session, Accepted(prompt, None))
        try:
            reason = await ended
        finally:
            self._accepted.get(session.session_id, {}).pop(prompt.message_id, None)
            self._in_turn.get(session.session_id, {}).pop(prompt.message_id, None)
        stop = v1_stop_reason(reason)
        if stop is None:
            raise RpcError.internal_error(f"the turn ended {reason!r}")
        return {"stopReason": stop}

    async def _load(self, params: JsonObject) -> JsonObject:
        """Reopen the session and replay its history in v1's words (through a new dialect, so
        what it tracks matches what this client has seen), then answer."""
        registry = self.side.registry
        session = await registry.reopen(params)
        dialect = self._dialect(session)
        session.dialect = dialect
        for update in session.history:
            await dialect.send_update(update, replay=True)
        hook = registry.hooks.on_resume_session
        extra = await hook(session) if hook else None
        return dict(extra or {})
