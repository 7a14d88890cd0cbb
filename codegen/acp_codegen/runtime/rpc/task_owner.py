"""Who owns a task: `TaskOwner`, the one way the runtime keeps the tasks it starts.

Every task the runtime spawns belongs to exactly one owner, and the owner's holder decides
when it ends: a connection's owner holds its request handlers (the reader loop, which runs
the close, the connection holds itself), an agent side's the turns of its sessions, a
transport's its sender and readers, a server's its reaper and WebSocket pumps (docs/design.md
has the table). Closing the holder closes its owner:

- `close()` cancels every task the owner still runs (not the task calling it) and waits until
  all are done, then awaits what was registered with `on_close` (the work of someone the
  holder owns in turn: a connection closes its agent side this way). It may be called again
  and from several tasks; a task spawned after it began is cancelled at once.
- `async with TaskOwner(...)` is a scope: leaving it closes the owner, whatever ran inside
  (a wait that races two events, a hook answering a request) is cancelled and waited for.
- An exception a task ends with (not a cancellation) is handed to `on_error`, by default
  logged with its traceback: nothing fails silently, and nothing is left "never retrieved".
  Whoever awaits the task still gets it raised.

Why not `asyncio.TaskGroup`: a group cancels every sibling on the first failure and raises
when left, but a connection's handlers fail one at a time (each failure is an error answer,
not the end of the connection), and many owners outlive any one `async with` (a connection
is closed from elsewhere). The owner is as cheap as the bare set it replaces: `spawn` is a
`create_task`, a set add and a done callback. A path that handles every message adds to
`running` itself and discards the task when it ends (incoming.py's request tasks: a done
callback costs a loop pass per answer).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")
ErrorHandler = Callable[["asyncio.Task[Any]", BaseException], None]
Closer = Callable[[], Awaitable[None]]


class TaskOwner:
    """The tasks of one holder (see the module's notes). `name` says whose they are in logs;
    `on_error(task, exception)` replaces the default logging of a task that failed."""

    __slots__ = ("_closed", "_closers", "_closing", "_on_error", "name", "running")

    def __init__(self, name: str, *, on_error: ErrorHandler | None = None) -> None:
        self.name = name
        # Strong references (the event loop keeps only weak ones): a task is here until done.
        self.running: set[asyncio.Task[Any]] = set()
        self._on_error = on_error
        self._closing = False
        self._closers: list[Closer] = []
        self._closed: asyncio.Event | None = None  # set once the first close() is through

    def __repr__(self) -> str:
        return f"<TaskOwner {self.name!r}: {len(self.running)} running>"

    @property
    def closing(self) -> bool:
        """Whether `close()` began: what is spawned from now on is cancelled at once."""
        return self._closing

    def spawn(
        self,
        coroutine: Coroutine[Any, Any, T],
        *,
        name: str | None = None,
        context: contextvars.Context | None = None,
    ) -> asyncio.Task[T]:
        """Run `coroutine` in a task this owner keeps until it is done."""
        task = asyncio.get_running_loop().create_task(coroutine, name=name, context=context)
        return self.adopt(task)

    def adopt(self, task: asyncio.Task[T]) -> asyncio.Task[T]:
        """Keep a task made elsewhere (e.g. with a task factory of its own) as if spawned here."""
        self.running.add(task)
        task.add_done_callback(self._finished)
        if self._closing:
            task.cancel()
        return task

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self.running.discard(task)
        if task.cancelled():
            return
        problem = task.exception()  # retrieved: asyncio does not log it again at collection
        if problem is None:
            return
        if self._on_error is not None:
            self._on_error(task, problem)
        else:
            logger.error("a task of %s failed", self.name, exc_info=problem)

    def on_close(self, closer: Closer) -> None:
        """Have `close()` await `closer()` after this owner's tasks are done (in the order
        registered): how a holder closes what it owns in turn. Registered after `close()`
        began, it is not called."""
        self._closers.append(closer)

    async def wait(self) -> None:
        """Wait until every task but the current one is done (those spawned meanwhile too),
        without cancelling any. Their exceptions are the owner's to report, not raised here."""
        current = asyncio.current_task()
        while others := [task for task in self.running if task is not current and not task.done()]:
            await asyncio.wait(others)

    async def close(self) -> None:
        """Cancel what runs, wait for it, then await the closers (see the module's notes)."""
        if self._closing:  # a second caller: done once the first one's work is
            if self._closed is None:
                self._closed = asyncio.Event()
            await self._cancel_running()
            await self._closed.wait()
            return
        self._closing = True
        try:
            await self._cancel_running()
            closers, self._closers = self._closers, []
            for closer in closers:
                try:
                    await closer()
                except Exception:
                    logger.exception("closing what %s owns failed", self.name)
        finally:
            if self._closed is None:
                self._closed = asyncio.Event()
            self._closed.set()

    async def _cancel_running(self) -> None:
        current = asyncio.current_task()
        while others := [task for task in self.running if task is not current and not task.done()]:
            for task in others:
                task.cancel()
            await asyncio.wait(others)

    async def __aenter__(self) -> TaskOwner:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
