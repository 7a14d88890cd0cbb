"""Child sessions (subagents) an agent exposes on a parent session, and messages between them.

`announce` registers a new child with the parent's registry (sessions.py: it is a session of
its own there, listed with its parent's id, kept in a durable store like any session), sends
the parent's `subagent_update` for it before anything else can name it, and returns the
parent's handle on the child (`Subagent`): `update` patches what the parent says of the child
(absent keeps, None clears, a value replaces), `session` is the child's own `AgentSession`,
whose helpers send with the child's sessionId, `run` runs the child's own work (its task, its
`running` and `idle` reports: the work a `session/cancel` naming the child stops), and
`send_message` reports a message from one to the other in both transcripts
(`session_message`). `remove_plan` tells the client a plan is gone (`plan_removed`).

What the registry does with a family: a request naming a child is refused (-32602: upstream
allows a client nothing on a child but what the child's capabilities list, and the only one
defined is `cancel`, a notification); a `session/cancel` naming a child cancels its work when
it advertised `cancel` (else it is ignored and logged), one naming a parent cancels the
parent's work and its children's; closing, deleting, detaching or taking over a parent does the
same to its children; a replay of the parent (`replayed`) brings back each child's history
right after the update that announced it. All of it is v2's: a v1 client was never told of
these updates.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence

from ..core.turn_state import CancelEffect, handler_stop_reason
from ..wire.errors import ConnectionClosed, ProtocolUsageError
from ..wire.jsonvalue import JsonObject, JsonValue, to_json
from ..wire.protocol import (
    PARENT_SESSION_META,
    PLAN_REMOVED,
    REPLAY_COMPLETE,
    SESSION_MESSAGE,
    SESSION_MESSAGE_CHUNK,
    STATE_IDLE,
    STATE_RUNNING,
    STOP_END_TURN,
    SUBAGENT_UPDATE,
    UPDATE_TAG_FIELD,
)
from .agent_session import CURRENT_TURN, AgentSession, Turn, new_id
from .handles import Content, MessageStream

logger = logging.getLogger(__name__)

# A child's own work: given the child's session, returns its stop reason (None: end_turn).
ChildWork = Callable[[AgentSession], Awaitable[str | None]]


class Subagent:
    """The parent's handle on one child session it announced."""

    def __init__(self, parent: AgentSession, session: AgentSession) -> None:
        self.parent = parent
        self.session = session  # the child's own session: its helpers speak as the child

    @property
    def session_id(self) -> str:
        return self.session.session_id

    async def update(self, **fields: object) -> None:
        """Patch what the parent says of the child (`title`, `description`, `capabilities`,
        `state`, `cwd`, `additionalDirectories`, `_meta`: wire names; None clears)."""
        child, before = self.session, self.session.cancellable
        if "capabilities" in fields:  # before the client can act on it: it may cancel at once
            child.cancellable = cancel_advertised(to_json(fields["capabilities"]))
        try:
            await self.parent.send_fields(SUBAGENT_UPDATE, sessionId=self.session_id, **fields)
        except BaseException:
            child.cancellable = before  # the client was not told
            raise

    async def run(self, work: ChildWork) -> str:
        """Run `work` as the child's own work, in a task of its own, and wait for it: the child
        reports `running`, then `idle` with the stop reason, which is returned: what `work`
        returned (None: `end_turn`), `_internal_error` when it raised, `cancelled` once the
        work was cancelled (a `session/cancel` naming the child, or its parent; the parent
        closed; the parent's work cancelled while waiting here, which is then re-raised)."""
        child = self.session
        if child.turn is not None:
            raise ProtocolUsageError(f"child session {child.session_id} is already working")
        turn, outcome = Turn(), list[str]()
        child.turn = turn
        task = turn.task = asyncio.get_running_loop().create_task(
            _work(child, turn, work, outcome), name=f"subagent {child.session_id}"
        )
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            if not task.done():  # the parent's work was cancelled: the child's goes with it
                if turn.cancel(True) is CancelEffect.INTERRUPT:
                    task.cancel()
                await asyncio.gather(task, return_exceptions=True)
            raise
        return outcome[0] if outcome else STOP_END_TURN

    async def send_message(
        self, content: Content | Sequence[Content], *, from_child: bool = False
    ) -> tuple[str, str]:
        """Report a whole message from the parent to the child (`from_child`: the other way)
        in both transcripts, each view naming the other's id; returns the message's id in the
        sender's transcript and in the recipient's."""
        parent, child = self.parent, self.session
        sender, recipient = (child, parent) if from_child else (parent, child)
        sent, received = new_id("msg"), new_id("msg")
        between = {
            "senderSessionId": sender.session_id,
            "recipientSessionId": recipient.session_id,
        }
        outgoing = MessageStream(sender, SESSION_MESSAGE, SESSION_MESSAGE_CHUNK, sent)
        await outgoing.replace(content, recipientMessageId=received, **between)
        incoming = MessageStream(recipient, SESSION_MESSAGE, SESSION_MESSAGE_CHUNK, received)
        await incoming.replace(content, senderMessageId=sent, **between)
        return sent, received


async def _work(child: AgentSession, turn: Turn, work: ChildWork, outcome: list[str]) -> None:
    """The task `Subagent.run` starts (as turns.TurnRunner runs a prompt's work)."""
    CURRENT_TURN.set(turn)  # the child's permission requests report on the child
    turn.start()
    returned, failed = STOP_END_TURN, False
    try:
        if turn.runs():
            await child.report_state(STATE_RUNNING)
            returned = handler_stop_reason(await work(child))
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if not turn.cancel_requested:  # not a cancel of this work (e.g. shutdown)
            turn.end()
            child.turn = None
            raise
        if task is not None and turn.cancel_sent and task.cancelling():
            task.uncancel()
    except ConnectionClosed:
        turn.end()
        child.turn = None
        return
    except Exception:
        if not turn.cancel_requested:
            logger.exception("subagent work failed in session %s", child.session_id)
            failed = True
    reason = turn.stop_reason(returned, failed)
    turn.end()
    child.turn = None
    outcome.append(reason)
    with contextlib.suppress(ConnectionClosed):
        await child.report_state(STATE_IDLE, reason)


