"""Where the interactive chat shows things. `PlainScreen` writes plain text as the turn happens
(`plain.PlainLog`, fed each update); `live.RichScreen` redraws the turn as it changes, at a
drawing rate. `interactive.make_screen` picks rich when the `chat` extra is installed."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Protocol

from ..._bindings import models
from .permissions import keyed_options, title_of
from .plain import PlainLog
from .transcript import Turn

Asking = tuple[models.RequestPermissionRequest, list[tuple[str, models.PermissionOption]]]


class TurnView(Protocol):
    @property
    def redraw_seconds(self) -> float | None:
        """How often `update` wants the turn while it runs (None: only when asked something)."""

    def heard(self, update: models.SessionUpdate, now: Callable[[], Turn]) -> None:
        """One update, just folded into the session; `now()` reads the turn so far."""

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
    redraw_seconds = None  # everything is written as it is heard

    def __init__(self, log: PlainLog) -> None:
        self._log = log
        self._asked: set[int] = set()

    def heard(self, update: models.SessionUpdate, now: Callable[[], Turn]) -> None:
        self._log.heard(update, now)

    def update(self, turn: Turn, asking: Asking | None) -> None:
        self._log.show(turn)
        if asking is not None and id(asking[0]) not in self._asked:
            self._asked.add(id(asking[0]))
            self._log.note("\n".join(permission_lines(asking)))

    def finish(self, turn: Turn) -> None:
        self._log.end(turn)


class PlainScreen:
    def __init__(self, verbosity: int) -> None:
        self._verbosity = verbosity
        self._log = PlainLog(sys.stdout, verbosity)

    def note(self, text: str) -> None:
        self._log.note(text)  # below a line the turn is still writing

    def prompt(self) -> None:
        print("> ", end="", flush=True)

    def begin_turn(self) -> TurnView:
        self._log = PlainLog(sys.stdout, self._verbosity)
        return PlainTurn(self._log)
