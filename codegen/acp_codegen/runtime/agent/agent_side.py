"""The agent's half of the v2 lifecycle, as a `Dispatcher` working on wire JSON.

`AgentSide` answers `initialize` and the session surface: `session/new`, `session/list`,
`session/resume`, `session/close` and `session/delete` come from the session registry
(`sessions`), `session/prompt` and `session/cancel` from the turn runner (`turns`); every
other method goes to `fallback` (e.g. the generated `TableDispatcher`), else -32601 (-32602 for
a `tool_call/cancel` or `terminal/cancel` nothing serves). The
capabilities in the `initialize` answer are the author's plus what is served (`session`, and
`session.delete` when a delete hook is given), never declared by hand.

A prompt turn, as the prompt-lifecycle page prescribes:

1. `session/prompt` is checked (initialized, open session, content allowed by the agent's
   prompt capabilities; otherwise a JSON-RPC error) and answered at once, batched or not, with
   the insertion receipt `{"messageId": ...}` (the user message reported next), or with what
   an older draft's schema requires (`prompt_result`: `{}` for drafts before the receipt).
2. After that answer is written, the agent reports `user_message` (with a messageId it
   generates), then `state_update` running, then awaits `on_prompt(session, prompt)`, the
   author's turn handler.
3. The handler's return value is the stop reason (None means `end_turn`); the turn ends with
   an idle `state_update` carrying it.

A prompt accepted while a turn is running is answered the same way (step 1) and echoed as a
`user_message` in acceptance order. The handler can collect such prompts with
`session.take_prompts()`; those it has not taken when it returns are handed to `on_prompt` one
by one within the same foreground work (still running, no idle in between). See `turns` for
cancellation. A prompt whose `idempotencyKey` the session has seen (prompts.py) accepts
nothing: it is answered with the receipt the first one got, also while that one still runs.

What depends on the protocol version is said by an `AgentDialect` (dialect.py): v2's here;
v1's adapter (`v1.agent_side.V1AgentSide`) serves v1's requests over this same object and hands
its dialect to `initialize`.

Everything the agent answers or sends is validated against the schema's types when `checks`
(built by generated code from its method tables) is given.

Errors: -32600 before `initialize`, -32602 for malformed params or content the prompt
capabilities do not allow (with `loc`), -32002 for an unknown or closed session, or one
attached to another connection (session_owner.py: every method naming a session, the
author's included, is checked before it is served; a notification for such a session is
ignored).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any

from ..core.client_gates import ClientGates
from ..core.prompt_content import prompt_content_problems
from ..core.versions import check_initialized, negotiate
from ..rpc.connection import Connection, answer_written
from ..rpc.dispatch import Dispatcher
from ..rpc.outgoing_checks import NoChecks, OutgoingChecks
from ..rpc.task_owner import TaskOwner
from ..rpc.version_router import VersionedDispatcher
from ..state.history import DEFAULT_HISTORY_LIMIT, chunk_runs, live_tags
from ..wire.errors import ErrorCode, RpcError
from ..wire.jsonvalue import JsonObject, JsonValue, copy_json
from ..wire.protocol import (
    CANCELLABLE,
    INITIALIZE,
    REPLAY_COMPLETE,
    SESSION_CANCEL,
    SESSION_CLOSE,
    SESSION_DELETE,
    SESSION_LIST,
    SESSION_NEW,
    SESSION_PROMPT,
    SESSION_RESUME,
    SUPPORTED_PROTOCOL_VERSIONS,
)
from ..wire.tables import MergeRule
from . import prompts
from .agent_session import Accepted, AgentSession, Prompt, new_id
from .dialect import AgentDialect, V2AgentWire, VersionDialect
from .durable_sessions import DurableSessions, flush
from .session_store import SessionStore
from .sessions import (
    SessionHook,
    SessionHooks,
    SessionRegistry,
    advertised_capabilities,
    invalid,
)
from .turns import PromptHandler, TurnRunner
from .unstable_sessions import SESSION_FORK, ForkHook, UnstableSessions, unstable_capabilities

__all__ = ["AgentDialect", "AgentSide", "PromptHandler", "SessionHook", "SessionHooks"]


class AgentSide:
    """Dispatcher for an agent's connection. `info` is the agent's `Implementation` object,
    `capabilities` its `AgentCapabilities` as declared by the author (prompt capabilities are
    read from it; `session` and `session.delete` are added as served)."""

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
        session_hooks: SessionHooks | None = None,
        checks: OutgoingChecks | None = None,
        rules: Mapping[str, MergeRule] | None = None,
        fallback: Dispatcher | None = None,
        prompt_result: Callable[[Prompt], dict[str, Any]] = lambda prompt: {
            "messageId": prompt.message_id
        },
        history_limit: int | None = DEFAULT_HISTORY_LIMIT,
        durable: DurableSessions | None = None,
        unstable: frozenset[str] = frozenset(),
        on_fork: ForkHook | None = None,
    ) -> None:
        """`unstable`: the unstable session methods the package has (unstable_sessions.py),
        served and advertised here; `on_fork`: the author's hook for `session/fork`."""
        if not protocol_versions:
            raise ValueError("an agent must support at least one protocol version")
        hooks = session_hooks or SessionHooks()
        if on_new_session is not None:
            hooks = SessionHooks(**{**_fields(hooks), "on_new_session": on_new_session})
        self.connection = connection
        self.info = dict(info)
        self.checks = checks or NoChecks()
        self.auth_methods = [dict(method) for method in auth_methods]
        self.protocol_versions = tuple(protocol_versions)
        self._fallback = fallback
        # The `session/prompt` answer for an accepted prompt: by default v2's insertion receipt
        # `{"messageId": ...}` (the reported user_message's id); a package generated from a
        # draft before the receipt passes its own (`{}`).
        self._prompt_result_of = prompt_result
        # The work of this connection's sessions (turns, echoes): the connection owns it, so
        # its end cancels that work and waits for it (then detaches shared sessions).
        self.tasks = TaskOwner("an agent side")
        self._detaches = False  # share_sessions: sessions detach when the connection ends
        connection.tasks.on_close(self._connection_ended)
        self.turns = TurnRunner(on_prompt, self.checks, self.spawn)
        # `rules` (the generated MERGE_RULES) say which runs of chunks a session's history
        # keeps as one whole update (history.py); without them every update is kept.
        runs = chunk_runs(rules or {})
        live = live_tags(rules or {})
        self.registry = SessionRegistry(
            connection,
            self.turns,
            self.checks,
            hooks,
            runs,
            live=live,
            history_limit=history_limit,
            replay_marker=REPLAY_COMPLETE in (rules or {}),
        )
        # Sessions kept beyond the process (durable_sessions.py); None: in memory only.
        self.registry.durable = durable
        if durable is not None:  # a session another process takes is closed here, its client told
            durable.watch(self.registry.taken_elsewhere)
        self.capabilities = advertised_capabilities(
            capabilities or {}, delete=self.registry.serves_delete
        )
        self.unstable = UnstableSessions(self.registry, unstable, on_fork)
        for name, value in unstable_capabilities(self.unstable.served).items():
            self.capabilities["session"].setdefault(name, value)
        # v2's wire, `initialize`'s default dialect (a v1 adapter passes its own).
        self.v2_wire = V2AgentWire(self.info, self.capabilities, self.auth_methods)
        self.initialized = False
        self.protocol_version: int | None = None
        self.client_capabilities: JsonValue = None
        self.client_gates = ClientGates(max(protocol_versions), None)  # until initialize
        self.client_info: JsonValue = None

    @property
    def sessions(self) -> dict[str, AgentSession]:
        return self.registry.sessions

    # -- Dispatcher -----------------------------------------------------------------------------

    async def handle_request(self, method: str, params: Any) -> Any:
        if method != INITIALIZE:
            self.registry.check(method, params)  # a session attached elsewhere: refused
        if method == SESSION_PROMPT:
            return self._prompt(params)  # checked before the prompt is accepted
        if method == INITIALIZE:
            result = self.initialize(params)
        elif method in _REGISTRY_METHODS or method in self.unstable.served:
            self.require_initialized()
            if params is None:
                params = {}  # JSON-RPC lets a request omit params; the check saw `{}` as well
            if not isinstance(params, dict):
                raise invalid([], "params must be an object")
            if method in _REGISTRY_METHODS:
                result = await getattr(self.registry, _REGISTRY_METHODS[method])(params)
            else:
                result = await self.unstable.serve(method, params)
        elif self._fallback is not None:
            try:
                return await self._fallback.handle_request(method, params)
            except RpcError as error:
                raise _not_cancellable(method, params, error) from None
        else:
            raise _not_cancellable(method, params, RpcError.method_not_found(method))
        try:
            self.checks.result(method, result)  # our own answers fit the schema too
        except Exception:
            session_id = result.get("sessionId")
            if method in (SESSION_NEW, SESSION_FORK) and isinstance(session_id, str):
                gone = self.sessions.pop(session_id, None)  # nobody was told about it
                if gone is not None and self.registry.durable is not None:
                    await self.registry.durable.abandoned(gone)
            raise
        return result

    def versioned(self, v2: Dispatcher, other: VersionDialect | None = None) -> Dispatcher:
        """The connection's dispatcher: `v2` (this lifecycle behind v2's checks) and, given
        the adapter of another version, that adapter behind its checks, chosen by the version
        `initialize` negotiates (as `ClientSide.versioned` does on the client side)."""
        if other is None:
            return v2
        return VersionedDispatcher(
            {**dict.fromkeys(SUPPORTED_PROTOCOL_VERSIONS, v2), other.version: other.checked()},
            version=lambda: self.protocol_version,
            default=max(self.protocol_versions),
            for_initialize=lambda params: negotiate(params, self.protocol_versions),
            connection=self.connection,  # answered `initialize`, it talks to that version directly
        )

    def synchronous_requests(self) -> frozenset[str]:
        """`initialize`, and `session/new` when neither a hook of the author's nor a durable
        store serves it: answered within the read that brought them (no task for them)."""
        if self.registry.hooks.on_new_session is None and self.registry.durable is None:
            return frozenset({INITIALIZE, SESSION_NEW})
        return frozenset({INITIALIZE})

    async def handle_notification(self, method: str, params: Any) -> None:
        if not self.registry.allows(method, params):
            return  # names a session attached elsewhere (logged)
        if method == SESSION_CANCEL:
            self.cancel(params)
        elif self._fallback is not None:
            await self._fallback.handle_notification(method, params)

    # -- sessions -------------------------------------------------------------------------------

    def open_session(
        self, session_id: str | None = None, setup: Mapping[str, Any] | None = None
    ) -> AgentSession:
        """Register a session (session/new does this)."""
        return self.registry.open(session_id, setup)

    def share_sessions(self, store: SessionStore) -> None:
        """Serve the sessions of `store`, shared by every connection of an agent served
        remotely, instead of this connection's own, so a client that lost its connection
        resumes its sessions on the next one. When this connection ends, the sessions
        attached to it are detached (`SessionRegistry.detach`), kept within the store's
        limits."""
        self.registry.store = store
        self._detaches = True

    async def _connection_ended(self) -> None:
        """Run by the connection's close: its sessions' work is cancelled and waited for; a
        shared store's sessions are then detached."""
        await self.tasks.close()
        if self.registry.durable is not None:
            for session in list(self.sessions.values()):
                if session.owner is self.connection:
                    await flush(session)  # what a durable store has not yet written
        if self._detaches:
            await self.registry.detach(self.connection)

    async def aclose(self) -> None:
        """Cancel every running turn of this connection's sessions and wait for the runners
        to finish."""
        for session in self.sessions.values():
            if session.owner is not self.connection:
                continue  # another connection's, in a shared store
            if session.turn is not None and session.turn.task is not None:
                session.turn.task.cancel()
        await self.tasks.wait()

    def spawn(self, coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run `coroutine` in a task this side keeps (`tasks`), waited for in `aclose` and
        cancelled when the connection ends."""
        return self.tasks.spawn(coroutine)

    def require_initialized(self) -> None:
        check_initialized(self.initialized)  # the core's rule (core.versions)

    def screen(self, method: str, params: Any) -> None:
        """Checks that come before the params are validated against this version's types: the
        version an `initialize` asks for (-32022 when this agent serves none at or below it)."""
        if method == INITIALIZE:
            negotiate(params, self.protocol_versions)

    def initialize(self, params: JsonValue, dialect: AgentDialect | None = None) -> JsonObject:
        """Answer `initialize` in `dialect`'s words: the version negotiated, what the client
        said of itself kept, this connection's sessions written in that version's words."""
        dialect = dialect or self.v2_wire
        version = negotiate(params, self.protocol_versions)
        if dialect.version is not None and version != dialect.version:
            # routing sends only that version's `initialize` there: a mismatch is a wiring bug
            raise RpcError.internal_error(
                f"v{dialect.version} dispatcher asked to serve version {version}"
            )
        assert isinstance(params, dict)  # negotiate read a version from it
        capabilities, self.client_info = dialect.client_hello(params)
        self.protocol_version = version
        self.client_capabilities = capabilities or {}
        self.registry.client_capabilities = self.client_capabilities
        # What the client may be sent, and in which form (core/client_gates.py).
        self.client_gates = ClientGates(version, self.client_capabilities)
        self.registry.client_gates = self.client_gates
        self.registry.dialect_for = dialect.session_dialect
        self.connection.sends_cancel_request = dialect.sends_cancel_request
        self.initialized = True
        answer = dialect.hello(version)
        methods = answer.get("authMethods")
        if isinstance(methods, list):
            answer["authMethods"] = self.client_gates.auth_methods(methods)
        return answer

    # -- prompt turns ---------------------------------------------------------------------------

    def _prompt(self, params: Any) -> dict[str, Any]:
        """Accept a prompt. Synchronous on purpose: the prompt gets its place before any other
        message is handled; its turn starts speaking only once this answer is written."""
        self.require_initialized()
        session = self.registry.prompt_session_of(params)
        content = params.get("prompt")
        problems = prompt_content_problems(content, self.capabilities)
        if problems:
            raise RpcError.invalid_params(problems)
        key = params.get("idempotencyKey")  # v2 after 2.4.0 (prompts.py); checked: a str
        first = prompts.seen(session.prompt_keys, key) if key is not None else None
        if first is not None:  # a retry: nothing inserted, nothing run, the first answer
            return self._prompt_result(Prompt(message_id=first, content=[]))
        prompt = Prompt(message_id=new_id("msg_user"), content=copy_json(content))
        result = self._prompt_result(prompt)
        self.checks.result(SESSION_PROMPT, result)  # an invalid answer accepts nothing
        self.turns.accept(session, Accepted(prompt, answer_written()))
        if key is not None:
            prompts.remember(session.prompt_keys, key, prompt.message_id)
            if session.journal is not None:  # a durable store: with the user message
                session.journal.remember_key(key, prompt.message_id)
        return result

    def _prompt_result(self, prompt: Prompt) -> dict[str, Any]:
        """The one place the `session/prompt` answer is built."""
        return self._prompt_result_of(prompt)

    def cancel(self, params: Any) -> None:
        """`session/cancel`: cancel the named session's work (unknown sessions: nothing)."""
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        session = self.sessions.get(session_id) if isinstance(session_id, str) else None
        if session is not None:
            self.turns.cancel(session)


_REGISTRY_METHODS = {
    SESSION_NEW: "new",
    SESSION_LIST: "list",
    SESSION_RESUME: "resume",
    SESSION_CLOSE: "close",
    SESSION_DELETE: "delete",
}


def _fields(hooks: SessionHooks) -> dict[str, Any]:
    return {name: getattr(hooks, name) for name in SessionHooks.__slots__}


def _not_cancellable(method: str, params: Any, error: RpcError) -> RpcError:
    """`tool_call/cancel` and `terminal/cancel` that no handler serves: the protocol's answer
    is -32602 (the tool call or terminal is unknown, finished or not cancellable), not -32601;
    an author who advertises `capabilities.cancel` overrides the typed handler."""
    field = CANCELLABLE.get(method)
    if field is None or error.code != ErrorCode.METHOD_NOT_FOUND:
        return error
    named = params.get(field) if isinstance(params, dict) else None
    return invalid([field], f"{field} {named!r} is not cancellable (unknown, or not advertised)")
