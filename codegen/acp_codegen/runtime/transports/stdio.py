"""Process plumbing: serve on this process's stdin/stdout, or spawn an agent and talk to it.

stdout carries protocol messages only. While `serve_stdio` runs, Python-level `print()` and
`sys.stdout` writes go to stderr instead, and so does file descriptor 1 itself: what child
processes (`subprocess.run(["echo"])`) and C extensions print goes to stderr too. Logging
(stderr by default) stays on stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import selectors
import stat
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any, Final

from ..rpc.connection import Connection
from ..rpc.dispatch import Dispatcher
from ..rpc.task_owner import TaskOwner
from ..rpc.trace import Tracer, TraceTarget, tracer_for
from ..wire.line_framing import DEFAULT_MAX_LINE_BYTES, ByteSink
from ..wire.pushed_lines import PipeLines, PushedLines

DispatcherFactory = Callable[[Connection], Dispatcher]
_READ_CHUNK = 1 << 20
# What one read of a pipe asks for. asyncio asks for 256 KiB, more than a pipe holds (64 KiB
# by default), and glibc serves that size with mmap, mremap and munmap on every read unless an
# earlier large free happened to raise its threshold: 30-40 µs a message in a process whose
# modules load from bytecode. Below the threshold, the buffer comes from the heap.
PIPE_READ_BYTES: Final = 64 * 1024
# Owns the file readers of `open_stdio` calls given no owner: each ends at end of file.
_FILE_READERS = TaskOwner("stdin file readers")
# How long an agent whose stdin ended waits for its stdout's reader to take the rest.
STDOUT_FLUSH_SECONDS: Final = 30.0
_STDOUT_FD: Final = 1
_STDERR_FD: Final = 2


def _read_pipe_in_small_reads(transport: asyncio.BaseTransport | None) -> None:
    if transport is not None and hasattr(transport, "max_size"):  # asyncio's pipe transports
        transport.max_size = PIPE_READ_BYTES


def _is_pollable(fd: int) -> bool:
    """Pipes, sockets and terminals work with the event loop; regular files do not, nor do
    character devices the selector refuses (`/dev/null`: epoll says EPERM, and the loop would
    only log that and never read)."""
    mode = os.fstat(fd).st_mode
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return True
    if not stat.S_ISCHR(mode):
        return False
    with selectors.DefaultSelector() as probe:
        try:
            probe.register(fd, selectors.EVENT_READ)
        except OSError:
            return False
    return True


class _FileSink:
    """Blocking writes to a regular file (stdout redirected to a file)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._closed = False

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            os.close(self._fd)

    def is_closing(self) -> bool:
        return self._closed


async def _pump_file(fd: int, reader: asyncio.StreamReader) -> None:
    """Feed a regular file into a StreamReader from a worker thread. Cancelled, it waits for
    the read in flight (one chunk of a regular file): the descriptor is closed when the task
    is done (`_file_read`), and the worker thread reads from it until then."""
    loop = asyncio.get_running_loop()
    while True:
        read = loop.run_in_executor(None, os.read, fd, _READ_CHUNK)
        try:
            chunk = await asyncio.shield(read)
        except asyncio.CancelledError:
            await asyncio.wait([read])
            raise
        if not chunk:
            return
        reader.feed_data(chunk)


def _file_read(fd: int, reader: asyncio.StreamReader) -> None:
    """The file's reader task is done (read to the end, failed, or cancelled, perhaps before
    it ever ran): the stream ends and the descriptor is closed."""
    reader.feed_eof()
    os.close(fd)


async def open_stdio(
    tasks: TaskOwner | None = None,
) -> tuple[PushedLines | asyncio.StreamReader, ByteSink]:
    """A reader on stdin and a writer on stdout (on duplicated descriptors). A pipe, socket or
    terminal pushes its lines as they arrive (`PushedLines`); a regular file is read by a worker
    thread into a StreamReader, in a task `tasks` owns (closing it stops the reading; without
    one, the task is this module's and ends at end of file)."""
    loop = asyncio.get_running_loop()
    reader: PushedLines | asyncio.StreamReader
    in_fd = os.dup(sys.stdin.fileno())
    if _is_pollable(in_fd):
        stdin = os.fdopen(in_fd, "rb", buffering=0)
        lines = reader = PushedLines()
        read_transport, _ = await loop.connect_read_pipe(lambda: PipeLines(lines), stdin)
        _read_pipe_in_small_reads(read_transport)
    else:
        reader = asyncio.StreamReader()
        owner = _FILE_READERS if tasks is None else tasks
        pump = owner.spawn(_pump_file(in_fd, reader), name="stdin file reader")
        pump.add_done_callback(lambda _: _file_read(in_fd, reader))
    out_fd = os.dup(sys.stdout.fileno())
    if not _is_pollable(out_fd):
        return reader, _FileSink(out_fd)
    stdout = os.fdopen(out_fd, "wb", buffering=0)
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), stdout
    )
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)


