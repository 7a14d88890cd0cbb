"""The core's turn lifecycle, without an event loop: each event's answer, the illegal ones,
and the machine's invariants over random event sequences."""

from __future__ import annotations

import ast
from itertools import pairwise
from pathlib import Path

import acp_codegen.runtime.core.turn_state as turn_state
import pytest
from acp_codegen.runtime.core.turn_state import (
    CancelEffect,
    IllegalTurnEvent,
    Phase,
    Placement,
    TurnState,
    ends_quietly,
    handler_stop_reason,
    next_turn_starts,
    placement,
    state_after_lost_turn,
)
from acp_codegen.runtime.wire.jsonvalue import JsonObject
from acp_codegen.runtime.wire.protocol import (
    STATE_IDLE,
    STATE_REQUIRES_ACTION,
    STATE_RUNNING,
    STOP_CANCELLED,
    STOP_END_TURN,
    STOP_INTERNAL_ERROR,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from .core_driver import DrivenSession


def imported_modules(path: str) -> set[str]:
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.partition(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.partition(".")[0])
    return found


def phase(turn: TurnState) -> Phase:
    """The turn's phase now (read afresh: a type checker would keep an earlier reading)."""
    return turn.phase


def test_neither_these_tests_nor_the_core_touch_asyncio() -> None:
    from . import core_driver

    for path in (__file__, core_driver.__file__, turn_state.__file__):
        assert "asyncio" not in imported_modules(path), path
    assert not hasattr(turn_state, "asyncio")


def test_a_prompt_goes_to_a_new_turn_the_pending_one_the_running_one_or_the_next() -> None:
    assert placement(None) is Placement.NEW_TURN
    turn = TurnState()
    assert placement(turn) is Placement.JOIN
    turn.start()
    assert placement(turn) is Placement.JOIN_AND_ECHO
    turn.cancel(interruptible=True)
    assert placement(turn) is Placement.AFTER_CANCEL


def test_a_cancel_interrupts_running_work_once_and_a_late_one_does_nothing() -> None:
    turn = TurnState()
    turn.start()
    assert turn.cancel(interruptible=True) is CancelEffect.INTERRUPT
    assert turn.cancel_sent and phase(turn) is Phase.CANCELLING
    assert turn.cancel(interruptible=True) is CancelEffect.NOTHING  # a duplicate
    turn.end()
    assert turn.cancel(interruptible=True) is CancelEffect.NOTHING  # after the end


def test_a_cancel_before_the_work_starts_only_marks_it() -> None:
    turn = TurnState()
    assert turn.cancel(interruptible=True) is CancelEffect.BEFORE_START
    assert not turn.cancel_sent
    turn.start()
    assert not turn.runs()  # it reports no running and ends at once
    finished_work = TurnState()
    finished_work.start()
    assert finished_work.cancel(interruptible=False) is CancelEffect.BEFORE_START
    assert not finished_work.cancel_sent  # no task left to interrupt


def test_the_first_open_permission_reports_requires_action_and_the_last_answer_running() -> None:
    turn = TurnState()
    turn.start()
    assert phase(turn) is Phase.RUNNING
    assert turn.permission_asked() is True
    assert turn.permission_asked() is False  # a second one, concurrent
    assert phase(turn) is Phase.REQUIRES_ACTION
    assert turn.permission_settled(foreground=True) is False
    assert turn.permission_settled(foreground=True) is True
    assert phase(turn) is Phase.RUNNING


@pytest.mark.parametrize("cancelled, foreground", [(True, True), (False, False)])
def test_an_answer_during_a_cancel_or_outside_the_turn_reports_nothing(
    cancelled: bool, foreground: bool
) -> None:
    turn = TurnState()
    turn.start()
    turn.permission_asked()
    if cancelled:
        turn.cancel(interruptible=True)
    assert turn.permission_settled(foreground=foreground) is False
    assert turn.blocked == 0


def test_an_answer_after_the_turn_ended_reports_nothing() -> None:
    turn = TurnState()
    turn.start()
    turn.permission_asked()
    turn.end()
    assert turn.permission_settled(foreground=True) is False


def test_the_stop_reason_is_cancelled_after_a_cancel_else_the_failure_or_the_return() -> None:
    turn = TurnState()
    turn.start()
    assert turn.stop_reason("max_tokens", failed=False) == "max_tokens"
    assert turn.stop_reason("max_tokens", failed=True) == STOP_INTERNAL_ERROR
    turn.cancel(interruptible=True)
    assert turn.stop_reason("max_tokens", failed=True) == STOP_CANCELLED


def test_what_a_handler_returns_is_read_as_a_stop_reason() -> None:
    assert handler_stop_reason(None) == STOP_END_TURN
    assert handler_stop_reason("") == STOP_END_TURN
    assert handler_stop_reason("refusal") == "refusal"
    with pytest.raises(TypeError, match="stop reason or None"):
        handler_stop_reason(3)


def test_only_an_interruption_nobody_asked_for_ends_a_turn_quietly() -> None:
    turn = TurnState()
    turn.start()
    assert ends_quietly(turn, interrupted_from_outside=True)
    assert not ends_quietly(turn, interrupted_from_outside=False)
    turn.cancel(interruptible=True)
    assert not ends_quietly(turn, interrupted_from_outside=True)


def test_prompts_accepted_during_a_cancel_start_the_next_turn_only_on_an_open_idle_session() -> (
    None
):
    assert next_turn_starts(True, session_idle=True, session_closed=False)
    assert not next_turn_starts(False, session_idle=True, session_closed=False)
    assert not next_turn_starts(True, session_idle=False, session_closed=False)
    assert not next_turn_starts(True, session_idle=True, session_closed=True)


def test_a_resumed_session_whose_work_was_lost_reports_idle_cancelled() -> None:
    running: JsonObject = {"sessionUpdate": "state_update", "state": "running"}
    idle: JsonObject = {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}
    assert state_after_lost_turn(running) == {
        "sessionUpdate": "state_update",
        "state": "idle",
        "stopReason": "cancelled",
    }
    assert state_after_lost_turn(idle) is idle
    assert state_after_lost_turn(None) is None


def test_events_out_of_order_are_refused() -> None:
    turn = TurnState()
    with pytest.raises(IllegalTurnEvent):
        turn.permission_settled(foreground=True)
    turn.start()
    with pytest.raises(IllegalTurnEvent):
        turn.start()
    turn.end()
    with pytest.raises(IllegalTurnEvent):
        turn.end()
    assert phase(turn) is Phase.ENDED


EVENTS = st.lists(
    st.sampled_from(["prompt", "start", "ask", "answer", "cancel", "return", "fail", "refuse"]),
    max_size=60,
)


@settings(max_examples=400, deadline=None)
@given(EVENTS)
def test_random_event_sequences_keep_the_machine_s_invariants(events: list[str]) -> None:
    session = DrivenSession()
    for event in events:
        ended_before = [(t, t.state.cancel_requested, list(t.reports)) for t in session.turns]
        current = session.turn
        if event == "prompt":
            session.prompt()
        elif event == "start":
            session.start()
        elif event == "ask":
            session.ask_permission()
        elif event == "answer":
            session.answer_permission()
        elif event == "cancel":
            session.cancel()
        else:
            returned = "refusal" if event == "refuse" else STOP_END_TURN
            session.end(returned, failed=event == "fail")
        live = [t for t in session.turns if not t.state.finished]
        assert len(live) <= 1, "never two turns at once"
        assert session.turn is (live[0] if live else None)
        if session.turn is not None:
            assert session.turn.prompts > 0  # a turn exists only for a prompt
        for turn, was_cancelled, reports in ended_before:
            if turn is not current:  # no event touches a turn other than the session's own
                assert turn.state.cancel_requested == was_cancelled
                assert turn.reports == reports
        if event == "cancel":
            assert session.turn is current, "a cancel never ends or replaces the turn itself"
        if current is not None and current.state.finished:  # it just ended: idle, or the
            # turn the prompts accepted during its cancel start, fresh
            assert session.turn is None or (
                phase(session.turn.state) is Phase.PENDING and current.state.cancel_requested
            )
    for turn in session.turns:
        check_turn_reports(turn.reports, turn.state)
        if turn.reports_before_cancel is not None:  # once cancelled, never running again
            assert STATE_RUNNING not in turn.reports[turn.reports_before_cancel :]
        assert [e for e in turn.effects if e is not CancelEffect.NOTHING][1:] == []


def check_turn_reports(reports: list[str], state: TurnState) -> None:
    """A turn reports running first (unless cancelled before it ran), requires_action and
    running alternate, nothing follows idle, and idle comes exactly once, at the end."""
    idles = [r for r in reports if r.startswith(STATE_IDLE)]
    assert len(idles) == (1 if state.finished else 0)
    if state.finished:
        assert reports[-1] == idles[0]
        reason = idles[0].partition(":")[2]
        assert (reason == STOP_CANCELLED) == state.cancel_requested
    states = [r for r in reports if not r.startswith(STATE_IDLE)]
    if states:
        assert states[0] == STATE_RUNNING
    for before, after in pairwise(states):
        assert {before, after} == {STATE_RUNNING, STATE_REQUIRES_ACTION}
    assert state.blocked == 0 or not state.finished  # no open request outlives its turn
