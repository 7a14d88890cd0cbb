"""The turn drawn with rich and redrawn as the session changes (the `chat` extra).

Text reaches rich only through `shown`: a `Text` (never a string, which rich would read as
markup: `[link=...]` from an agent would become a link) of the text made `visible`, so our
styles are the only escapes written."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.panel import Panel
from rich.spinner import Spinner
from rich.text import Text

from ..._bindings import models
from ..._bindings.snapshot import ToolCallSnapshot
from ...model import diff_view as diffs
from ..console import QUIET
from .permissions import asked_call, question_diffs
from .screens import Asking, TurnView, permission_rows
from .transcript import (
    Turn,
    ended_text,
    plan_text,
    removed_plan_text,
    terminal_heading,
    terminal_text,
    tool_content_text,
    tool_heading,
    usage_text,
)
from .visible import visible, visible_line

PLAN_STYLE = {"pending": ("○", "dim"), "in_progress": ("◐", "yellow"), "completed": ("●", "green")}
STATUS_STYLE = {"completed": "green", "failed": "red", "in_progress": "yellow"}


WORKING = "the agent is working (Ctrl-C cancels the turn)"
# The question's panel: its borders, and a line each for the spinner or usage and the cursor.
QUESTION_FRAME = 4
MIN_DIFF_ROWS = 6  # shown of a question's diffs however small the screen
# A diff's rows (model.diff_view) by kind; a question's own rows take the panel's style.
DIFF_STYLE = {
    diffs.FILE: "bold",
    diffs.HUNK: "cyan",
    diffs.ADDED: "green",
    diffs.REMOVED: "red",
    diffs.CONTEXT_LINE: "dim",
    diffs.NOTE: "dim",
    diffs.FOLDED: "dim italic",
}


def shown(text: str, style: str = "") -> Text:
    """`text` (the agent's, or ours quoting it) as rich draws it: escaped, never markup."""
    return Text(visible(text), style=style)


def shown_rows(rows: Sequence[diffs.DiffRow], indent: str = "") -> Text:
    """Rows of a diff (or a question holding one), one line each, coloured by kind."""
    drawn = Text()
    for number, row in enumerate(rows):
        if number:
            drawn.append("\n")
        drawn.append(indent + visible(row.text), style=DIFF_STYLE.get(row.kind, ""))
    return drawn


def tool_body(call: ToolCallSnapshot, *, diffs_shown: bool = True) -> list[RenderableType]:
    """A tool call's output under its heading: text dim, each diff in colour (left out with
    `diffs_shown=False`: the open question shows them)."""
    parts: list[RenderableType] = []
    text = ""
    for item in [*call["content"], None]:
        view = diffs.diff_view(item)
        if item is not None and view is None:
            text += tool_content_text(item)
            continue
        if text.strip():
            parts.append(shown("  " + text.strip().replace("\n", "\n  "), "dim"))
        text = ""
        if view is not None and diffs_shown:
            parts.append(shown_rows(diffs.diff_rows(view), "  "))
    return parts


def question_room(asking: Asking, room: int | None) -> int | None:
    """How many rows of hunks the question's diffs may take so that the question, with its
    options, fits in `room` lines (None: the screen's height is unknown, the usual fold)."""
    if room is None:
        return diffs.MAX_LINES
    fixed = len(permission_rows(asking, 0)) + QUESTION_FRAME
    return max(MIN_DIFF_ROWS, room - fixed)


def render(
    turn: Turn,
    asking: Asking | None,
    verbosity: int,
    notes: Sequence[str] = (),
    *,
    running: bool = False,
    room: int | None = None,
) -> RenderableType:
    """The turn; `notes` (permission answers, notices) after the work they followed; while the
    turn runs and nothing is asked, a spinner says it still runs. A question shows the diffs
    of its tool call (not drawn above it again), folded to fit in `room` lines."""
    # The tool call whose diffs the open question shows: drawn above it without them.
    asked = asked_call(asking[0]) if asking and question_diffs(asking[0], 0) else None
    asked_id = asked.get("toolCallId") if asked is not None else None
    parts: list[RenderableType] = []
    if verbosity != QUIET:
        parts += [shown(f"thinking: {text.strip()}", "italic dim") for text in turn.thoughts]
        if turn.title is not None:
            parts.append(shown(f"title: {turn.title}", "bold"))
        parts += [shown(line, "magenta") for line in turn.subagents.values()]
        for between in turn.between:
            parts.append(shown(f"{between.label}: {between.text.strip()}", "blue"))
        for entries in turn.plans.values():
            parts.append(shown("plan", "bold"))
            for entry in entries:
                mark, style = PLAN_STYLE.get(entry["status"], ("?", ""))
                parts.append(shown(f"  {mark} {plan_text(entry)}", style))
        parts += [shown(removed_plan_text(plan_id), "dim") for plan_id in turn.removed_plans]
        for call in turn.tool_calls:
            status = str(call.get("status") or "")
            parts.append(shown(tool_heading(call), STATUS_STYLE.get(status, "")))
            parts += tool_body(call, diffs_shown=call["toolCallId"] != asked_id)
        for terminal in turn.terminals:
            parts.append(shown(terminal_heading(terminal)))
            parts.append(shown(terminal_text(terminal).rstrip(), "dim"))
    parts += [shown(note, "cyan") for note in notes]
    parts += [shown(text.strip()) for text in turn.answer if text.strip()]
    if asking is not None:
        rows = permission_rows(asking, question_room(asking, room))
        question = shown_rows(rows[1:])
        parts.append(Panel(question, title=shown(rows[0].text), border_style="magenta"))
    elif turn.stop_reason is None and running:
        parts.append(Spinner("dots", text=shown(WORKING, "dim")))
    if verbosity != QUIET and turn.usage is not None:
        parts.append(shown(f"usage: {usage_text(turn.usage)}", "dim"))
    if turn.stop_reason is not None:
        style = "green" if turn.stop_reason == "end_turn" else "yellow"
        parts.append(shown(ended_text(turn.stop_reason), style))
    return Group(*parts)


class RichTurn:
    redraw_seconds = 0.1  # only a drawing rate

    def __init__(self, console: Console, verbosity: int) -> None:
        self._verbosity = verbosity
        self._notes: list[str] = []
        self._console = console
        self._live = Live(console=console, refresh_per_second=10, auto_refresh=False)
        self._live.start()

    def heard(self, update: models.SessionUpdate, now: Callable[[], Turn]) -> None:
        return None  # drawn from the session at the drawing rate

    def update(self, turn: Turn, asking: Asking | None) -> None:
        room = self._console.height
        shown = render(turn, asking, self._verbosity, self._notes, running=True, room=room)
        self._live.update(shown, refresh=True)

    def note(self, text: str) -> None:
        self._notes.append(text)  # drawn with the turn: printed, it would go above it

    def finish(self, turn: Turn) -> None:
        self._live.update(render(turn, None, self._verbosity, self._notes), refresh=True)
        self._live.stop()


class RichScreen:
    def __init__(self, verbosity: int) -> None:
        self._console = Console(highlight=False)
        self._verbosity = verbosity

    def note(self, text: str) -> None:
        self._console.print(shown(text, "cyan"))

    def aside(self, text: str) -> None:
        # While live, rich puts it above the turn; escaped, as it may quote the agent.
        print(visible_line(text), file=sys.stderr, flush=True)

    def prompt(self) -> None:
        self._console.print(Text("> ", style="bold"), end="")

    def begin_turn(self) -> TurnView:
        return RichTurn(self._console, self._verbosity)
