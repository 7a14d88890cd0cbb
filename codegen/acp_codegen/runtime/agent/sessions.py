"""The agent's session registry and the session methods the runtime serves from it.

Every agent served by the lifecycle implements the v2 session baseline, so it advertises
`capabilities.session`: `session/new`, `session/list`, `session/resume`, `session/close` (here),
`session/prompt` and `session/cancel` (answered by `agent_side`, run by `turns`).
`session/delete` is served, and advertised as `session.delete`, only when the author gives a
delete hook.

- `session/list`: known sessions this connection may see (its own, or detached: open or closed,
  in the order they were opened, then those `stored_sessions` reports), only those whose cwd
  equals `cwd` when given; pages of `page_size` with an opaque `nextCursor`.
- `session/close`: cancels the session's work (it ends idle `cancelled`), then answers `{}`
  (again `{}` for a session already closed). A closed session stays known (listed,
  resumable); prompts for it are refused (-32002) and its update helpers raise
  `ProtocolUsageError`. Prompts still waiting for the cancelled work are dropped.
- `session/resume`: reopens a known session with the new setup params; a session this process
  does not know is offered to `load_session`, else -32002. With `replayFrom: {"type": "start"}`
  the session's recorded history (the updates sent except state reports, runs of chunks kept
  as the whole message they start: history.py) is replayed as `session/update`s, then
  `replay_complete` (when the schema has it: v2 after 2.4.0; once, also for an empty replay,
  never without `replayFrom` nor after a failed send; a running turn's live updates held
  until it is out), then the last state report, before the answer; another type is -32602.

Child sessions (subagents) are sessions here too, registered when announced: subagents.py
says what the registry does with them (listing, refusals, cancel, close, replay).

Sessions live in a `SessionStore` (the connection's own, or one every connection of a served
agent shares), which also bounds how long and how many detached ones are kept. Each session
serves the connection it is attached to: what the others may do with it, and how a resume
takes it over, is session_owner.py's (`check`, `allows`, `reopen`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Final, cast

from ..core.client_gates import ClientGates
from ..core.turn_state import state_after_lost_turn
from ..rpc.outgoing_checks import OutgoingChecks
from ..rpc.peer import Peer
from ..state.history import DEFAULT_HISTORY_LIMIT, ChunkRun
from ..wire.errors import RpcError
from ..wire.jsonvalue import JsonObject, JsonValue, to_json
from ..wire.protocol import PARENT_SESSION_META, SESSION_UPDATE, SUPPORTED_PROTOCOL_VERSIONS
from .agent_session import AgentSession, new_id
from .durable_sessions import DurableSessions, check_writable, flush
from .handles import SessionDialect
from .session_owner import (
    ATTACHED_ELSEWHERE,
    ignored,
    live,
    refusal,
    session_id_of,
    session_named,
    tell_taken_over,
    unknown_session,
    visible_to,
)
from .session_owner import invalid as invalid  # also v1's (re-exported)
from .session_store import SessionStore
from .subagents import descendants
from .subagents import replay as replay_family
from .turns import TurnRunner

SessionHook = Callable[[AgentSession], Awaitable[Mapping[str, JsonValue] | None]]
# How `session/list` shows a session in memory: its SessionInfo, or None to leave it out.
Listing = Callable[["AgentSession", JsonObject], JsonObject | None]
DEFAULT_PAGE_SIZE = 50
REPLAY_FROM_START = "start"
EXPIRED: Final = "Session expired (detached too long, or past the agent's limits)"
CHILD: Final = "names a child session (a subagent): only session/cancel reaches it, if offered"


@dataclass(frozen=True, slots=True)
class SessionHooks:
    """What an author who keeps sessions beyond this process plugs in (all optional)."""

    on_new_session: SessionHook | None = None  # may return extra session/new result fields
    on_resume_session: SessionHook | None = None  # after reattach/replay; extra result fields
    on_close_session: Callable[[AgentSession], Awaitable[None]] | None = None
    # Restore a session this process does not know (fill title, history, ...); False: unknown.
    load_session: Callable[[AgentSession], Awaitable[bool]] | None = None
    # SessionInfo objects of stored sessions not opened in this process (for session/list).
    stored_sessions: Callable[[str | None], Awaitable[Sequence[object]]] | None = None
    on_delete_session: Callable[[str], Awaitable[None]] | None = None  # enables session/delete


def advertised_capabilities(declared: Mapping[str, Any], *, delete: bool) -> dict[str, Any]:
    """The author's capabilities plus what the runtime serves: `session` always (the baseline),
    `session.delete` exactly when session/delete is served."""
    capabilities = dict(declared)
    session = dict(capabilities.get("session") or {})
    if delete:
        session["delete"] = session.get("delete") or {}
    else:
        session.pop("delete", None)
    capabilities["session"] = session
    return capabilities


class SessionRegistry:
    def __init__(
        self,
        peer: Peer,
        runner: TurnRunner,
        checks: OutgoingChecks,
        hooks: SessionHooks,
        chunk_runs: Mapping[str, ChunkRun] | None = None,
        page_size: int = DEFAULT_PAGE_SIZE,
        live: frozenset[str] = frozenset(),
        history_limit: int | None = DEFAULT_HISTORY_LIMIT,
        replay_marker: bool = False,
    ) -> None:
        self._peer = peer
        # Whether the schema has v2's end-of-replay marker (`replay_complete`, after 2.4.0).
        self._replay_marker = replay_marker
        self._runner = runner
        self._checks = checks
        self._chunk_runs = dict(chunk_runs or {})
        self._live = live  # tags never kept for replay (history.live_tags)
        self.hooks = hooks
        self.page_size = page_size
        self.history_limit = history_limit  # per session, see AgentSession
        self.store = SessionStore()  # this connection's own, unless shared (share_sessions)
        self.durable: DurableSessions | None = None  # a durable store's (durable_sessions.py)
        self.client_capabilities: JsonValue = None
        self.client_gates = ClientGates(SUPPORTED_PROTOCOL_VERSIONS[-1], None)  # initialize sets
        # The wire dialect of each new session when the connection is not v2 (see
        # dialect.SessionDialect); set once the version is negotiated.
        self.dialect_for: Callable[[AgentSession], SessionDialect] | None = None
        # session/list's view of a session beyond `info` (unstable_sessions.py: archiving).
        self.listing: Listing | None = None
        self._adopting = self._adopt  # one bound method every session shares (not one each)

    @property
    def peer(self) -> Peer:
        """This connection."""
        return self._peer

    @property
    def sessions(self) -> dict[str, AgentSession]:
        return self.store.sessions

    @property
    def serves_delete(self) -> bool:
        return self.hooks.on_delete_session is not None

    def open(
        self, session_id: str | None = None, setup: Mapping[str, JsonValue] | None = None
    ) -> AgentSession:
        session_id = session_id or new_id("sess")
        session = self._session(session_id, setup or {})
        self.sessions[session_id] = session
        return session

    def _session(self, session_id: str, setup: Mapping[str, JsonValue]) -> AgentSession:
        session = AgentSession(
            session_id,
            self._peer,
            setup,
            self.client_capabilities,
            self._checks,
            self._chunk_runs,
            self._live,
            history_limit=self.history_limit,
            client_gates=self.client_gates,
        )
        session.speak(self.dialect_for)
        session.adopt = self._adopting
        return session

    async def _adopt(self, child: AgentSession) -> None:
        """Register a child session its parent is announcing (subagents.py), stored first."""
        if self.durable is not None:
            await self.durable.created(child)
        self.sessions[child.session_id] = child

    def check(self, method: str, params: JsonValue) -> None:
        """Refuse (RpcError) a request naming a session this connection may not use."""
        session = session_named(params, self.sessions)
        problem = None if session is None else refusal(session, method, self._peer)
        if problem is not None:
            raise problem
        if session is not None and session.parent is not None:
            raise invalid(["sessionId"], CHILD)

    def allows(self, method: str, params: JsonValue) -> bool:
        """Whether a notification naming a session is for this connection (else: logged)."""
        session = session_named(params, self.sessions)
        if session is None or refusal(session, method, self._peer) is None:
            return True
        ignored(method, session)
        return False

    def open_session_of(self, params: JsonValue) -> AgentSession:
        """The open session `params` name; -32002 when unknown or closed."""
        session_id = session_id_of(params)
        session = self.sessions.get(session_id)
        if session is None:
            raise unknown_session(session_id)
        if session.closed:
            raise unknown_session(session_id, "Session is closed (resume it first)")
        return session

    def prompt_session_of(self, params: JsonValue) -> AgentSession:
        """`open_session_of`, refused (-32603) when the session's updates cannot be stored."""
        session = self.open_session_of(params)
        check_writable(session)
        return session

    async def new(self, params: JsonObject) -> JsonObject:
        self.store.sweep()
        session = self.open(setup=params)
        hook, durable = self.hooks.on_new_session, self.durable
        try:
            if durable is not None:  # first: what the hook sends is stored too
                await durable.created(session)
            extra = await hook(session) if hook else None
            if durable is not None:
                durable.configured(session, extra or {})
        except BaseException:
            del self.sessions[session.session_id]
            if durable is not None:
                await durable.abandoned(session)
            raise
        return {**(extra or {}), "sessionId": session.session_id}

    async def list(self, params: JsonValue) -> JsonObject:
        params = params if isinstance(params, dict) else {}
        cwd = cast("str | None", params.get("cwd"))  # as the schema's checks let through
        self.store.sweep()
        infos: list[JsonValue] = []
        for session in self.sessions.values():
            if (cwd is None or session.cwd == cwd) and visible_to(session, self._peer):
                info = self.info(session) if self.listing is None else self.listing(session, params)
                if info is not None:
                    infos.append(info)
        if self.hooks.stored_sessions is not None:
            seen = set(self.sessions)  # those in memory are listed above, or not at all
            for stored in await self.hooks.stored_sessions(cwd):
                info = dict(cast("JsonObject", to_json(stored)))  # a SessionInfo model or its JSON
                if info.get("sessionId") not in seen and (cwd is None or info.get("cwd") == cwd):
                    infos.append(info)
        if self.durable is not None:  # stored, not in memory (not listed above either way)
            infos += await self.durable.listed(cwd, self.sessions)
        start = self._offset(params.get("cursor"), len(infos))
        end = start + self.page_size
        result: JsonObject = {"sessions": infos[start:end]}
        if end < len(infos):
            result["nextCursor"] = str(end)
        return result

    @staticmethod
    def _offset(cursor: JsonValue, total: int) -> int:
        if cursor is None:
            return 0
        if isinstance(cursor, str) and cursor.isdigit() and int(cursor) <= total:
            return int(cursor)
        raise invalid(["cursor"], "not a cursor this agent handed out")

    @staticmethod
    def info(session: AgentSession) -> JsonObject:
        info: JsonObject = {"sessionId": session.session_id, "cwd": session.cwd or "/"}
        directories = session.setup.get("additionalDirectories")
        if isinstance(directories, list) and directories:
            info["additionalDirectories"] = list(directories)
        if session.title is not None:
            info["title"] = session.title
        info["updatedAt"] = session.updated_at
        if session.parent is not None:
            info["_meta"] = {PARENT_SESSION_META: session.parent.session_id}
        return info

    async def close(self, params: JsonValue) -> JsonObject:
        session_id = session_id_of(params)
        known = self.sessions.get(session_id)
        if known is not None and known.closed:
            return {}  # closing twice changes nothing
        session = self.open_session_of(params)
        for each in (session, *descendants(session)):  # its children close with it
            await self._runner.stop(each)
            each.closed = True
        if self.hooks.on_close_session is not None:
            await self.hooks.on_close_session(session)
        if self.durable is not None:  # served by nobody now: free for any process to claim
            await self.durable.released(session)
        return {}

    async def resume(self, params: JsonObject) -> JsonObject:
        session_id = session_id_of(params)
        replay = params.get("replayFrom")
        replay_type = replay.get("type") if isinstance(replay, dict) else None
        if replay is not None and replay_type != REPLAY_FROM_START:
            raise invalid(["replayFrom", "type"], f"cannot replay from {replay_type!r}")
        session = await self.reopen(params)
        if replay is not None:
            # The history (its children's within) and the end-of-replay marker (live updates
            # held till then), then the session's current state (see the module doc).
            send = partial(self._peer.notify, SESSION_UPDATE)
            await replay_family(session, send, self._replay_marker and session.dialect is None)
            for update in filter(None, [session.last_state]):
                await send({"sessionId": session_id, "update": update})
        hook = self.hooks.on_resume_session
        extra = await hook(session) if hook else None
        return dict(extra or {})

    async def reopen(self, params: JsonObject) -> AgentSession:
        """The session `params` name, open again with them as its setup: a known one
        attached here, else one `load_session` restores; -32002 when neither. Taken from
        another live connection, the session's work there is cancelled and that connection
        told (`taken_over_notice`); its messages for the session are refused from now on."""
        session_id = session_id_of(params)
        self.store.sweep()
        session = self.sessions.get(session_id)
        if session is not None and self.durable and not await self.durable.still_ours(session):
            del self.sessions[session_id]  # another process took it over: read it back
            session = None
        if session is None:
            return await self._load(session_id, params)
        session.owner = self._peer  # before any await: the old owner is refused from here
        self.store.attach(session)
        moved = session.peer is not self._peer
        if moved:
            if not session.closed:
                await self._stop(session)
            if live(session.peer):
                await tell_taken_over(session, self._checks)
            if session.owner is not self._peer:  # a third connection took it meanwhile
                raise unknown_session(session_id, ATTACHED_ELSEWHERE)
        for each in (session, *descendants(session)):  # its children move and reopen with it
            each.attach(self._peer, params if each is session else each.setup, self.client_gates)
            each.adopt = self._adopting
            self.store.attach(each)
            if moved:  # it speaks this connection's version now, not the old connection's
                each.speak(self.dialect_for)
        return session

    async def taken_elsewhere(self, session: AgentSession) -> None:
        """Another process took `session` over (its lease in the durable store): served here,
        its work stops, it closes and its client is told, as a connection's takeover does."""
        if session.owner is self._peer and self.sessions.get(session.session_id) is session:
            if not session.closed:
                await self._stop(session)
            await tell_taken_over(session, self._checks)

    async def _load(self, session_id: str, params: JsonObject) -> AgentSession:
        session = self._session(session_id, params)
        if self.durable is not None and await self.durable.restore(session):
            for child in await self.durable.restore_children(session, self._session):
                self.sessions[child.session_id] = child
        elif self.hooks.load_session is None or not await self.hooks.load_session(session):
            expired = self.store.expired(session_id)
            raise unknown_session(session_id, EXPIRED if expired else "Unknown session")
        self.sessions[session_id] = session
        return session

    async def detach(self, peer: Peer) -> None:
        """`peer`'s connection is gone: the sessions attached to it (open or closed) stop
        their work, close and are detached: kept for a `session/resume` on another
        connection (where sessions are shared between connections), within the store's
        limits."""
        for session in list(self.sessions.values()):
            if session.owner is not peer:
                continue
            if not session.closed:
                await self._stop(session)
            await flush(session)  # what a durable store has not yet written
            if session.owner is peer:  # not resumed elsewhere meanwhile
                session.owner = None
                self.store.detach(session)
                if self.durable is not None:  # free for any process to claim
                    await self.durable.released(session)

    async def _stop(self, session: AgentSession) -> None:
        """Stop the work of the session and its children, and close them. Work that did not
        report idle is reported `cancelled` by the next resume (its idle reached nobody)."""
        for each in (session, *descendants(session)):
            await self._runner.stop(each)
            each.closed = True
            each.last_state = state_after_lost_turn(each.last_state)

    async def delete(self, params: JsonValue) -> JsonObject:
        hook = self.hooks.on_delete_session
        if hook is None:
            raise RpcError.method_not_found("session/delete")
        session_id = session_id_of(params)
        session = self.sessions.get(session_id)
        family = [] if session is None else [session, *descendants(session)]
        for each in family:
            await self._runner.stop(each)
            each.closed = True
        await hook(session_id)
        if self.durable is not None:
            await self.durable.deleted(session_id)  # its stored children too
        for gone in [session_id, *(each.session_id for each in family[1:])]:
            self.store.forget(gone)
        return {}
