"""Real subprocesses: `spawn_agent` on one side, `serve_stdio` on the other."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.runtime.rpc.connection import Connection
from acp_codegen.runtime.rpc.task_owner import TaskOwner
from acp_codegen.runtime.transports.stdio import (
    PIPE_READ_BYTES,
    _written_out,
    open_stdio,
    spawn_agent,
)
from acp_codegen.runtime.wire.errors import ConnectionClosed, RpcError
from acp_codegen.runtime.wire.pushed_lines import PushedLines

from .streams import HANG_GUARD_SECONDS, guard, run

AGENT = Path(__file__).with_name("echo_agent.py")
REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


class ClientSide:
    def __init__(self, connection: Connection) -> None:
        self.pongs: list[Any] = []

    async def handle_request(self, method: str, params: Any) -> Any:
        if method == "client/answer":
            return {"yes": params}
        raise RpcError.method_not_found(method)

    async def handle_notification(self, method: str, params: Any) -> None:
        if method == "pong":
            self.pongs.append(params)


def test_spawned_agent_round_trips_and_exits_zero_when_stdin_closes() -> None:
    async def scenario() -> None:
        client: ClientSide | None = None

        def factory(connection: Connection) -> ClientSide:
            nonlocal client
            client = ClientSide(connection)
            return client

        agent = await spawn_agent(
            [sys.executable, str(AGENT)], factory, env=ENV, stderr=asyncio.subprocess.PIPE
        )
        connection = agent.connection
        assert agent.process.stdout is None  # the connection reads a pipe of its own
        assert await guard(connection.request("echo", {"text": "hé\nllo"})) == {"text": "hé\nllo"}
        await connection.notify("ping", [1])
        answer = await guard(connection.request("ask_client", {"q": 1}))
        assert answer == {"client said": {"yes": {"q": 1}}}
        assert client is not None and client.pongs == [[1]]  # handled before that response
        with pytest.raises(RpcError) as caught:
            await guard(connection.request("missing"))
        assert caught.value.code == -32601
        assert await agent.close() == 0
        assert agent.process.stderr is not None
        stderr = await guard(agent.process.stderr.read())
        assert b"a stray print must not reach the protocol stream" in stderr

    run(scenario())


def test_agent_dying_mid_request_fails_the_request_promptly() -> None:
    async def scenario() -> None:
        agent = await spawn_agent([sys.executable, str(AGENT)], env=ENV)
        with pytest.raises(ConnectionClosed):
            await guard(agent.connection.request("die"))
        assert await guard(agent.process.wait()) == 3
        await agent.close()

    run(scenario())


@pytest.mark.parametrize("own_session", [False, True])
def test_start_new_session_puts_the_agent_in_a_session_and_group_of_its_own(
    own_session: bool,
) -> None:
    """Ctrl-C's SIGINT goes to the terminal's foreground process group: an agent started with
    `start_new_session=True` is outside it (and outside this process's session); by default it
    shares both, as before."""

    async def scenario() -> None:
        agent = await spawn_agent(
            [sys.executable, str(AGENT)], env=ENV, start_new_session=own_session
        )
        pid = agent.process.pid
        try:
            assert await guard(agent.connection.request("echo", {"n": 1})) == {"n": 1}
            if own_session:
                assert (os.getsid(pid), os.getpgid(pid)) == (pid, pid)
                assert os.getsid(pid) != os.getsid(0) and os.getpgid(pid) != os.getpgid(0)
            else:
                assert (os.getsid(pid), os.getpgid(pid)) == (os.getsid(0), os.getpgid(0))
        finally:
            assert await agent.close() == 0

    run(scenario())


def test_serve_stdio_works_with_regular_files(tmp_path: Path) -> None:
    requests = tmp_path / "in.jsonl"
    requests.write_text(
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "echo", "params": {"a": 1}})
        + "\n"
        + json.dumps({"jsonrpc": "2.0", "id": 2, "method": "nope"})
        + "\n"
    )
    responses = tmp_path / "out.jsonl"
    with requests.open("rb") as stdin, responses.open("wb") as stdout:
        done = subprocess.run(
            [sys.executable, str(AGENT)],
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            env=ENV,
            timeout=HANG_GUARD_SECONDS,
            check=False,
        )
    assert done.returncode == 0, done.stderr.decode()
    lines = [json.loads(line) for line in responses.read_text().splitlines()]
    by_id = {line["id"]: line for line in lines}
    assert len(lines) == 2
    assert by_id[1] == {"jsonrpc": "2.0", "id": 1, "result": {"a": 1}}
    assert by_id[2]["error"]["code"] == -32601


def test_closing_the_owner_of_a_regular_files_reader_ends_it_and_the_stream(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`open_stdio(tasks)` on a regular file: its reader is a task of `tasks`; closing them
    stops the reading (the read in flight finishes first) and ends the stream."""
    data = tmp_path / "in.bin"
    data.write_bytes(b"x" * (32 << 20))  # many reads of one chunk: still reading when closed

    async def scenario() -> None:
        with data.open("rb") as stdin, open(os.devnull, "wb") as stdout:
            monkeypatch.setattr(sys, "stdin", stdin)
            monkeypatch.setattr(sys, "stdout", stdout)
            owner = TaskOwner("test")
            reader, writer = await open_stdio(owner)
            assert isinstance(reader, asyncio.StreamReader)  # a file: read by a worker thread
            [pump] = owner.running
            await owner.close()
            assert pump.cancelled() and not owner.running
            read = await guard(reader.read())  # what came before the close, then the end
            assert len(read) < len(data.read_bytes())
            writer.close()

    run(scenario())


def test_serve_stdio_ends_at_once_on_dev_null() -> None:
    """`agent < /dev/null > /dev/null`: the loop cannot poll /dev/null, so it is read like a
    file (end of input at once) instead of waiting forever for a reader that never runs."""
    done = subprocess.run(
        [sys.executable, str(AGENT)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=ENV,
        timeout=HANG_GUARD_SECONDS,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert b"Traceback" not in done.stderr


class ReadSizes:
    """Records what each `os.read` asks for, per descriptor (asyncio's pipe transports read
    with `os.read(fd, max_size)`)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.asked: dict[int, list[int]] = {}
        real_read = os.read

        def read(fd: int, size: int) -> bytes:
            self.asked.setdefault(fd, []).append(size)
            return real_read(fd, size)

        monkeypatch.setattr(os, "read", read)


def test_spawned_agent_pipe_is_read_in_heap_sized_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """asyncio asks for 256 KiB per read, which glibc may serve with mmap/munmap every time;
    the client's reads stay at PIPE_READ_BYTES, and a message several reads long still
    arrives whole."""
    sizes = ReadSizes(monkeypatch)
    big = "x" * (5 * PIPE_READ_BYTES)

    async def scenario() -> None:
        agent = await spawn_agent([sys.executable, str(AGENT)], env=ENV)
        lines = agent.connection._lines
        assert isinstance(lines, PushedLines) and lines.transport is not None
        stdout_fd = lines.transport.get_extra_info("pipe").fileno()
        assert await guard(agent.connection.request("echo", {"text": big})) == {"text": big}
        assert await agent.close() == 0
        asked = sizes.asked[stdout_fd]
        assert len(asked) >= 5
        assert set(asked) == {PIPE_READ_BYTES}

    run(scenario())


def test_served_stdin_pipe_is_read_in_heap_sized_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    sizes = ReadSizes(monkeypatch)
    read_end, write_end = os.pipe()
    sink_read, sink_write = os.pipe()
    line = b"y" * (3 * PIPE_READ_BYTES) + b"\n"

    async def scenario() -> None:
        with open(read_end, "rb", buffering=0) as stdin, open(sink_write, "wb") as stdout:
            monkeypatch.setattr(sys, "stdin", stdin)
            monkeypatch.setattr(sys, "stdout", stdout)
            reader, writer = await open_stdio()
            assert isinstance(reader, PushedLines)  # a pipe pushes its lines
            with open(write_end, "wb", buffering=0) as feed:
                writer_task = asyncio.get_running_loop().run_in_executor(None, feed.write, line)
                assert await guard(reader.read_line()) == line[:-1]
                await guard(writer_task)
            writer.close()
        os.close(sink_read)
        asked = [size for seen in sizes.asked.values() for size in seen]  # stdin's reads only
        assert len(asked) >= 3
        assert set(asked) == {PIPE_READ_BYTES}

    run(scenario())


def _serve_agent() -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, str(AGENT)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )


def _send(agent: subprocess.Popen[bytes], request_id: int, method: str, params: Any) -> None:
    assert agent.stdin is not None
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    agent.stdin.write(json.dumps(message).encode() + b"\n")
    agent.stdin.flush()


def test_what_a_child_process_prints_goes_to_stderr_not_the_protocol_stream() -> None:
    with _serve_agent() as agent:
        assert agent.stdout is not None and agent.stdin is not None
        _send(agent, 1, "run_child", {})
        first_line = agent.stdout.readline()
        agent.stdin.close()
        assert agent.wait(HANG_GUARD_SECONDS) == 0
        stderr = agent.stderr.read() if agent.stderr is not None else b""
    assert json.loads(first_line) == {"jsonrpc": "2.0", "id": 1, "result": {"ran": True}}
    assert b"a child process wrote this" in stderr


def test_agent_exits_zero_without_a_traceback_when_the_client_stops_reading_mid_stream() -> None:
    """The client reads one frame of a long stream, then closes both pipes and goes."""
    with _serve_agent() as agent:
        assert agent.stdout is not None and agent.stdin is not None
        _send(agent, 1, "flood", {"count": 100_000})
        agent.stdout.readline()  # the stream has started
        agent.stdout.close()
        agent.stdin.close()
        status = agent.wait(HANG_GUARD_SECONDS)
        stderr = agent.stderr.read() if agent.stderr is not None else b""
    assert (status, stderr) == (0, b"")


def test_serving_ends_only_once_stdouts_pipe_took_every_answer() -> None:
    """`printf ... | agent | slow-reader`: when stdin ends, answers may still wait in the
    stdout transport (the pipe holds 64 KiB); `serve_stdio` returns only once the reader has
    taken them, or the process would exit without them."""

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        read_fd, write_fd = os.pipe()
        go, taken = threading.Event(), bytearray()

        def slow_reader() -> None:
            go.wait()
            while chunk := os.read(read_fd, 65536):
                taken.extend(chunk)

        reader = threading.Thread(target=slow_reader, daemon=True)
        reader.start()
        transport, protocol = await loop.connect_write_pipe(
            lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()),
            os.fdopen(write_fd, "wb", buffering=0),
        )
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        answers = b"x" * 1_000_000
        try:
            writer.write(answers)
            writer.close()  # as the connection does when stdin ends
            waiting = asyncio.ensure_future(_written_out(writer))
            for _ in range(20):  # nothing reads the pipe: it cannot be done
                await asyncio.sleep(0)
            assert not waiting.done() and transport.get_write_buffer_size() > 0
        finally:
            go.set()  # the reader runs to the end of the pipe whatever happened
        await guard(waiting)
        await loop.run_in_executor(None, reader.join)
        os.close(read_fd)
        assert bytes(taken) == answers

    run(scenario())
