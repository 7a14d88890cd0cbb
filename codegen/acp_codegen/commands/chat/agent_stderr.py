"""What an agent writes on stderr, and what the runtime logs about it. Without `--verbose` the
agent's stderr is kept aside, to quote when it fails; with it, stderr and the runtime's log are
shown line by line as they come, through the screen's `aside`, which escapes them: the agent's
stderr is its own text like any other, never passed to the terminal raw."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import os
import sys
import tempfile
from collections.abc import Callable
from typing import IO

from .visible import visible_line

RUNTIME_LOGGER = "acp_codegen._bindings"  # the runtime logs what it drops or repairs
STDERR_LINES = 6  # of a failed turn: a traceback's last frame and its error
LINE_CHARS = 4096  # a line that never ends is shown in pieces this long
_READ = 1 << 16
_LAST_READS = 64  # at most this many reads of what is left when the chat stops
Show = Callable[[str], None]


def _to_stderr(line: str) -> None:
    print(visible_line(line), file=sys.stderr, flush=True)


class AgentStderr:
    """The agent's stderr: kept in a file (`show` None), or read from a pipe and each line
    handed to `show` (which must escape it: the screens' `aside` do)."""

    def __init__(self, show: Show | None) -> None:
        self._show = show
        self._kept: IO[bytes] | None = None if show else tempfile.TemporaryFile()  # noqa: SIM115
        self._turn_at = 0  # where the kept stderr stood when the last turn began
        self._read_fd: int | None = None
        self._write_fd: int | None = None
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._partial = ""

    def target(self) -> int | IO[bytes]:
        """What to give the agent's process as its stderr; call `spawned` once it started."""
        if self._kept is not None:
            return self._kept
        self._read_fd, self._write_fd = os.pipe()
        os.set_blocking(self._read_fd, False)
        asyncio.get_running_loop().add_reader(self._read_fd, self._readable)
        return self._write_fd

    def spawned(self) -> None:
        """The process has its copy of the pipe (or failed to start): close ours, so its exit
        ends what is read."""
        if self._write_fd is not None:
            os.close(self._write_fd)
            self._write_fd = None

    def turn_begins(self) -> None:
        if self._kept is not None:
            self._turn_at = self._kept.seek(0, 2)

    def last_line(self) -> str:
        """The last non-blank line kept ("" with `--verbose`: it was shown)."""
        return "".join(self._tail(0, 1))

    def turn_failure(self, agent: str) -> str | None:
        """The last lines the agent wrote on stderr during the turn, which say why it failed
        (None with `--verbose`: they are on the terminal already)."""
        if self._kept is None:
            return None
        lines = self._tail(self._turn_at, STDERR_LINES)
        if not lines:
            return f"{agent} failed the turn and wrote nothing on stderr"
        return "\n".join([f"{agent} failed the turn; its stderr ends:", *lines])

    def close(self) -> None:
        """Show what is left to read of the pipe, then stop reading it."""
        self.spawned()
        if self._read_fd is None:
            return
        with contextlib.suppress(BlockingIOError, OSError):
            # What is there now, within bounds: a child of the agent may never stop writing.
            for _ in range(_LAST_READS):
                if not self._pump():
                    break
        self._finish()

    def _tail(self, start: int, count: int) -> list[str]:
        """The last `count` non-blank lines kept after offset `start`, one line each."""
        if self._kept is None:
            return []
        end = self._kept.seek(0, 2)
        self._kept.seek(max(start, end - 8192))
        # Lines end at a newline only: a CR inside one is shown, not taken for a line end.
        lines = self._kept.read().decode("utf-8", errors="replace").split("\n")
        return [visible_line(line.rstrip()[:200]) for line in lines if line.strip()][-count:]

    def _readable(self) -> None:
        try:
            more = self._pump()
        except BlockingIOError:
            return
        except OSError:
            more = False
        if not more:
            self._finish()

    def _pump(self) -> bool:
        """Read once and show the lines it completed; False at the end of the stream."""
        assert self._read_fd is not None
        data = os.read(self._read_fd, _READ)
        self._partial += self._decoder.decode(data, final=not data)
        *lines, self._partial = self._partial.split("\n")
        while len(self._partial) > LINE_CHARS:
            lines.append(self._partial[:LINE_CHARS])
            self._partial = self._partial[LINE_CHARS:]
        for line in lines:
            self._line(line)
        return bool(data)

    def _line(self, line: str) -> None:
        if self._show is not None:
            self._show(line.removesuffix("\r"))  # a Windows line end

    def _finish(self) -> None:
        if self._read_fd is None:
            return
        asyncio.get_running_loop().remove_reader(self._read_fd)
        os.close(self._read_fd)
        self._read_fd = None
        if self._partial:
            self._line(self._partial)
            self._partial = ""


class ShownLog(logging.Handler):
    """The runtime's log with `--verbose`: each line of a record handed to `show` (which
    escapes it), instead of Python's last-resort handler writing it raw to stderr."""

    def __init__(self, show: Show) -> None:
        super().__init__(logging.WARNING)
        self._show = show

    def emit(self, record: logging.LogRecord) -> None:
        try:
            for line in self.format(record).splitlines():
                self._show(line)
        except Exception:
            self.handleError(record)


def runtime_log(verbose: bool, show: Show | None) -> ShownLog | None:
    """Set what the runtime logs: warnings shown through `show` with `--verbose` (the handler,
    to remove at the end), nothing otherwise."""
    logger = logging.getLogger(RUNTIME_LOGGER)
    logger.setLevel(logging.WARNING if verbose else logging.CRITICAL)
    if not verbose:
        return None
    handler = ShownLog(show or _to_stderr)
    logger.addHandler(handler)
    return handler


def stop_runtime_log(handler: ShownLog | None) -> None:
    if handler is not None:
        logging.getLogger(RUNTIME_LOGGER).removeHandler(handler)


def agent_stderr(verbose: bool, show: Show | None) -> AgentStderr:
    """Kept aside, or with `--verbose` shown through `show` (plain stderr if none)."""
    return AgentStderr((show or _to_stderr) if verbose else None)
