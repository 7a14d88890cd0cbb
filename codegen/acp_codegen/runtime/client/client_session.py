"""One session on the client side (`ClientSession`): its folded state, prompting, cancelling.

`prompt` refuses, with `ProtocolUsageError` and nothing sent, a prompt before initialization
and session setup, for a closed session or one another connection took over, or content the
agent's prompt capabilities do not allow. What it returns
depends on the version negotiated (see `prompt`); `run_turn` is the same on both.
`cancel` sends `session/cancel`, marks the unfinished tool calls of the current active work
cancelled (`SessionState.mark_cancelled`) and answers every pending
`session/request_permission` with the cancelled outcome; updates arriving later are still
applied.

What an update or a prompt means for the session's lifecycle (taken over, a turn's end, a
prompt refused) is the core's (`core.client_view.SessionView`, which `ClientSession` is); this
module is its async adapter: it sends, waits and wakes waiters.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import Any, Final, Generic, Literal, Protocol

from pydantic import BaseModel
from typing_extensions import TypeVar  # a TypeVar default (PEP 696) before Python 3.13

from ..core.client_view import SessionView
from ..rpc.connection import Connection
from ..rpc.task_owner import TaskOwner
from ..state.merge_plan import REPLAY_ENTITY
from ..state.session_state import SessionState
from ..wire.errors import ConnectionClosed, MalformedUpdateError, ProtocolUsageError
from ..wire.jsonvalue import JsonValue, as_object
from ..wire.protocol import SESSION_CANCEL, SESSION_CLOSE, STATE_IDLE, is_taken_over_notice
from .permission_request import PermissionRequest

logger = logging.getLogger(__name__)

# How the replay of the last `session/resume` with `replayFrom` ended (v2): "complete" when
# the agent's `replay_complete` came or the resume was answered (an agent from before the
# marker ends its replay with the answer), "truncated" when it failed or the connection was
# lost before either.
ReplayStatus = Literal["complete", "truncated"]
REPLAY_FROM: Final = "replayFrom"

# The static type of a session's snapshot: generated clients bind it to their `SessionSnapshot`
# TypedDict, so `session.snapshot()` is typed; a bare `ClientSession` reads as a Mapping.
SnapshotT_co = TypeVar("SnapshotT_co", covariant=True, default=Mapping[str, Any])


class SessionHost(Protocol):
    """What a session needs of its client (`client_side.ClientSide`)."""

    connection: Connection

    def new_state(self) -> SessionState[Any]: ...
    def is_state_update(self, update: JsonValue | BaseModel) -> bool: ...
    def check_prompt(self, session_id: str, content: JsonValue) -> None: ...
    async def send_prompt(
        self, session: ClientSession[Any], blocks: list[JsonValue], key: str | None = None
    ) -> str | None: ...
    async def request(self, method: str, params: JsonValue) -> JsonValue: ...
    async def notify(self, method: str, params: JsonValue) -> None: ...


class ChildHost(SessionHost, Protocol):
    """A client that registers the child sessions its sessions announce."""

    sessions: dict[str, Any]


def adopt_child(client: ChildHost, child_id: str) -> None:
    """Register a child session a parent announced (`subagent_update`) so that its own updates
    fold into its state: the agent sends them unasked, with no setup first (a child already
    known, or a session set up here with that id, is kept as it is). Its `parent_id` is the
    session whose state holds it (looked for once per child, not per update)."""
    if child_id in client.sessions:
        return
    child = client.sessions[child_id] = ClientSession(client, child_id)
    for session_id, session in client.sessions.items():
        if session_id != child_id and session.state.holds_child(child_id):
            child.parent_id = session_id
            break


def apply_early(
    sessions: Mapping[str, ClientSession[Any]], early: dict[str, list[JsonValue]], first: str
) -> None:
    """Fold the updates kept while a setup was under way: `first`'s (the session set up), then
    those of the children its updates announced (a replay replays theirs too), and theirs."""
    for update in early.pop(first, []):
        sessions[first].apply(update, owned=True)
    while children := [k for k in early if k in sessions and sessions[k].parent_id]:
        for child in children:
            for update in early.pop(child):
                sessions[child].apply(update, owned=True)


class ClientSession(SessionView, Generic[SnapshotT_co]):
    """One session on the client side: its folded state, prompting and cancelling.
    `parent_id`: for a child session a parent announced, that parent (else None)."""

    parent_id: str | None = None  # set on children only: other sessions keep no attribute

    def __init__(self, client: SessionHost, session_id: str, cwd: str = "") -> None:
        self.client = client
        self.session_id = session_id
        self.cwd = cwd  # as the session was set up in: what resuming it again sends
        self.state: SessionState[SnapshotT_co] = client.new_state()
        self.pending_permissions: list[PermissionRequest] = []
        # closed, taken_over (a notice with `_meta.sessionTakenOver`: closed here, not resumed
        # by a reconnect; resuming it explicitly takes it back) and the turns seen ending.
        SessionView.__init__(self)
        # Made by the first wait for idle: a client keeps every session it set up, and what
        # each holds is walked by the cyclic collector (an Event is two objects).
        self._idle_changed: asyncio.Event | None = None
        self.replay: ReplayStatus | None = None  # None: never resumed here with replayFrom

    def snapshot(self) -> SnapshotT_co:
        """The session's state as plain JSON (typed by the generated `SessionSnapshot`)."""
        return self.state.snapshot()

    def rebuild(self) -> SessionState[SnapshotT_co]:
        """Start the state afresh (a replay of the whole history follows); the one it held."""
        before, self.state = self.state, self.client.new_state()
        return before

    def reopened(self, params: Mapping[str, JsonValue] | None = None) -> None:
        """Set up or resumed (with `params`) on this connection: open and ours again; the
        replay it asked for, if any, is over."""
        SessionView.reopened(self)
        if params is not None and params.get(REPLAY_FROM) is not None:
            self.replay = "complete"

    def setup_failed(
        self, params: Mapping[str, JsonValue], before: SessionState[SnapshotT_co] | None
    ) -> None:
        """A resume of this session failed or its connection was lost: the state it held
        before a rebuilding replay (`before`) comes back; the replay asked for, if any, is
        complete only if `replay_complete` came (into the rebuilt state) before the end."""
        if params.get(REPLAY_FROM) is not None:
            marked = before is not None and self.state.marks(REPLAY_ENTITY) > 0
            self.replay = "complete" if marked else "truncated"
        if before is not None:
            self.state = before

    def apply(self, update: JsonValue | BaseModel, *, owned: bool = False) -> None:
        """Fold one update; a malformed one is logged and skipped (it cannot be answered).
        `owned`: see `SessionState.apply` (the connection hands over what it decoded). A
        notice that another connection took the session over closes it here."""
        taken_over = is_taken_over_notice(update)  # read before the state owns it
        try:
            self.state.apply(update, owned=owned)
        except MalformedUpdateError as error:
            logger.error("session %r: %s", self.session_id, error)
            return
        if taken_over:  # the agent serves another connection with it now
            self.was_taken_over()
            logger.warning("session %r was taken over by another connection", self.session_id)
        if self.state.state == STATE_IDLE and self.client.is_state_update(update):
            self.turn_ended()
            if self._idle_changed is not None:
                self._idle_changed.set()
                self._idle_changed = None  # the next wait makes a new one

    async def prompt(
        self,
        content: Sequence[Mapping[str, object] | BaseModel],
        *,
        idempotency_key: str | None = None,
    ) -> str | None:
        """Send `session/prompt` (blocks as dicts or generated models); returns the id of the
        user message the prompt became in the snapshot.

        `idempotency_key` (v2, 1 to 255 characters): name this submission and send the same
        key again to retry it after a lost answer; the agent then inserts nothing new and
        answers with the first attempt's messageId. A v1 agent is sent no key.

        v2: returns once the agent accepted the prompt, with the id from its answer (the
        insertion receipt; None from an agent of a draft that answers `{}`); the turn goes on.
        v1: the answer comes when the turn ends, with its stop reason and no receipt, so this
        returns then, with the id the client gave the user message it recorded itself (v1
        agents echo no prompt); the stop reason is the session state's `stopReason`."""
        blocks: list[JsonValue] = [as_object(block) for block in content]
        refusal = self.prompt_refusal(self.session_id)
        if refusal is not None:
            raise ProtocolUsageError(refusal)
        self.client.check_prompt(self.session_id, blocks)
        return await self.client.send_prompt(self, blocks, idempotency_key)

    async def run_turn(
        self,
        content: Sequence[Mapping[str, object] | BaseModel],
        *,
        idempotency_key: str | None = None,
    ) -> str | None:
        """Prompt, then wait for the first idle report after it; returns its stop reason."""
        seen = self.turns_ended
        await self.prompt(content, idempotency_key=idempotency_key)
        while not self.ended_since(seen):
            await self._wait_for_change()
        return self.state.stop_reason

    async def _wait_for_change(self) -> None:
        if self._idle_changed is None:
            self._idle_changed = asyncio.Event()
        async with TaskOwner("a wait for idle") as waiting:  # leaving it ends both waits
            changed = waiting.spawn(self._idle_changed.wait())
            closed = waiting.spawn(self.client.connection.wait_closed())
            await asyncio.wait({changed, closed}, return_when=asyncio.FIRST_COMPLETED)
        if not changed.done() or changed.cancelled():
            raise ConnectionClosed("connection closed while waiting for the session to go idle")

    async def close(self) -> None:
        """`session/close`: the agent cancels the work (its idle report still lands here) and
        closes the session, which stays listed and can be resumed; later prompts are refused,
        later updates dropped (logged)."""
        await self.client.request(SESSION_CLOSE, {"sessionId": self.session_id})
        self.closed_by_us()

    async def cancel(self) -> None:
        """Cancel the session's work: send `session/cancel`, mark the current work's unfinished
        tool calls cancelled, answer pending permission requests with the cancelled outcome
        (on v1 the pending prompt then answers with the stop reason `cancelled`)."""
        await self.client.notify(SESSION_CANCEL, {"sessionId": self.session_id})
        self.state.mark_cancelled()
        for request in list(self.pending_permissions):
            request.cancel()
