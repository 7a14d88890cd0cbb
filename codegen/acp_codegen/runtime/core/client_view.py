"""The client's view of one session's lifecycle, with no I/O: open, closed or taken over, and
how many turns it has seen end.

The adapter (client/client_session.py) folds each update into the session's state, then tells
this view what the update was (only when it was one of the rare kinds below, so the common
update pays nothing): a notice that another connection took the session over closes it here
and keeps it from being resumed by a reconnect; an idle state report ends a turn, which is what
`run_turn` waits for. A prompt is refused once the session was closed or taken over (setting it
up again or resuming it reopens it: `reopened`).
"""

from __future__ import annotations


class SessionView:
    """One session's lifecycle as the client sees it (`ClientSession` is one)."""

    def __init__(self) -> None:
        self.closed = False
        self.taken_over = False  # another connection took it over: closed here until resumed
        self.turns_ended = 0  # idle reports seen so far

    def was_taken_over(self) -> None:
        """The agent said another connection serves the session now."""
        self.closed = self.taken_over = True

    def reopened(self) -> None:
        """Set up or resumed on this connection: open and ours again."""
        self.closed = self.taken_over = False

    def closed_by_us(self) -> None:
        """`session/close` was answered: later prompts are refused, later updates dropped."""
        self.closed = True

    def turn_ended(self) -> None:
        """An idle state report was folded: the turn it ends wakes whoever waits for it."""
        self.turns_ended += 1

    def ended_since(self, seen: int) -> bool:
        """Whether a turn ended after `turns_ended` was `seen`."""
        return self.turns_ended != seen

    def prompt_refusal(self, session_id: str) -> str | None:
        """Why a prompt may not be sent now (None: it may)."""
        if self.taken_over:
            return (
                f"session/prompt for {session_id!r}, which another connection took over "
                "(resume it to take it back)"
            )
        if self.closed:
            return f"session/prompt for {session_id!r}, which is closed"
        return None
