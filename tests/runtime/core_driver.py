"""A session driven through the core's turn lifecycle alone, the way agent/turns.py and
agent/agent_session.py drive it, with what each event reported: the core's tests replay event
sequences on it without an event loop."""

from __future__ import annotations

from dataclasses import dataclass, field

from acp_codegen.runtime.core.turn_state import (
    CancelEffect,
    Placement,
    TurnState,
    next_turn_starts,
    placement,
)
from acp_codegen.runtime.wire.protocol import (
    STATE_IDLE,
    STATE_REQUIRES_ACTION,
    STATE_RUNNING,
    STOP_END_TURN,
)


@dataclass
class TurnRecord:
    """One turn and what it reported, in order (state names; idle with its stop reason)."""

    state: TurnState
    reports: list[str] = field(default_factory=list)
    prompts: int = 0
    stop_reason: str | None = None
    effects: list[CancelEffect] = field(default_factory=list)
    reports_before_cancel: int | None = None  # how many it had made when a cancel took hold


@dataclass
class DrivenSession:
    turn: TurnRecord | None = None
    turns: list[TurnRecord] = field(default_factory=list)
    after_cancel: int = 0  # prompts waiting for the cancelled turn to end
    open_permissions: int = 0
    closed: bool = False

    def prompt(self) -> Placement:
        where = placement(None if self.turn is None else self.turn.state)
        if where is Placement.NEW_TURN:
            self._new_turn(1)
        elif where is Placement.AFTER_CANCEL:
            self.after_cancel += 1
        else:
            assert self.turn is not None
            self.turn.prompts += 1
        return where

    def start(self) -> None:
        """The pending turn's task begins; a turn cancelled before this ends at once."""
        turn = self.turn
        if turn is None or turn.state.started:
            return
        turn.state.start()
        if turn.state.runs():
            turn.reports.append(STATE_RUNNING)
        else:
            self.end(STOP_END_TURN, failed=False)

    def ask_permission(self) -> None:
        turn = self.turn
        if turn is None or not turn.state.started or not turn.state.runs():
            return  # only a running handler asks
        self.open_permissions += 1
        if turn.state.permission_asked():
            turn.reports.append(STATE_REQUIRES_ACTION)

    def answer_permission(self) -> None:
        turn = self.turn
        if turn is None or not self.open_permissions:
            return
        self.open_permissions -= 1
        if turn.state.permission_settled(foreground=True):
            turn.reports.append(STATE_RUNNING)

    def cancel(self) -> CancelEffect | None:
        turn = self.turn
        if turn is None:
            return None  # nothing to cancel: the adapter returns at once
        effect = turn.state.cancel(interruptible=turn.state.started)
        turn.effects.append(effect)
        if effect is not CancelEffect.NOTHING:
            turn.reports_before_cancel = len(turn.reports)
        return effect

    def end(self, returned: str, failed: bool) -> None:
        """The handler returned or failed (or was interrupted): open permission requests are
        given up first (their `finally`), then the turn reports idle."""
        turn = self.turn
        if turn is None or not turn.state.started:
            return
        while self.open_permissions:
            self.answer_permission()
        turn.stop_reason = turn.state.stop_reason(returned, failed)
        turn.state.end()
        self.turn = None
        turn.reports.append(f"{STATE_IDLE}:{turn.stop_reason}")
        waiting, self.after_cancel = self.after_cancel, 0
        if next_turn_starts(waiting > 0, self.turn is None, self.closed):
            self._new_turn(waiting)

    def _new_turn(self, prompts: int) -> None:
        self.turn = TurnRecord(TurnState(), prompts=prompts)
        self.turns.append(self.turn)
