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
- The leases of the sessions this process holds are kept alive while it serves them, idle
  or not: one task (`_keep_leases`, of `tasks`) renews them all in one statement every third
  of the store's `lease_seconds` (`renew`). A session the renewal finds held by another
  process is let go, and its client told, as when a write finds it (`watch`). A session no
  connection serves any more (its connection ended, detached, or `session/close`d) gives
  its lease up (`released`), so another process may claim it without a takeover.

A store that fails answers the request that needed it with -32603 "Session store
unavailable: <why>" (`unavailable`), at once or after the store's own bounded wait; a prompt
for a session whose updates could not be written is refused the same way (and a write is
tried again). Sessions in memory keep being served.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
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

logger = logging.getLogger(__name__)

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
        self.tasks = TaskOwner("session journals and leases")
        self._watchers: list[weakref.WeakMethod[LostHandler]] = []
        # The sessions whose lease this process holds (claimed, not released nor lost).
        self._held: dict[str, AgentSession] = {}
        self._keeper: asyncio.Task[None] | None = None
        self._leases = asyncio.Lock()  # a release and a claim of one session take turns
        self._restoring: set[str] = set()  # claimed by a restore still loading: not released
        # Seconds between renewals: well inside the lease, so one late renewal loses nothing.
        self.renew_every = store.lease_seconds / 3

    def watch(self, handler: LostHandler) -> None:
        """Call `handler` (a bound method: held weakly, so a connection's registry goes with
        its connection) with each session whose lease another process took."""
        self._watchers = [w for w in self._watchers if w() is not None]
        self._watchers.append(weakref.WeakMethod(handler))

    def _journal(self, session: AgentSession, next_seq: int) -> None:
        journal = Journal(self.store, session.session_id, self.owner, next_seq, self.tasks)
        journal.on_lost = partial(self._lost, session)
        session.journal = journal
        self._hold(session)

    def _hold(self, session: AgentSession) -> None:
        self._held[session.session_id] = session
        keeper = self._keeper
        if (keeper is None or keeper.done()) and not self.tasks.closing:
            self._keeper = self.tasks.spawn(self._keep_leases(), name="session leases")

    async def _keep_leases(self) -> None:
        """Renew the held leases while there are any (a task of `tasks`: ends with it)."""
        while self._held:
            await asyncio.sleep(self.renew_every)
            await self.renew()

    async def renew(self) -> None:
        """One renewal of every lease held (the keeper's step): a session the store no longer
        has as this process's is lost, as when a write finds it so. A store that cannot
        answer changes nothing here (the next renewal, or write, tries again)."""
        held = dict(self._held)
        if not held:
            return
        try:
            kept = await self.store.renew(self.owner, list(held))
        except Exception as error:  # an author's store too: the keeper must go on
            logger.warning("session leases not renewed: %r", error)
            return
        for session_id, session in held.items():
            if session_id not in kept and self._held.get(session_id) is session:
                journal = session.journal
                if journal is not None and not journal.lost:
                    journal.lost = True
                    journal.failure = f"session {session_id} is served by another process now"
                    logger.warning("%s: nothing more of it is written here", journal.failure)
                self._lost(session)

    async def released(self, session: AgentSession) -> None:
        """`session` is served by no connection here any more: its lease is given up (its
        updates written first), so another process may claim it without a takeover. A
        store that cannot answer leaves the lease to run out."""
        if self._held.get(session.session_id) is not session:
            return
        del self._held[session.session_id]
        with contextlib.suppress(StoreUnavailable):
            if session.journal is not None:
                await session.journal.flush()
            async with self._leases:
                session_id = session.session_id  # not claimed again meanwhile:
                if session_id not in self._held and session_id not in self._restoring:
                    await self.store.release(session_id, self.owner)

    async def close(self) -> None:
        """The agent is done: every lease held is given up and the journals' writes and the
        renewals stop."""
        for session in list(self._held.values()):
            await self.released(session)
        await self.tasks.close()

    def _lost(self, session: AgentSession) -> None:
        if self._held.get(session.session_id) is session:
            del self._held[session.session_id]
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
        self._held.pop(session.session_id, None)
        with contextlib.suppress(StoreUnavailable):
            await self.store.delete(session.session_id)

    async def restore(self, session: AgentSession) -> bool:
        """Fill `session` (made for a resume) from its record; False: not stored."""
        session_id = session.session_id
        self._restoring.add(session_id)
        try:  # claimed first: nobody else writes it from here, the load is all of it
            async with self._leases:
                if await self.store.claim(session_id, self.owner, take_over=True) is None:
                    return False
            record = await self.store.load(session_id)
            if record is None:
                return False
        except StoreUnavailable as error:
            raise unavailable(str(error), session_id) from None
        finally:
            self._restoring.discard(session_id)
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
            async with self._leases:
                ours = await self.store.claim(session.session_id, self.owner) == journal.written
                if ours:
                    self._hold(session)
            return ours
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
        self._held.pop(session_id, None)
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
