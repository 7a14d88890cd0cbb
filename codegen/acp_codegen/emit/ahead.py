"""Run one CPU-bound call in a forked child while this process goes on with other work.

black, the schema checks and datamodel-code-generator all hold the GIL, so a second core only
helps through a second process. Where one is free to this process (and forking is safe), the
call runs in a child and its answer comes back pickled through a pipe; elsewhere it runs here,
at once, exactly as a plain call would. A child that fails is not trusted for its error: the same
call is made again in process, so errors (and their messages) are those of the serial path.

A fast path (docs/design.md, "Performance-sensitive paths"): `ahead` is its seam, and the
call made in process is its reference, chosen by `FORKS = False` (tests; `render.py` asks
`can_fork` too). Both must give the same answer or raise the same error
(tests/test_fast_paths_fork.py). The fork assumes: no other thread (checked), a call whose
answer pickles, and a child that touches nothing the parent relies on (the pipe aside).
"""

from __future__ import annotations

import os
import pickle
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import BinaryIO, Generic, TypeVar

R = TypeVar("R")

# False: every call runs in process, at once (the reference path), whatever the machine offers.
FORKS = True


def _spare_core() -> bool:
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return cores > 1


def can_fork() -> bool:
    """Whether `ahead` forks: allowed (`FORKS`), possible, and worth it (a spare core). Forking
    is safe only with no other thread (one could hold a lock the child needs)."""
    return FORKS and hasattr(os, "fork") and threading.active_count() == 1 and _spare_core()


class Pending(Generic[R]):
    """The answer of a call that may still be running in a child."""

    def __init__(self, call: Callable[[], R], pid: int | None, reader: BinaryIO | None) -> None:
        self._call = call
        self._pid = pid  # None: computed here already
        self._reader = reader
        self._answers: list[R] = [] if pid is not None else [call()]

    @property
    def done(self) -> bool:
        """True when asking costs no wait (it was computed in process)."""
        return self._pid is None

    def result(self) -> R:
        if self._pid is not None and self._reader is not None:
            with self._reader:
                data = self._reader.read()
            self._reader = None
            _, status = os.waitpid(self._pid, 0)
            self._pid = None
            if os.waitstatus_to_exitcode(status) == 0:
                self._answers.append(pickle.loads(data))  # our own child's bytes
        if not self._answers:
            self._answers.append(self._call())  # the same call in process: answer or error
        return self._answers[0]

    def abandon(self) -> None:
        """End the child if nobody took its answer (our own child, by its id)."""
        if self._pid is not None and self._reader is not None:
            self._reader.close()
            self._reader = None
            os.kill(self._pid, signal.SIGKILL)
            os.waitpid(self._pid, 0)
            self._pid = None


@contextmanager
def ahead(call: Callable[[], R]) -> Iterator[Pending[R]]:
    """`call()`'s pending answer: computed in a child when possible, else here and now (before
    the block runs, so the serial order of work is kept).

    Leaving the block without asking for the answer ends the child: no process is left behind."""
    if not can_fork():
        yield Pending(call, None, None)
        return
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, hand the answer over, never return into the caller's code
        status = 1
        try:
            os.close(read_end)
            data = pickle.dumps(call(), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    pending = Pending(call, pid, os.fdopen(read_end, "rb"))
    try:
        yield pending
    finally:
        pending.abandon()