async def serve_stdio(
    dispatcher_factory: DispatcherFactory,
    *,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    trace: TraceTarget | Tracer | None = None,
) -> None:
    """Serve one connection on stdin/stdout; return when stdin closes (so the process can
    exit 0). `dispatcher_factory` gets the connection, for handlers that call the peer.
    `trace` (default: the file `ACP_TRACE` names) records the traffic, see `trace.Tracer`."""
    reading = TaskOwner("serve_stdio")  # stdin's file reader, if stdin is a file
    reader, writer = await open_stdio(reading)
    connection = Connection(reader, writer, max_line_bytes=max_line_bytes, trace=tracer_for(trace))
    connection.dispatcher = dispatcher_factory(connection)
    try:
        with contextlib.redirect_stdout(sys.stderr), _stdout_descriptor_to_stderr():
            await connection.run()
            await _written_out(writer)
    finally:
        await reading.close()


async def _written_out(writer: ByteSink) -> None:
    """Wait until stdout's pipe took what the connection wrote: a peer that closed our stdin
    may still be reading (`printf ... | agent | ...`), and the answers held in the transport
    would be lost if the process exited now. Bounded (`STDOUT_FLUSH_SECONDS`): a peer that
    stopped reading does not keep the process alive."""
    wait_closed = getattr(writer, "wait_closed", None)
    if wait_closed is None:
        return  # a regular file: every write was done when it was made
    writer.close()  # the connection closed it already; closing again is harmless
    with contextlib.suppress(Exception):  # a timeout, or the pipe broke: nothing more to do
        await asyncio.wait_for(wait_closed(), STDOUT_FLUSH_SECONDS)


@contextlib.contextmanager
def _stdout_descriptor_to_stderr() -> Iterator[None]:
    """Point file descriptor 1 at stderr while serving (the protocol writes to a duplicate
    `open_stdio` made), so what child processes and C code print never reaches the protocol
    stream; restored afterwards."""
    sys.stdout.flush()  # what the program printed before serving goes where it was meant to
    saved = os.dup(_STDOUT_FD)
    try:
        os.dup2(_STDERR_FD, _STDOUT_FD)
    except OSError:  # no stderr: the output is dropped rather than mixed into the protocol
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, _STDOUT_FD)
        os.close(null)
    try:
        yield
    finally:
        os.dup2(saved, _STDOUT_FD)
        os.close(saved)


@dataclass
class AgentProcess:
    """An agent subprocess and the connection over its stdin/stdout. The connection reads the
    agent's stdout from a pipe of its own: `process.stdout` is None."""

    process: asyncio.subprocess.Process
    connection: Connection

    async def close(self, grace_seconds: float = 5.0) -> int:
        """Close the connection (the agent sees end of stdin) and wait for it to exit; after
        `grace_seconds` terminate it, then kill it. Returns the exit code."""
        await self.connection.close()
        for stop in (None, self.process.terminate, self.process.kill):
            if stop is not None and self.process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    stop()
            try:
                return await asyncio.wait_for(self.process.wait(), grace_seconds)
            except TimeoutError:
                continue
        return await self.process.wait()

    async def __aenter__(self) -> AgentProcess:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


async def spawn_agent(
    argv: Sequence[str],
    dispatcher_factory: DispatcherFactory | None = None,
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    stderr: int | IO[Any] | None = None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    trace: TraceTarget | Tracer | None = None,
    start_new_session: bool = False,
) -> AgentProcess:
    """Start `argv` with piped stdin/stdout and a started connection over them. `stderr` is
    inherited unless given (e.g. `asyncio.subprocess.DEVNULL`). `trace` (default: the file
    `ACP_TRACE` names) records the traffic, see `trace.Tracer`. `start_new_session=True` runs
    the agent in a session (and process group) of its own, so signals the terminal sends to
    its foreground group, such as Ctrl-C's SIGINT, reach the client alone: an interactive
    client can then answer Ctrl-C by cancelling the turn instead of losing the agent."""
    # The agent's stdout is a pipe of our own, read by `PipeLines`: asyncio's subprocess pipes
    # hand each read to the protocol a loop pass later (`call_soon`), a pass per round trip.
    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=write_fd,
            stderr=stderr,
            env=None if env is None else dict(env),
            cwd=cwd,
            start_new_session=start_new_session,
        )
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)  # the agent has its own copy: its exit is our end of stream
    assert process.stdin is not None
    lines = PushedLines()
    stdout = os.fdopen(read_fd, "rb", buffering=0)
    try:
        read_transport, _ = await loop.connect_read_pipe(lambda: PipeLines(lines), stdout)
    except BaseException:
        stdout.close()
        process.kill()
        raise
    _read_pipe_in_small_reads(read_transport)
    connection = Connection(
        lines, process.stdin, max_line_bytes=max_line_bytes, trace=tracer_for(trace)
    )
    if dispatcher_factory is not None:
        connection.dispatcher = dispatcher_factory(connection)
    connection.start()
    return AgentProcess(process, connection)