def make_child(
    parent: AgentSession, session_id: str, setup: Mapping[str, JsonValue]
) -> AgentSession:
    """A session on `parent`'s connection, checks and limits, linked to it as its child."""
    checks = (parent._checks, parent._chunk_runs, parent._live)
    child = AgentSession(session_id, parent.peer, setup, parent.client_capabilities, *checks)
    child._history_limit, child.client_gates = parent._history_limit, parent.client_gates
    child.speak(parent._dialect_for)
    child.owner, child.parent, child.adopt = parent.owner, parent, parent.adopt
    parent.children[session_id] = child
    return child


async def announce(
    parent: AgentSession, session_id: str | None = None, **fields: object
) -> Subagent:
    """Announce a new child session of `parent` (`fields` as `Subagent.update` takes them; the
    child's setup has the `cwd` given, else the parent's) and return the handle on it."""
    cwd = fields.get("cwd")
    setup: dict[str, JsonValue] = {"_meta": {PARENT_SESSION_META: parent.session_id}}
    if isinstance(cwd, str) or parent.cwd is not None:
        setup["cwd"] = cwd if isinstance(cwd, str) else parent.cwd
    child = Subagent(parent, make_child(parent, session_id or new_id("sess"), setup))
    try:
        if parent.adopt is not None:
            await parent.adopt(child.session)  # registered (and stored) before it is told
    except BaseException:
        del parent.children[child.session_id]
        raise
    await child.update(**fields)  # first: nothing may name the child before it is announced
    return child


async def remove_plan(session: AgentSession, plan_id: str) -> None:
    """Tell the client the plan `plan_id` is gone (it forgets it; an unknown id is ignored)."""
    await session.send_fields(PLAN_REMOVED, planId=plan_id)


# -- what the registry asks of a family ---------------------------------------------------------


def cancel_advertised(capabilities: JsonValue) -> bool:
    """Whether a child's `capabilities` let the client cancel its work (`cancel` an object)."""
    return isinstance(capabilities, dict) and isinstance(capabilities.get("cancel"), dict)


def descendants(session: AgentSession) -> Iterator[AgentSession]:
    """The children `session` announced, each followed by its own, in announcement order."""
    for child in list(session.children.values()):
        yield child
        yield from descendants(child)


def parent_named(setup: Mapping[str, JsonValue]) -> str | None:
    """The parent's id a child's (stored) setup names; None for a session of its own."""
    meta = setup.get("_meta")
    parent = meta.get(PARENT_SESSION_META) if isinstance(meta, dict) else None
    return parent if isinstance(parent, str) else None


def link(parent: AgentSession, child: AgentSession) -> None:
    """Make `child` (restored from a store) `parent`'s again, as the parent last told of it."""
    child.parent, child.adopt = parent, parent.adopt
    parent.children[child.session_id] = child
    for update in parent.history:  # the last capabilities the client was told hold
        told = update.get(UPDATE_TAG_FIELD) == SUBAGENT_UPDATE and "capabilities" in update
        if told and update.get("sessionId") == child.session_id:
            child.cancellable = cancel_advertised(update["capabilities"])


def replayed(session: AgentSession, marked: bool) -> list[tuple[str, JsonObject]]:
    """What replaying `session` sends, as (sessionId, update): its history, each child's own
    replay (its history, its `replay_complete` when `marked`, its last state) right after the
    update that announced it; a child whose announcement the history no longer holds (past
    the history limit) is announced again, by its id alone, after the history. The session's
    own marker and state are the caller's."""
    sent: list[tuple[str, JsonObject]] = []
    untold = dict(session.children)
    for update in session.history:
        sent.append((session.session_id, update))
        if update.get(UPDATE_TAG_FIELD) == SUBAGENT_UPDATE:
            child = untold.pop(str(update.get("sessionId")), None)
            if child is not None:
                sent += _child_replay(child, marked)
    for child in untold.values():
        again: JsonObject = {UPDATE_TAG_FIELD: SUBAGENT_UPDATE, "sessionId": child.session_id}
        sent.append((session.session_id, again))
        sent += _child_replay(child, marked)
    return sent


async def replay(
    session: AgentSession, send: Callable[[JsonObject], Awaitable[None]], marked: bool
) -> None:
    """Send `session`'s replay (`replayed`, then its `replay_complete` when `marked`) with
    `send`; when `marked`, what the family sends live meanwhile is held till the end."""
    end: JsonObject = {UPDATE_TAG_FIELD: REPLAY_COMPLETE}
    marker = [(session.session_id, end)] if marked else []
    async with contextlib.AsyncExitStack() as held:
        for each in [session, *descendants(session)] if marked else []:
            await held.enter_async_context(each.holding_updates())
        for sent_for, update in [*replayed(session, marked), *marker]:
            await send({"sessionId": sent_for, "update": update})


def _child_replay(child: AgentSession, marked: bool) -> list[tuple[str, JsonObject]]:
    sent = replayed(child, marked)
    if marked:
        sent.append((child.session_id, {UPDATE_TAG_FIELD: REPLAY_COMPLETE}))
    if child.last_state is not None:
        sent.append((child.session_id, child.last_state))
    return sent
