"""Format one big module in a forked child while the parent renders the rest.

black is CPU-bound and holds the GIL; the models module is most of its time in a full generate.
Where a spare core exists, a forked child formats it alongside the parent's work. The bytes are
the same function's either way, and a child that fails is redone in process, so errors (and their
messages) stay exactly those of the serial path.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Formatter = Callable[[str], str]


def _spare_core() -> bool:
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return cores > 1


def can_fork() -> bool:
    """Forking is safe only with no other thread (one could hold a lock the child needs)."""
    return hasattr(os, "fork") and threading.active_count() == 1 and _spare_core()


@contextmanager
def formatted_ahead(fmt: Formatter, source: str) -> Iterator[Callable[[], str]]:
    """Yield a callable that returns `fmt(source)`; it is computed in a child when possible.

    Leaving the block without collecting the result ends the child (no process left behind)."""
    if not can_fork():
        yield lambda: fmt(source)
        return
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: format, hand the text over, never return into the caller's code
        status = 1
        try:
            os.close(read_end)
            data = fmt(source).encode("utf-8")
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    reader = os.fdopen(read_end, "rb")
    collected = False

    def result() -> str:
        nonlocal collected
        with reader:
            data = reader.read()
        collected = True
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            return fmt(source)  # the same call in process: its answer or its error
        return data.decode("utf-8")

    try:
        yield result
    finally:
        if not collected:
            reader.close()
            os.kill(pid, signal.SIGKILL)  # our own child, by its id: nobody will read its answer
            os.waitpid(pid, 0)
