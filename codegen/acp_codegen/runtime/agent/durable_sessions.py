"""An agent's sessions kept in a durable store (store/), beyond the process.

`DurableSessions` ties one `DurableStore` to the session registry (sessions.py) of every
connection of one agent:

- `session/new` keeps the session's record (`created`) before it is answered; each session
  gets a `Journal` that writes its updates in batches (store/journal.py; the session flushes
  it before each turn's idle report, and the registry when its connection ends).
- `session/list` lists the stored sessions not in memory after those in memory (`listed`).
- `session/resume` and v1's `session/load` of a session not in memory restore it from the
  store (`restore`): setup, title, the author's data, the history (folded again as it was
  recorded) and the last state report (idle `cancelled` if its turn was cut off). The session
  is claimed for this process (the store's lease, taken over: a resume takes a session over);
  the process that served it before finds out at its next write (`LeaseLost`) and lets it go.
- `session/delete` deletes it from the store too.
- A child session (a subagent, subagents.py) is kept like any session, its record's setup
  naming its parent (`_meta.parentSessionId`): listed with it, and restored with its parent
  (`restore_children`), linked to it again, and deleted with it.
- A resume of a session in memory first checks it is still this process's (`still_ours`):
  if another process took it over meanwhile, it is read back from the store instead.

A store that fails answers the request that needed it with -32603 "Session store
unavailable: <why>" (`unavailable`), at once or after the store's own bounded wait; a prompt
for a session whose updates could not be written is refused the same way (and a write is
tried again). Sessions in memory keep being served.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Coroutine, Mapping
from datetime import UTC, datetime
from functools import partial
from typing import Any, Final

from ..core.turn_state import state_after_lost_turn
from ..rpc.task_owner import TaskOwner
from ..store.durable import (
    DurableStore,
    LeaseLost,
    StoredSession,
    StoreUnavailable,
    owner_name,
)
from ..store.journal import Journal
from ..wire.errors import ErrorCode, RpcError
from ..wire.jsonvalue import JsonObject, JsonValue
from ..wire.protocol import PARENT_SESSION_META
from .agent_session import AgentSession
from .subagents import link, parent_named

UNAVAILABLE: Final = "Session store unavailable"


def unavailable(why: str, session_id: str | None = None) -> RpcError:
    """The answer to a request the store could not serve."""
    data: JsonObject = {"sessionStore": why}
    if session_id is not None:
        data["sessionId"] = session_id
    return RpcError(ErrorCode.INTERNAL_ERROR, f"{UNAVAILABLE}: {why}", data)


def iso(seconds: float) -> str:
    moment = datetime.fromtimestamp(seconds, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def stored_info(record: StoredSession) -> JsonObject:
    """A stored session's `SessionInfo`, as `SessionRegistry.info` writes one in memory."""
    info: JsonObject = {"sessionId": record.session_id, "cwd": record.cwd or "/"}
    directories = record.setup.get("additionalDirectories")
    if isinstance(directories, list) and directories:
        info["additionalDirectories"] = list(directories)
    if record.title is not None:
        info["title"] = record.title
    info["updatedAt"] = iso(record.updated_at)
    parent = parent_named(record.setup)
    if parent is not None:
        info["_meta"] = {PARENT_SESSION_META: parent}
    return info


# What a registry does with a session another process took over (sessions.py).
LostHandler = Callable[[AgentSession], Coroutine[Any, Any, None]]


