"""Where the interactive chat shows things. `PlainScreen` writes plain text as the turn happens
(`plain.PlainLog`, fed each update); `live.RichScreen` redraws the turn as it changes, at a
drawing rate. `interactive.make_screen` picks rich when the `chat` extra is installed."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Protocol

from ..._bindings import models
from ...model.diff_view import MAX_LINES, DiffRow
from .permissions import description_lines, keyed_options, question_diffs, title_of
from .plain import PlainLog
from .transcript import Turn
from .visible import visible_line

PAUSE_SECONDS = 3.0  # of silence from the agent before plain text says the turn still runs
STILL_WORKING = "(the agent is still working; Ctrl-C cancels the turn)"
Asking = tuple[models.RequestPermissionRequest, list[tuple[str, models.PermissionOption]]]


class TurnView(Protocol):
    @property
    def redraw_seconds(self) -> float | None:
        """How often `update` wants the turn while it runs (None: only when asked something)."""

    def heard(self, update: models.SessionUpdate, now: Callable[[], Turn]) -> None:
        """One update, just folded into the session; `now()` reads the turn so far."""

    def update(self, turn: Turn, asking: Asking | None) -> None: ...

    def note(self, text: str) -> None:
        """A line from outside the turn (a permission answer, a notice), after what the turn
        showed so far."""

    def finish(self, turn: Turn) -> None: ...


class Screen(Protocol):
    def note(self, text: str) -> None: ...

    def aside(self, text: str) -> None:
        """A line on stderr (the traffic with `-v`), never inside a line of the turn."""

    def prompt(self) -> None: ...

    def begin_turn(self) -> TurnView: ...


QUESTION = ""  # the kind of a question's row that is no diff's


def permission_rows(asking: Asking, max_lines: int | None = MAX_LINES) -> list[DiffRow]:
    """The question, the diffs its tool call carries (what the user approves, drawn before the
    options; folded beyond `max_lines` rows of hunks), one row per option; each row a line with
    its kind (`QUESTION` or a diff row's, for rich's colours). The agent's title and names
    kept on their line (`visible_line`), so they cannot fake an option or the line saying which
    key answers."""
    request, keyed = asking
    rows = [DiffRow(QUESTION, visible_line(f"permission: {title_of(request)}"))]
    rows += [DiffRow(QUESTION, f"  {line}") for line in description_lines(request)]
    diffs = question_diffs(request, max_lines)
    rows += [DiffRow(row.kind, f"  {row.text}") for row in diffs]
    rows += [
        DiffRow(QUESTION, visible_line(f"  [{key}] {option.name} ({option.kind})"))
        for key, option in keyed
    ]
    rows.append(DiffRow(QUESTION, "press a key to answer (Ctrl-C cancels the turn)"))
    return rows


def permission_lines(asking: Asking) -> list[str]:
    """`permission_rows` as lines of plain text."""
    return [row.text for row in permission_rows(asking)]


def asking(request: models.RequestPermissionRequest) -> Asking:
    return request, keyed_options(request)


class PlainTurn:
    """Everything is written as it is heard; `update` comes at least every `redraw_seconds`,
    to say the turn is still running when the agent has been silent that long."""

    redraw_seconds = PAUSE_SECONDS

    def __init__(self, log: PlainLog) -> None:
        self._log = log
        # The question last written, held (not its id(): a later request object may be made at
        # the address of an answered one, and would never be written).
        self._asked: models.RequestPermissionRequest | None = None
        self._last_heard = time.monotonic()
        self._pause_told = False

    def heard(self, update: models.SessionUpdate, now: Callable[[], Turn]) -> None:
        self._last_heard, self._pause_told = time.monotonic(), False
        self._log.heard(update, now)

    def update(self, turn: Turn, asking: Asking | None) -> None:
        self._log.show(turn)
        if asking is not None and asking[0] is not self._asked:
            self._asked = asking[0]
            self._log.note("\n".join(permission_lines(asking)))
        if asking is not None:  # a question is no pause: the silence counts from its answer
            self._last_heard = time.monotonic()
        silent = time.monotonic() - self._last_heard >= PAUSE_SECONDS
        if asking is None and silent and not self._pause_told:
            self._pause_told = True
            self._log.note(STILL_WORKING)

    def note(self, text: str) -> None:
        self._log.note(text)

    def finish(self, turn: Turn) -> None:
        self._log.end(turn)


class PlainScreen:
    def __init__(self, verbosity: int) -> None:
        self._verbosity = verbosity
        self._log = PlainLog(sys.stdout, verbosity)

    def note(self, text: str) -> None:
        self._log.note(text)  # below a line the turn is still writing

    def aside(self, text: str) -> None:
        self._log.aside(text)

    def prompt(self) -> None:
        print("> ", end="", flush=True)

    def begin_turn(self) -> TurnView:
        self._log = PlainLog(sys.stdout, self._verbosity)
        return PlainTurn(self._log)
