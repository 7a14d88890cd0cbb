"""The unstable session methods, served from the session registry when a package has them.

A package generated with `--unstable` carries upstream's unstable session methods; its `Agent`
passes their names (`served`) and the runtime serves them, advertising each in `initialize`
(`session.fork`, `session.title`, `session.archive`, `session.status`; v1's `initialize` lists
them in `sessionCapabilities`, and v1's adapter serves them the same way). A package without
them passes none: nothing here is served or advertised.

- `session/fork`: a new session, attached to this connection, with the setup the request gives
  (cwd, directories, MCP servers) and a copy of the named session's history, so a
  `session/resume` with replay shows it; the announcements of its child sessions (subagents)
  are left out of the copy: the children stay the named session's. The author's `on_fork`
  hook (parent, child) may refuse (raise `RpcError`) or return extra result fields
  (`configOptions`, ...); the new session is dropped when it raises. Answer
  `{"sessionId": ...}`.
- `session/set_title`: the title is stored on any session this connection may see (unknown:
  -32002); an open session attached here also tells the client (`session_info_update`), as
  `AgentSession.set_title` does. Blank titles are -32602. Answer `{"title": <stored>}`.
- `session/archive` / `session/unarchive`: an archived session is closed first (its work
  cancelled, as `session/close` does) and left out of `session/list` unless the list asks
  (`archived`: `include` or `only`); both succeed when repeated. Unknown: -32002. The mark is
  kept in the session store (shared by the connections of a served agent, forgotten with a
  deleted or dropped session).
- `session/status`: `open` (with its last state report) for a session in memory and not closed,
  `saved` for one known but closed or detached; unknown: -32002.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Final

from ..wire.errors import RpcError
from ..wire.jsonvalue import JsonObject, JsonValue, copy_json
from ..wire.protocol import SUBAGENT_UPDATE, UPDATE_TAG_FIELD
from .agent_session import AgentSession
from .session_owner import invalid, session_id_of, unknown_session
from .sessions import SessionRegistry

SESSION_FORK: Final = "session/fork"
SESSION_SET_TITLE: Final = "session/set_title"
SESSION_ARCHIVE: Final = "session/archive"
SESSION_UNARCHIVE: Final = "session/unarchive"
SESSION_STATUS: Final = "session/status"
# Method -> the `capabilities.session` member that advertises it.
CAPABILITIES: Final = {
    SESSION_FORK: "fork",
    SESSION_SET_TITLE: "title",
    SESSION_ARCHIVE: "archive",
    SESSION_UNARCHIVE: "archive",
    SESSION_STATUS: "status",
}
ARCHIVE_FILTERS: Final = ("exclude", "include", "only")
FORK_SETUP: Final = ("cwd", "additionalDirectories", "mcpServers")

ForkHook = Callable[[AgentSession, AgentSession], Awaitable[Mapping[str, JsonValue] | None]]


def unstable_capabilities(served: frozenset[str]) -> dict[str, JsonObject]:
    """The `capabilities.session` members the served methods call for."""
    return {CAPABILITIES[method]: {} for method in sorted(served) if method in CAPABILITIES}


class UnstableSessions:
    """Serves `served` (a subset of `CAPABILITIES`' methods) over `registry`."""

    def __init__(
        self, registry: SessionRegistry, served: frozenset[str], on_fork: ForkHook | None = None
    ) -> None:
        self.registry = registry
        self.served = served & frozenset(CAPABILITIES)
        self.on_fork = on_fork
        if SESSION_ARCHIVE in self.served:
            registry.listing = self._listing

    async def serve(self, method: str, params: JsonObject) -> JsonObject:
        if method == SESSION_FORK:
            return await self.fork(params)
        if method == SESSION_SET_TITLE:
            return await self.set_title(params)
        if method == SESSION_ARCHIVE:
            return await self.archive(params)
        if method == SESSION_UNARCHIVE:
            self.registry.store.archived.discard(self._known(params).session_id)
            return {}
        if method == SESSION_STATUS:
            return self.status(params)
        raise RpcError.method_not_found(method)

    def _known(self, params: JsonValue) -> AgentSession:
        session_id = session_id_of(params)
        session = self.registry.sessions.get(session_id)
        if session is None:
            raise unknown_session(session_id)
        return session

    async def fork(self, params: JsonObject) -> JsonObject:
        parent = self._known(params)
        self.registry.store.sweep()  # as session/new does
        setup: JsonObject = {key: params[key] for key in FORK_SETUP if key in params}
        child = self.registry.open(setup=setup)
        # The recorder starts over from the copy; the parent's children stay the parent's.
        kept = [u for u in parent.history if u.get(UPDATE_TAG_FIELD) != SUBAGENT_UPDATE]
        child.history[:] = copy_json(kept)
        durable = self.registry.durable
        try:
            if durable is not None:  # a durable store keeps the fork and its history first
                await durable.forked(child)
            extra = await self.on_fork(parent, child) if self.on_fork else None
        except BaseException:
            del self.registry.sessions[child.session_id]
            if durable is not None:
                await durable.abandoned(child)
            raise
        return {**(extra or {}), "sessionId": child.session_id}

    async def set_title(self, params: JsonObject) -> JsonObject:
        session = self._known(params)
        title = params.get("title")
        if not isinstance(title, str) or not title.strip():
            raise invalid(["title"], "title must be a non-blank string")
        title = title.strip()
        if not session.closed and session.owner is self.registry.peer:
            await session.set_title(title)  # session_info_update, and the stored title
        else:
            session.title = title
        return {"title": title}

    async def archive(self, params: JsonObject) -> JsonObject:
        session = self._known(params)
        if not session.closed:
            await self.registry.close(params)  # as session/close: work cancelled, hook run
        self.registry.store.archived.add(session.session_id)
        return {}

    def status(self, params: JsonObject) -> JsonObject:
        session = self._known(params)
        if session.closed or session.owner is None:
            return {"status": "saved"}
        result: JsonObject = {"status": "open"}
        if session.last_state is not None:  # the report, without its update tag
            state = {k: v for k, v in session.last_state.items() if k != UPDATE_TAG_FIELD}
            result["state"] = copy_json(state)
        return result

    def _listing(self, session: AgentSession, params: JsonObject) -> JsonObject | None:
        """`session/list`'s archive filter (absent: archived sessions left out); an archived
        session listed says so (`archived: true`)."""
        wanted = params.get("archived") or "exclude"
        if wanted not in ARCHIVE_FILTERS:
            raise invalid(["archived"], f"archive filter {wanted!r} is not served")
        archived = session.session_id in self.registry.store.archived
        if wanted != "include" and archived != (wanted == "only"):
            return None
        info = self.registry.info(session)
        if archived:
            info["archived"] = True
        return info