class DurableSessions:
    """The sessions of one agent in `store` (see the module doc). Its journals' writes belong
    to `tasks`, which lives as long as the agent."""

    def __init__(self, store: DurableStore, owner: str | None = None) -> None:
        self.store = store
        self.owner = owner or owner_name()
        self.tasks = TaskOwner("session journals")
        self._watchers: list[weakref.WeakMethod[LostHandler]] = []

    def watch(self, handler: LostHandler) -> None:
        """Call `handler` (a bound method: held weakly, so a connection's registry goes with
        its connection) with each session whose lease another process took."""
        self._watchers = [w for w in self._watchers if w() is not None]
        self._watchers.append(weakref.WeakMethod(handler))

    def _journal(self, session: AgentSession, next_seq: int) -> None:
        journal = Journal(self.store, session.session_id, self.owner, next_seq, self.tasks)
        journal.on_lost = partial(self._lost, session)
        session.journal = journal

    def _lost(self, session: AgentSession) -> None:
        for watcher in self._watchers:
            handler = watcher()
            if handler is not None:
                self.tasks.spawn(handler(session), name=f"lost {session.session_id}")

    async def created(self, session: AgentSession) -> None:
        """Keep a new session's record (raises -32603 when the store cannot)."""
        record = StoredSession(
            session.session_id, cwd=session.cwd, setup=dict(session.setup), owner=self.owner
        )
        try:
            await self.store.create(record)
        except StoreUnavailable as error:
            raise unavailable(str(error), session.session_id) from None
        self._journal(session, 0)

    async def forked(self, child: AgentSession) -> None:
        """Keep a fork's record and the history it starts from (copied from its parent),
        written before the fork is answered (raises -32603 when the store cannot)."""
        await self.created(child)
        journal = child.journal
        if journal is not None:
            for update in child.history:
                journal.add(update)
            try:
                await journal.flush()
            except StoreUnavailable as error:
                raise unavailable(str(error), child.session_id) from None

    @staticmethod
    def configured(session: AgentSession, extra: Mapping[str, JsonValue]) -> None:
        """The config options `session/new` answers with, kept with the next write."""
        config = extra.get("configOptions")
        if session.journal is not None and config is not None:
            session.journal.note_config(config)

    async def abandoned(self, session: AgentSession) -> None:
        """A new session nobody was told about (its hook failed): gone from the store too,
        as far as the store can say now."""
        if session.journal is not None:
            session.journal.lost = True  # nothing more of it is written
        with contextlib.suppress(StoreUnavailable):
            await self.store.delete(session.session_id)

    async def restore(self, session: AgentSession) -> bool:
        """Fill `session` (made for a resume) from its record; False: not stored."""
        session_id = session.session_id
        try:  # claimed first: nobody else writes it from here, the load is all of it
            if await self.store.claim(session_id, self.owner, take_over=True) is None:
                return False
            record = await self.store.load(session_id)
            if record is None:
                return False
        except StoreUnavailable as error:
            raise unavailable(str(error), session_id) from None
        session.title = record.title
        session.updated_at = iso(record.updated_at)
        session.data = record.data
        session.prompt_keys.update(record.prompt_keys)  # oldest first: the LRU order
        session.restore_history(record.history)
        session.last_state = state_after_lost_turn(record.last_state)
        self._journal(session, record.next_seq)
        return True

    async def restore_children(
        self, parent: AgentSession, make: Callable[[str, JsonObject], AgentSession]
    ) -> list[AgentSession]:
        """The stored children of `parent` (just restored), and theirs, each restored (a
        session `make` builds from its id and setup) and linked to its parent again."""
        try:
            records = await self.store.list(None)
        except StoreUnavailable as error:
            raise unavailable(str(error), parent.session_id) from None
        restored: list[AgentSession] = []
        for record in records:
            if parent_named(record.setup) == parent.session_id:
                child = make(record.session_id, record.setup)
                if await self.restore(child):
                    link(parent, child)
                    restored += [child, *await self.restore_children(child, make)]
        return restored

    async def still_ours(self, session: AgentSession) -> bool:
        """Whether this process still holds `session` (in memory) in the store: its lease
        taken again unless another process holds it, and nobody else wrote it meanwhile
        (else the store's copy is newer). A store that cannot answer leaves the session
        served from memory."""
        journal = session.journal
        if journal is None or journal.lost:
            return journal is None
        try:
            await journal.flush()  # what is buffered first: then the counts must agree
            return await self.store.claim(session.session_id, self.owner) == journal.written
        except LeaseLost:
            return False
        except StoreUnavailable:
            return True

    async def listed(self, cwd: str | None, known: Mapping[str, object]) -> list[JsonObject]:
        """`SessionInfo`s of the stored sessions not in `known` (those in memory)."""
        try:
            records = await self.store.list(cwd)
        except StoreUnavailable as error:
            raise unavailable(str(error)) from None
        return [stored_info(r) for r in records if r.session_id not in known]

    async def deleted(self, session_id: str) -> None:
        """Delete the session's record, and its children's (subagents), whether in memory or
        not."""
        try:
            for record in await self.store.list(None):
                if parent_named(record.setup) == session_id:
                    await self.deleted(record.session_id)
            await self.store.delete(session_id)
        except StoreUnavailable as error:
            raise unavailable(str(error), session_id) from None


def check_writable(session: AgentSession) -> None:
    """Refuse (-32603) a prompt for a session whose updates could not be written, and try
    writing again, so a prompt after the store recovers is served."""
    journal = session.journal
    if journal is None or journal.failure is None:
        return
    why = journal.failure
    if not journal.lost:
        journal.retry()
    raise unavailable(why, session.session_id)


async def flush(session: AgentSession) -> None:
    """Write what the session's journal holds (a failure is the journal's to report)."""
    if session.journal is not None:
        with contextlib.suppress(StoreUnavailable):
            await session.journal.flush()
