"""The turn drawn with rich and redrawn as the session changes (the `chat` extra)."""

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
from .transcript import Turn, terminal_text, tool_output, usage_text

PLAN_STYLE = {"pending": ("○", "dim"), "in_progress": ("◐", "yellow"), "completed": ("●", "green")}
STATUS_STYLE = {"completed": "green", "failed": "red", "in_progress": "yellow"}


WORKING = "the agent is working (Ctrl-C cancels the turn)"


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
        parts += [Text(f"thinking: {text.strip()}", style="italic dim") for text in turn.thoughts]
        for entries in turn.plans.values():
            parts.append(Text("plan", style="bold"))
            for entry in entries:
                mark, style = PLAN_STYLE.get(entry["status"], ("?", ""))
                parts.append(Text(f"  {mark} {entry['content']}", style=style))
        for call in turn.tool_calls:
            status = str(call.get("status") or "")
            title = call.get("title") or call["toolCallId"]
            kind = f" ({call['kind']})" if call.get("kind") else ""
            parts.append(Text(f"tool: {title}{kind}: {status}", style=STATUS_STYLE.get(status, "")))
            output = tool_output(call).strip()
            if output:
                parts.append(Text("  " + output.replace("\n", "\n  "), style="dim"))
        for terminal in turn.terminals:
            parts.append(Text(f"terminal: {terminal.get('command') or terminal['terminalId']}"))
            parts.append(Text(terminal_text(terminal).rstrip(), style="dim"))
    parts += [Text(note, style="cyan") for note in notes]
    parts += [Text(text.strip()) for text in turn.answer if text.strip()]
    if asking is not None:
        lines = permission_lines(asking)
        parts.append(Panel(Text("\n".join(lines[1:])), title=lines[0], border_style="magenta"))
    elif turn.stop_reason is None and running:
        parts.append(Spinner("dots", text=Text(WORKING, style="dim")))
    if verbosity != QUIET and turn.usage is not None:
        parts.append(Text(f"usage: {usage_text(turn.usage)}", style="dim"))
    if turn.stop_reason is not None:
        style = "green" if turn.stop_reason == "end_turn" else "yellow"
        parts.append(Text(f"turn ended: {turn.stop_reason}", style=style))
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
        self._console.print(Text(text, style="cyan"))

    def aside(self, text: str) -> None:
        print(text, file=sys.stderr, flush=True)  # while live, rich puts it above the turn

    def prompt(self) -> None:
        self._console.print(Text("> ", style="bold"), end="")

    def begin_turn(self) -> TurnView:
        return RichTurn(self._console, self._verbosity)
