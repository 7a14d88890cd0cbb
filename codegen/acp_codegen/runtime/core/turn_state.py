"""The agent's turn lifecycle, with no I/O: one turn's state and what each event means.

A turn is one stretch of foreground work in a session: it starts with the prompt that found
the session without one, takes the prompts accepted while it runs, and ends with one stop
reason. Its phases, derived from the flags below (`phase`):

    PENDING ──start──▶ RUNNING ◀──permission settled── REQUIRES_ACTION
                          │    ──permission asked────▶      │
                          └────────── end ──▶ ENDED ◀───────┘

with `cancel_requested` set across them by `cancel` (phase CANCELLING until the end). The
adapter (agent/turns.py) feeds the events in the order they happen and acts on the answer:

- `placement(turn)`: where a newly accepted prompt goes (a new turn, the running one, or the
  turn after a cancelled one that is still winding down);
- `cancel(interruptible)`: what `session/cancel` does; a second cancel, or one after the end,
  does nothing;
- `start()`, then `runs()`: whether the turn reports `running` and calls its handler
  (`handler_stop_reason` reads what the handler returns);
- `permission_asked()` / `permission_settled(foreground)`: whether to report
  `requires_action` or `running` again (the first of concurrent requests, the last answer);
- `stop_reason(returned, failed)`: the reason the turn ends with; `end()` closes it;
  `ends_quietly` says when an interruption nobody asked for ends it with no report at all;
- `next_turn_starts(...)`: whether the prompts accepted during a cancel start the next turn;
- `state_after_lost_turn(last)`: the state a resume reports when the work ended unreported.

Events out of order (starting twice, ending twice, settling a permission never asked) raise
`IllegalTurnEvent`: they would be the adapter's bug, never the peer's.

The flags are plain attributes and every event a few reads and writes: the adapter's `Turn`
subclasses `TurnState`, so asking the core allocates nothing per message.
"""

from __future__ import annotations

from enum import Enum

from ..wire.jsonvalue import JsonObject
from ..wire.protocol import (
    STATE_IDLE,
    STATE_UPDATE,
    STOP_CANCELLED,
    STOP_END_TURN,
    STOP_INTERNAL_ERROR,
    UPDATE_TAG_FIELD,
)


class IllegalTurnEvent(RuntimeError):
    """An event the turn's phase does not allow (the adapter's mistake)."""


class Phase(Enum):
    PENDING = "pending"  # accepted, its work not started yet
    RUNNING = "running"
    REQUIRES_ACTION = "requires_action"  # a permission request is open
    CANCELLING = "cancelling"  # cancel requested, not ended yet
    ENDED = "ended"


class Placement(Enum):
    """Where a newly accepted prompt goes."""

    NEW_TURN = "new_turn"  # no turn: it starts one
    JOIN = "join"  # the turn has not started: it echoes the prompt right after its first
    JOIN_AND_ECHO = "join_and_echo"  # the turn runs: echo it now, it becomes handler input
    AFTER_CANCEL = "after_cancel"  # the turn is cancelled: it starts the next turn


class CancelEffect(Enum):
    """What `session/cancel` does to a session's turn."""

    NOTHING = "nothing"  # no turn, or cancelled already: a late or duplicate cancel
    BEFORE_START = "before_start"  # not started: it sees the request and ends at once
    INTERRUPT = "interrupt"  # running: interrupt its work (the adapter cancels the task)


def placement(turn: TurnState | None) -> Placement:
    """Where a prompt accepted now goes, given the session's turn (None: idle)."""
    if turn is None:
        return Placement.NEW_TURN
    if turn.cancel_requested:
        return Placement.AFTER_CANCEL
    return Placement.JOIN_AND_ECHO if turn.started else Placement.JOIN


