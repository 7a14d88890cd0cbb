"""A coroutine already stepped by hand, for a task to finish.

The connection drives a request it expects to be answered at once (`synchronous_requests`)
with `send(None)` itself, no task made. Should the coroutine suspend after all, it has
yielded what it waits on; `Resumed` hands that to the task's first step and passes every later
step to the coroutine, so the task goes on exactly where the coroutine stopped.
"""

from __future__ import annotations

from collections.abc import Coroutine, Generator
from typing import Any, TypeVar

T = TypeVar("T")


class Resumed(Coroutine[Any, Any, T]):
    """`coroutine`, suspended on `waits_on` (a future, or None for a bare yield)."""

    def __init__(self, coroutine: Coroutine[Any, Any, T], waits_on: Any) -> None:
        self._coroutine = coroutine
        self._waits_on = waits_on
        self._started = False

    def send(self, value: Any) -> Any:
        if self._started:
            return self._coroutine.send(value)
        self._started = True  # the task's first step: wait on what the coroutine waits on
        return self._waits_on

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:
        """Cancelled (or thrown into) by the task, before or after its first step: the
        coroutine gets it where it waits, as a task's own coroutine would."""
        self._started = True
        if val is None and tb is None:
            return self._coroutine.throw(typ)
        return self._coroutine.throw(typ, val, tb)

    def close(self) -> None:
        self._coroutine.close()

    def __await__(self) -> Generator[Any, None, T]:
        raise TypeError("Resumed is driven by its task, never awaited")
