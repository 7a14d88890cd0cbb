"""A coroutine already stepped by hand, for a task to finish.

The connection drives a request it expects to be answered at once (`synchronous_requests`)
with `send(None)` itself, no task made (`IncomingMessages._answer_at_once`, part of the
incoming fast path; its reference makes a plain task per request, see reference_paths.py).
Should the coroutine suspend after all, it has yielded what it waits on; `Resumed` hands that
to the task's first step and passes every later step to the coroutine, so the task goes on
exactly where the coroutine stopped. Assumes asyncio's tasks: a task steps its coroutine with
`send` and `throw` only, the first time with `send(None)`.
"""

from __future__ import annotations

from collections.abc import Coroutine, Generator
from types import TracebackType
from typing import TypeVar

T = TypeVar("T")


class Resumed(Coroutine[object, object, T]):
    """`coroutine`, suspended on `waits_on` (a future, or None for a bare yield)."""

    def __init__(self, coroutine: Coroutine[object, object, T], waits_on: object) -> None:
        self._coroutine = coroutine
        self._waits_on = waits_on
        self._started = False

    def send(self, value: object) -> object:
        if self._started:
            return self._coroutine.send(value)
        self._started = True  # the task's first step: wait on what the coroutine waits on
        return self._waits_on

    def throw(  # the old three-argument form, as asyncio calls it
        self,
        typ: type[BaseException] | BaseException,
        val: BaseException | object = None,
        tb: TracebackType | None = None,
    ) -> object:
        """Cancelled (or thrown into) by the task, before or after its first step: the
        coroutine gets it where it waits, as a task's own coroutine would."""
        self._started = True
        if val is None and tb is None:
            return self._coroutine.throw(typ)
        return self._coroutine.throw(typ, val, tb)  # type: ignore[arg-type]

    def close(self) -> None:
        self._coroutine.close()

    def __await__(self) -> Generator[object, None, T]:
        raise TypeError("Resumed is driven by its task, never awaited")
