"""Foreground work: accepting prompts, running turns, cancelling them (used by `AgentSide`).

The order on the wire for each accepted prompt is: its answer (the receipt `{messageId}`; `{}`
for a draft before receipts), its `user_message` echo, then whatever the work says about it.
Echoes are written in acceptance order, under the turn's echo lock, and only after the prompt's
answer is written (for a batch: the batch's answer); a prompt reaches the handler
(`take_prompts` or the next `on_prompt` call) only once echoed, and the work reports idle only
after every accepted prompt was echoed.

Cancellation: `session/cancel` cancels the work, including prompts accepted before it (they are
echoed, then dropped with the work). A prompt accepted after the cancel, while the cancelled
work is still winding down, starts new work once the cancelled one reported idle.

Stop reasons: the handler's return value (None means `end_turn`) must be one the schema names
or a custom one starting with `_`; anything else is logged as an error and the work ends with
`_internal_error`, as it does when the handler raises.

Every decision above (where a prompt goes, what a cancel does, which stop reason, whether the
next turn starts) is the core's (`core.turn_state`); this module is its async adapter: it runs
the work in tasks, echoes and reports, and asks the core at each step.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from ..core.turn_state import (
    CancelEffect,
    Placement,
    ends_quietly,
    handler_stop_reason,
    next_turn_starts,
    placement,
)
from ..rpc.outgoing_checks import InvalidStopReason, OutgoingChecks
from ..wire.errors import ConnectionClosed
from ..wire.protocol import STATE_IDLE, STATE_RUNNING, STOP_END_TURN
from .agent_session import CURRENT_TURN, Accepted, AgentSession, Prompt, Turn

logger = logging.getLogger(__name__)

PromptHandler = Callable[[AgentSession, Prompt], Awaitable[str | None]]
Spawn = Callable[[Coroutine[Any, Any, None]], "asyncio.Task[None]"]


class TurnRunner:
    def __init__(self, on_prompt: PromptHandler, checks: OutgoingChecks, spawn: Spawn) -> None:
        self._on_prompt = on_prompt
        self._checks = checks
        self._spawn = spawn

    # -- called by the dispatcher (synchronously, in wire order) -------------------------------

    def accept(self, session: AgentSession, accepted: Accepted) -> None:
        """Give an accepted prompt its place: new work, the running work, or the work after a
        cancellation that is still winding down."""
        turn = session.turn
        where = placement(turn)
        if turn is None:  # Placement.NEW_TURN
            self._start(session, [accepted])
        elif where is Placement.AFTER_CANCEL:
            turn.after_cancel.append(accepted)
        else:
            turn.unechoed.append(accepted)
            if where is Placement.JOIN_AND_ECHO:
                self._spawn(self._echo_quietly(session, turn))
            # JOIN (not started yet): the runner echoes it right after the first prompt

    def cancel(self, session: AgentSession) -> None:
        """`session/cancel`: a late or duplicate one changes nothing."""
        turn = session.turn
        if turn is None:
            return
        task = turn.task
        if turn.cancel(task is not None and not task.done()) is CancelEffect.INTERRUPT:
            assert task is not None  # interruptible: the core was told the task runs
            task.cancel()
        # BEFORE_START: the work sees cancel_requested and ends right away.

    async def stop(self, session: AgentSession) -> None:
        """Cancel the session's work (as session/cancel does) and wait until it reported idle
        (unless that must wait for the answer to the current batch)."""
        turn = session.turn
        if turn is None:
            return
        turn.after_cancel.clear()  # nothing starts after a close
        self.cancel(session)
        # A prompt whose answer is not written yet (it shares a batch with this request) is
        # echoed, and the work ends idle, only after that answer: waiting would deadlock.
        unanswered = any(a.answered is not None and not a.answered.done() for a in turn.unechoed)
        if turn.task is not None and not unanswered:
            await asyncio.gather(turn.task, return_exceptions=True)

    # -- the work -------------------------------------------------------------------------------

    def _start(self, session: AgentSession, accepted: list[Accepted]) -> None:
        turn = Turn(unechoed=list(accepted))
        session.turn = turn
        turn.task = self._spawn(self._run(session, turn))

    async def _echo(self, session: AgentSession, turn: Turn) -> None:
        """Echo every accepted, not yet echoed prompt, in order; each becomes handler input."""
        async with turn.echo_lock:
            while turn.unechoed:
                accepted = turn.unechoed[0]
                if accepted.answered is not None:
                    await asyncio.shield(accepted.answered)
                # No await between here and the write: the prompt becomes handler input
                # exactly when its echo is on the wire.
                turn.unechoed.pop(0)
                turn.queued.append(accepted.prompt)
                await session.report_user_message(accepted.prompt)

    async def _echo_quietly(self, session: AgentSession, turn: Turn) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self._echo(session, turn)

    async def _run(self, session: AgentSession, turn: Turn) -> None:
        CURRENT_TURN.set(turn)  # this task's context: the handler's tasks inherit it
        turn.start()
        returned, failed = STOP_END_TURN, False
        try:
            await self._echo(session, turn)
            if turn.runs():
                await session.report_state(STATE_RUNNING)
                returned = await self._drive(session, turn)
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if ends_quietly(turn, current is not None and current.cancelling() > 0):
                turn.end()
                session.turn = None
                raise  # this task is cancelled, not by the client (e.g. shutdown): propagate
            if not turn.cancel_requested:  # a subtask's CancelledError escaped the handler
                logger.error(
                    "turn handler in session %s raised CancelledError (not a cancel of the turn)",
                    session.session_id,
                )
                failed = True
        except ConnectionClosed:
            turn.end()  # nobody to report idle to
            session.turn = None
            return
        except Exception as error:
            if not turn.cancel_requested:  # else: an aborted operation's own error
                if isinstance(error, InvalidStopReason):
                    logger.error("session %s: %s", session.session_id, error)
                else:
                    logger.exception("turn handler failed in session %s", session.session_id)
                failed = True
        task = asyncio.current_task()
        if turn.cancel_sent and task is not None and task.cancelling():
            task.uncancel()
        await self._finish(session, turn, turn.stop_reason(returned, failed))

    async def _finish(self, session: AgentSession, turn: Turn, stop_reason: str) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self._echo(session, turn)  # every accepted prompt is echoed before idle
        turn.end()
        session.turn = None  # from here on a new prompt starts new work
        with contextlib.suppress(ConnectionClosed):
            await session.report_state(STATE_IDLE, stop_reason)
        if next_turn_starts(bool(turn.after_cancel), session.turn is None, session.closed):
            self._start(session, turn.after_cancel)

    async def _drive(self, session: AgentSession, turn: Turn) -> str:
        prompt = turn.queued.pop(0)
        while True:
            reason = handler_stop_reason(await self._on_prompt(session, prompt))
            self._checks.stop_reason(reason)
            if turn.cancel_requested:
                return reason
            await self._echo(session, turn)  # prompts accepted meanwhile are handler input too
            if not turn.queued:
                return reason
            prompt = turn.queued.pop(0)
