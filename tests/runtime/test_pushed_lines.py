"""`PushedLines`: what a transport's callback pushes is handled there while the reader loop
waits, in wire order, with back-pressure, end of stream and failures as a StreamReader has
them. Bytes are pushed by calling `received` as a protocol callback would."""

from __future__ import annotations

import asyncio
import gc
import json
import warnings
from typing import Any

from acp_codegen.runtime.rpc.connection import Connection
from acp_codegen.runtime.rpc.dispatch import Dispatcher
from acp_codegen.runtime.wire.errors import ConnectionClosed
from acp_codegen.runtime.wire.pushed_lines import PAUSE_ABOVE_BYTES, PushedLines

from .streams import RecordingSink, guard, run


class FakeTransport(asyncio.ReadTransport):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def pause_reading(self) -> None:
        self.calls.append("pause")

    def resume_reading(self) -> None:
        self.calls.append("resume")


class Recorder:
    """Records what it handles: `note` inline (synchronously), `slow_note` as a coroutine that
    yields a few times, `work` as a request whose first step is recorded."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.gate: asyncio.Event | None = None

    async def handle_request(self, method: str, params: Any) -> Any:
        self.seen.append(f"request {params['n']} started")
        await asyncio.sleep(0)
        return {"n": params["n"]}

    async def handle_notification(self, method: str, params: Any) -> None:
        if self.gate is not None:
            await self.gate.wait()
        for _ in range(3):
            await asyncio.sleep(0)
        self.seen.append(f"{method} {params['n']}")

    def inline_notifications(self) -> dict[str, Any]:
        return {"note": lambda params: self.seen.append(f"note {params['n']}")}


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def note(n: int, method: str = "note") -> bytes:
    return line({"jsonrpc": "2.0", "method": method, "params": {"n": n}})


async def parked(lines: PushedLines) -> None:
    while not lines.parked:  # yields to the loop until the reader waits (no clock involved)
        await asyncio.sleep(0)


async def started(
    dispatcher: Dispatcher | None = None,
) -> tuple[Connection, PushedLines, RecordingSink, FakeTransport]:
    lines, sink, transport = PushedLines(), RecordingSink(), FakeTransport()
    lines.attach(transport)
    connection = Connection(lines, sink, dispatcher)
    connection.start()
    await guard(parked(lines))
    return connection, lines, sink, transport


def test_lines_are_handled_in_the_transports_callback_while_the_reader_waits() -> None:
    async def scenario() -> None:
        recorder = Recorder()
        connection, lines, _, _ = await started(recorder)
        lines.received(note(1) + note(2) + b'{"jsonrpc": "2.0", "method": "no')
        assert recorder.seen == ["note 1", "note 2"]  # before this task yielded even once
        assert lines.parked  # the partial line waits for the rest
        lines.received(b'te", "params": {"n": 3}}\n')
        assert recorder.seen == ["note 1", "note 2", "note 3"]
        await connection.close()

    run(scenario())


def test_a_response_resolves_its_request_in_the_callback() -> None:
    async def scenario() -> None:
        connection, lines, sink, _ = await started()
        asking = asyncio.create_task(connection.request("ask", {"q": 1}))
        while not sink.writes:
            await asyncio.sleep(0)
        sent = sink.messages()[0]
        [pending] = connection._pending.values()
        lines.received(line({"jsonrpc": "2.0", "id": sent["id"], "result": {"a": 1}}))
        assert pending.done() and pending.result() == {"a": 1}
        assert await guard(asking) == {"a": 1}
        await connection.close()

    run(scenario())


def test_what_must_be_awaited_holds_back_the_lines_after_it() -> None:
    """Wire order: a notification handled by a coroutine ends the callback's turn; the lines
    after it wait for the loop, which takes them once the coroutine is done."""

    async def scenario() -> None:
        recorder = Recorder()
        connection, lines, _, _ = await started(recorder)
        lines.received(note(1) + note(2, "slow") + note(3) + note(4, "slow") + note(5))
        assert recorder.seen == ["note 1"]
        assert not lines.parked
        await guard(parked(lines))
        assert recorder.seen == ["note 1", "slow 2", "note 3", "slow 4", "note 5"]
        await connection.close()

    run(scenario())


def test_a_request_starts_before_the_line_after_it_is_taken() -> None:
    async def scenario() -> None:
        recorder = Recorder()
        connection, lines, sink, _ = await started(recorder)
        request = {"jsonrpc": "2.0", "id": 7, "method": "work", "params": {"n": 1}}
        lines.received(line(request) + note(2))
        assert recorder.seen == []  # the handler's task runs on the loop's next pass
        await guard(parked(lines))
        assert recorder.seen[:2] == ["request 1 started", "note 2"]
        while not sink.writes:
            await asyncio.sleep(0)
        assert sink.messages() == [{"jsonrpc": "2.0", "id": 7, "result": {"n": 1}}]
        await connection.close()

    run(scenario())


def test_bytes_pushed_before_the_reader_starts_are_read_when_it_does() -> None:
    async def scenario() -> None:
        recorder = Recorder()
        lines = PushedLines()
        lines.received(note(1) + note(2))
        connection = Connection(lines, RecordingSink(), recorder)
        connection.start()
        await guard(parked(lines))
        assert recorder.seen == ["note 1", "note 2"]
        await connection.close()

    run(scenario())


def test_the_transport_pauses_while_the_reader_is_busy_and_resumes_when_it_waits() -> None:
    async def scenario() -> None:
        recorder = Recorder()
        recorder.gate = asyncio.Event()
        connection, lines, _, transport = await started(recorder)
        lines.received(note(0, "slow"))  # the loop is busy until the gate opens
        filler = note(1)
        count = PAUSE_ABOVE_BYTES // len(filler) + 1
        for _ in range(count):
            lines.received(filler)
        assert transport.calls == ["pause"]  # once, however much more arrives
        lines.received(filler)
        assert transport.calls == ["pause"]
        recorder.gate.set()
        await guard(parked(lines))
        assert transport.calls == ["pause", "resume"]
        assert recorder.seen == ["slow 0"] + ["note 1"] * (count + 1)  # nothing lost
        await connection.close()

    run(scenario())


def test_a_long_partial_line_keeps_the_transport_reading_while_the_reader_waits() -> None:
    async def scenario() -> None:
        recorder = Recorder()
        connection, lines, _, transport = await started(recorder)
        text = "x" * (2 * PAUSE_ABOVE_BYTES)
        whole = line({"jsonrpc": "2.0", "method": "note", "params": {"n": 1, "text": text}})
        for start in range(0, len(whole), 65536):
            lines.received(whole[start : start + 65536])
        assert transport.calls == []
        assert recorder.seen == ["note 1"]
        await connection.close()

    run(scenario())


def test_a_last_line_without_newline_is_handled_at_end_of_stream() -> None:
    async def scenario() -> None:
        recorder = Recorder()
        connection, lines, _, _ = await started(recorder)
        lines.received(note(1) + note(2)[:-1])
        lines.ended()
        await guard(connection.wait_closed())
        assert recorder.seen == ["note 1", "note 2"]

    run(scenario())


def test_a_failed_transport_closes_the_connection_and_fails_pending_requests() -> None:
    async def scenario() -> None:
        connection, lines, sink, _ = await started()
        asking = asyncio.create_task(connection.request("ask"))
        while not sink.writes:
            await asyncio.sleep(0)
        lines.ended(ConnectionResetError("peer reset"))
        await guard(connection.wait_closed())
        assert "transport failed: peer reset" in connection._close_reason
        outcome: list[object] = await asyncio.gather(asking, return_exceptions=True)
        assert len(outcome) == 1 and isinstance(outcome[0], ConnectionClosed)

    run(scenario())


def test_closing_with_a_handover_pending_leaves_no_coroutine_unawaited() -> None:
    async def scenario() -> None:
        recorder = Recorder()
        connection, lines, _, _ = await started(recorder)
        lines.received(note(1, "slow"))  # handed to the loop, which has not run yet
        await connection.close()

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run(scenario())
        gc.collect()
    assert [w for w in caught if "never awaited" in str(w.message)] == []
