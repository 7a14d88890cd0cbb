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
from ..console import QUIET
from .screens import Asking, TurnView, permission_lines
from .transcript import (
    Turn,
    ended_text,
    plan_text,
    terminal_heading,
    terminal_text,
    tool_heading,
    tool_output,
    usage_text,
)
from .visible import visible, visible_line

PLAN_STYLE = {"pending": ("○", "dim"), "in_progress": ("◐", "yellow"), "completed": ("●", "green")}
STATUS_STYLE = {"completed": "green", "failed": "red", "in_progress": "yellow"}


WORKING = "the agent is working (Ctrl-C cancels the turn)"


def shown(text: str, style: str = "") -> Text:
    """`text` (the agent's, or ours quoting it) as rich draws it: escaped, never markup."""
    return Text(visible(text), style=style)


def render(
    turn: Turn,
    asking: Asking | None,
    verbosity: int,
    notes: Sequence[str] = (),
    *,
    running: bool = False,
) -> RenderableType:
    """The turn; `notes` (permission answers, notices) after the work they followed; while the
    turn runs and nothing is asked, a spinner says it still runs."""
    parts: list[RenderableType] = []
    if verbosity != QUIET:
        parts += [shown(f"thinking: {text.strip()}", "italic dim") for text in turn.thoughts]
        for entries in turn.plans.values():
            parts.append(shown("plan", "bold"))
            for entry in entries:
                mark, style = PLAN_STYLE.get(entry["status"], ("?", ""))
                parts.append(shown(f"  {mark} {plan_text(entry)}", style))
        for call in turn.tool_calls:
            status = str(call.get("status") or "")
            parts.append(shown(tool_heading(call), STATUS_STYLE.get(status, "")))
            output = tool_output(call).strip()
            if output:
                parts.append(shown("  " + output.replace("\n", "\n  "), "dim"))
        for terminal in turn.terminals:
            parts.append(shown(terminal_heading(terminal)))
            parts.append(shown(terminal_text(terminal).rstrip(), "dim"))
    parts += [shown(note, "cyan") for note in notes]
    parts += [shown(text.strip()) for text in turn.answer if text.strip()]
    if asking is not None:
        lines = permission_lines(asking)
        question = shown("\n".join(lines[1:]))
        parts.append(Panel(question, title=shown(lines[0]), border_style="magenta"))
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
        self._live = Live(console=console, refresh_per_second=10, auto_refresh=False)
        self._live.start()

    def heard(self, update: models.SessionUpdate, now: Callable[[], Turn]) -> None:
        return None  # drawn from the session at the drawing rate

    def update(self, turn: Turn, asking: Asking | None) -> None:
        shown = render(turn, asking, self._verbosity, self._notes, running=True)
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