def handler_stop_reason(result: object) -> str:
    """The stop reason a turn handler returned (None means `end_turn`); TypeError otherwise."""
    if result is None:
        return STOP_END_TURN
    if not isinstance(result, str):
        raise TypeError(f"a turn handler must return a stop reason or None: {result!r}")
    return result or STOP_END_TURN


class TurnState:
    """One turn's lifecycle flags and the events that move them (see the module docstring)."""

    __slots__ = ("blocked", "cancel_requested", "cancel_sent", "finished", "started")

    def __init__(self) -> None:
        self.started = False
        self.finished = False
        self.cancel_requested = False
        self.cancel_sent = False  # the running work was interrupted for the cancel
        self.blocked = 0  # open permission requests of this turn

    @property
    def phase(self) -> Phase:
        if self.finished:
            return Phase.ENDED
        if self.cancel_requested:
            return Phase.CANCELLING
        if not self.started:
            return Phase.PENDING
        return Phase.REQUIRES_ACTION if self.blocked else Phase.RUNNING

    def start(self) -> None:
        """The turn's work begins (before it echoes its prompts)."""
        if self.started or self.finished:
            raise IllegalTurnEvent(f"start in phase {self.phase.value}")
        self.started = True

    def runs(self) -> bool:
        """Whether the started turn reports `running` and calls its handler: not when a cancel
        came before it got that far."""
        return not self.cancel_requested

    def cancel(self, interruptible: bool) -> CancelEffect:
        """`session/cancel` for this turn. `interruptible`: its work can still be interrupted
        (the adapter's task exists and has not finished)."""
        if self.finished or self.cancel_requested:
            return CancelEffect.NOTHING
        self.cancel_requested = True
        if self.started and interruptible:
            self.cancel_sent = True
            return CancelEffect.INTERRUPT
        return CancelEffect.BEFORE_START

    def permission_asked(self) -> bool:
        """A permission request of this turn opens; True: report `requires_action` (it is the
        only one open)."""
        self.blocked += 1
        return self.blocked == 1

    def permission_settled(self, foreground: bool) -> bool:
        """A permission request of this turn was answered or given up, whatever happened (so
        the count never leaks into later work). True: report `running` again: it was the
        last one open, no cancel is under way, and the turn is still the session's running
        one (`foreground`) and not ended."""
        if self.blocked <= 0:
            raise IllegalTurnEvent("a permission settled that was never asked")
        self.blocked -= 1
        return self.blocked == 0 and not self.cancel_requested and foreground and not self.finished

    def stop_reason(self, returned: str, failed: bool) -> str:
        """The reason the turn ends with: `cancelled` once a cancel was requested (whatever the
        handler did), `_internal_error` when it failed, else what it returned."""
        if self.cancel_requested:
            return STOP_CANCELLED
        return STOP_INTERNAL_ERROR if failed else returned

    def end(self) -> None:
        """The turn is over: from here a new prompt starts a new turn."""
        if self.finished:
            raise IllegalTurnEvent("end of a turn that already ended")
        self.finished = True


def ends_quietly(turn: TurnState, interrupted_from_outside: bool) -> bool:
    """Whether an interruption the client did not ask for (the side shutting down) ends the
    turn with no idle report, the interruption propagating: yes unless a cancel was requested."""
    return interrupted_from_outside and not turn.cancel_requested


def next_turn_starts(waiting: bool, session_idle: bool, session_closed: bool) -> bool:
    """After a cancelled turn ended: whether the prompts accepted during its cancellation
    (`waiting`) start the next turn now: only on an idle, open session."""
    return waiting and session_idle and not session_closed


def state_after_lost_turn(last_state: JsonObject | None) -> JsonObject | None:
    """The state a session reports when resumed after its work was stopped without an idle
    report reaching anyone (its connection went, or it was taken over): idle, `cancelled`."""
    if last_state is None or last_state.get("state") == STATE_IDLE:
        return last_state
    return {UPDATE_TAG_FIELD: STATE_UPDATE, "state": STATE_IDLE, "stopReason": STOP_CANCELLED}
