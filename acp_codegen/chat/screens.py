"""Where the interactive chat shows things. `PlainScreen` prints plain text (each turn once it
has ended, permission questions as they come); `live.RichScreen` redraws the turn as it changes.
`make_screen` picks rich when the `chat` extra is installed."""

from __future__ import annotations

import sys
from typing import Protocol

from .._bindings import models
from .permissions import keyed_options, title_of
from .plain import render_turn
from .transcript import Turn

Asking = tuple[models.RequestPermissionRequest, list[tuple[str, models.PermissionOption]]]


class TurnView(Protocol):
    def update(self, turn: Turn, asking: Asking | None) -> None: ...

    def finish(self, turn: Turn) -> None: ...


class Screen(Protocol):
    def note(self, text: str) -> None: ...

    def prompt(self) -> None: ...

    def begin_turn(self) -> TurnView: ...


def permission_lines(asking: Asking) -> list[str]:
    request, keyed = asking
    lines = [f"permission: {title_of(request)}"]
    lines += [f"  [{key}] {option.name} ({option.kind})" for key, option in keyed]
    lines.append("press a key to answer (Ctrl-C cancels the turn)")
    return lines


def asking(request: models.RequestPermissionRequest) -> Asking:
    return request, keyed_options(request)


class PlainTurn:
    def __init__(self, verbosity: int) -> None:
        self._verbosity = verbosity
        self._asked: set[int] = set()

    def update(self, turn: Turn, asking: Asking | None) -> None:
        if asking is not None and id(asking[0]) not in self._asked:
            self._asked.add(id(asking[0]))
            print("\n".join(permission_lines(asking)), flush=True)

    def finish(self, turn: Turn) -> None:
        sys.stdout.write(render_turn(turn, self._verbosity))
        sys.stdout.flush()


class PlainScreen:
    def __init__(self, verbosity: int) -> None:
        self._verbosity = verbosity

    def note(self, text: str) -> None:
        print(text, flush=True)

    def prompt(self) -> None:
        print("> ", end="", flush=True)

    def begin_turn(self) -> TurnView:
        return PlainTurn(self._verbosity)


def make_screen(verbosity: int) -> Screen:
    try:
        from .live import RichScreen
    except ImportError:  # the `chat` extra is not installed
        return PlainScreen(verbosity)
    return RichScreen(verbosity)
