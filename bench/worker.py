"""One sample of one measure for one implementation, in a fresh process; prints JSON.

    python bench/worker.py MEASURE IMPL GENERATED_DIR

IMPL is `ours` or `base` (the generated bindings in GENERATED_DIR: this tree's, or the baseline
revision's), `sdk` (the official SDK) or `json` (`json.loads` alone). The value is a median of
inner repeats after a warm-up; `run.py` takes the median of several such processes, interleaved
across implementations.
"""

from __future__ import annotations

import sys
import time

if __name__ == "__main__" and sys.argv[1] == "import":
    # First thing in a fresh process: nothing imported yet but the interpreter's own modules.
    started = time.perf_counter()
    if sys.argv[2] == "sdk":
        import acp  # noqa: F401
    elif sys.argv[2] == "models":  # the package and its models (they load on first use)
        sys.path.insert(0, sys.argv[3])
        import acp_bindings.models
    else:
        sys.path.insert(0, sys.argv[3])
        import acp_bindings  # noqa: F401
    print(f'{{"import": {time.perf_counter() - started}}}')
    raise SystemExit(0)

import asyncio
import importlib
import json
import os
import statistics
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent))
import stream
from trip_window import timed

MIXED_LINES = 200_000
V2 = 2  # the protocol version our client negotiates in the v2 measures
CHUNK_LINES = 50_000
INNER = 3  # inner repeats per process (after one warm-up run)


class Sink:
    """A transport writer that drops everything (what is sent is not measured here)."""

    def write(self, data: bytes) -> None:
        return None

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        return None

    def is_closing(self) -> bool:
        return False


def inner(run: Callable[[], float], repeat: int = INNER) -> float:
    run()  # warm-up: caches, adapters, first-call costs
    return statistics.median(run() for _ in range(repeat))


def timed_async(make: Callable[[], Awaitable[float]], repeat: int = INNER) -> float:
    return inner(lambda: asyncio.run(make()), repeat)  # type: ignore[arg-type]


# -- (1) one raw line to session state ------------------------------------------------------


def our_client(reader: Any, version: int | None = V2) -> tuple[Any, Any]:
    """A client connection with the benchmark session already set up (as after session/new);
    `version`: the protocol version `initialize` negotiated, set as `initialize` sets it (which
    also settles the version router: a real client reads every update after `initialize`)."""
    from acp_bindings import Client
    from acp_bindings._runtime.client.client_side import ClientSession
    from acp_bindings._runtime.rpc.connection import Connection

    connection = Connection(reader, Sink())
    client = Client()
    connection.dispatcher = client.dispatcher(connection)
    # Not subscripted at run time: the baseline revision's ClientSession is not generic (and its
    # package has no `snapshot` module to type it with).
    session: ClientSession[Any] = ClientSession(client.lifecycle, stream.SESSION)
    client.lifecycle.sessions[stream.SESSION] = session
    if version is not None:  # a baseline revision without versions just keeps the attribute
        client.lifecycle.protocol_version = version
    return connection, session


def line_step(connection: Any) -> Callable[[bytes], Awaitable[None] | None]:
    """The reader loop's per-line step, without the I/O: `_take_line`, which returns what is
    left to await (None when the line was handled at once). A baseline from before it awaited
    `_on_line` for every line."""
    take_line = getattr(connection, "_take_line", None)
    return cast(Callable[[bytes], Awaitable[None] | None], take_line or connection._on_line)


def line_to_state(
    impl: str, lines: list[bytes], repeat: int = INNER, version: int | None = V2
) -> float:
    """Seconds per line; `version`: the one our client's connection negotiated."""
    if impl in ("json", "orjson"):
        # orjson (the `bench` extra): a second floor
        loads = json.loads if impl == "json" else importlib.import_module("orjson").loads

        def run() -> float:
            start = time.perf_counter()
            for line in lines:
                loads(line)
            return (time.perf_counter() - start) / len(lines)

        return inner(run, repeat)
    if impl == "sdk":
        from acp import SessionNotification

        validate = SessionNotification.model_validate
        loads = json.loads

        def run_sdk() -> float:
            start = time.perf_counter()
            for line in lines:
                validate(loads(line)["params"])
            return (time.perf_counter() - start) / len(lines)

        return inner(run_sdk, repeat)

    async def ours() -> float:
        connection, session = our_client(asyncio.StreamReader(), version)
        take_line = line_step(connection)
        start = time.perf_counter()
        for line in lines:
            rest = take_line(line)
            if rest is not None:
                await rest
        elapsed = time.perf_counter() - start
        assert session.snapshot()["messages"], "nothing reached the session state"
        return elapsed / len(lines)

    return timed_async(ours, repeat)


# -- (2) a whole connection ingesting preloaded lines ---------------------------------------


def preloaded(lines: list[bytes]) -> asyncio.StreamReader:
    reader = asyncio.StreamReader(limit=1 << 24)
    reader.feed_data(b"\n".join(lines) + b"\n")
    reader.feed_eof()
    return reader


def ingest(impl: str, lines: list[bytes]) -> float:
    """Lines per second, from the first read to the last update handled."""
    if impl == "sdk":
        return timed_async(lambda: sdk_ingest(lines), 1)

    async def ours() -> float:
        connection, session = our_client(preloaded(lines))
        start = time.perf_counter()
        await connection.run()
        elapsed = time.perf_counter() - start
        assert session.snapshot()["messages"]
        return len(lines) / elapsed

    return timed_async(ours, 1)


async def sdk_ingest(lines: list[bytes]) -> float:
    from acp.client.connection import ClientSideConnection

    done = asyncio.Event()
    seen = 0

    class Counting:
        async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
            nonlocal seen
            seen += 1
            if seen == len(lines):
                done.set()

    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(write_fd, "wb")
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    start = time.perf_counter()
    connection = ClientSideConnection(Counting(), writer, preloaded(lines))  # type: ignore[arg-type]
    await done.wait()
    elapsed = time.perf_counter() - start
    await connection.close()
    os.close(read_fd)
    return len(lines) / elapsed


# -- (5) round trips over pipes to an agent subprocess --------------------------------------

TURN_CHUNKS = 10_000


def agent_argv(impl: str, generated: str) -> list[str]:
    script = str(Path(__file__).resolve().parent / "agents.py")
    return [sys.executable, script, "sdk" if impl == "sdk" else "ours", generated]


async def ours_round_trips(
    generated: str,
    agent: str = "ours",
    version: int | None = None,
    offer: tuple[int, ...] | None = None,
    ext: bool = True,
) -> dict[str, float]:
    """Our client against `agent` (`ours` or `sdk`); `version`: the one it must negotiate;
    `offer`: the versions our client accepts (its `protocol_versions`; None: its default);
    `ext`: also time extension requests (our agent answers them on v2 only)."""
    from acp_bindings import Client

    client = Client()
    if offer is not None:
        client.protocol_versions = offer  # type: ignore[misc]  # ClassVar, set per instance
    process = await client.spawn(agent_argv(agent, generated))
    try:
        await client.lifecycle.initialize()
        negotiated = client.lifecycle.protocol_version
        assert version is None or negotiated == version, negotiated
        new_session = client.lifecycle.new_session
        agent_pid = getattr(getattr(process, "process", None), "pid", None)

        async def ext_call(n: int) -> object:
            return await client.agent.ext_method("_bench/echo", {"n": n})

        times = await timed("session_new", lambda _: new_session(cwd="/"), agent_pid)
        if ext:
            times |= await timed("ext", ext_call, agent_pid)
        session = await client.lifecycle.new_session(cwd="/")
        await session.run_turn([{"type": "text", "text": "100"}])
        turns = []
        for _ in range(INNER):
            start = time.perf_counter()
            await session.run_turn([{"type": "text", "text": str(TURN_CHUNKS)}])
            turns.append(time.perf_counter() - start)
        messages = session.snapshot()["messages"]
        chunks = sum(len(m["content"]) for m in messages if m["role"] == "agent")
        assert chunks == 100 + INNER * TURN_CHUNKS, chunks
    finally:
        await process.close()
    return {**times, "turn": statistics.median(turns)}


async def sdk_round_trips(agent: tuple[str, ...] = ("sdk",), ext: bool = True) -> dict[str, float]:
    """The SDK's (v1) client against `agent`: agents.py's arguments (`sdk`, or `ours DIR`).
    `ext`: also time extension requests (our agent answers them on v2 only)."""
    import acp
    from acp.helpers import text_block

    received = 0

    class BenchClient:
        async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
            nonlocal received
            received += 1

        async def request_permission(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    script = str(Path(__file__).resolve().parent / "agents.py")
    client = cast(acp.Client, BenchClient())  # only what the bench calls, not the whole protocol
    spawned = acp.spawn_agent_process(client, sys.executable, script, *agent)
    async with spawned as (conn, process):
        await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)

        async def ext_call(n: int) -> object:
            return await conn.ext_method("bench/echo", {"n": n})

        times = await timed("session_new", lambda _: conn.new_session(cwd="/"), process.pid)
        if ext:
            times |= await timed("ext", ext_call, process.pid)
        session = await conn.new_session(cwd="/")
        await conn.prompt(session_id=session.session_id, prompt=[text_block("100")])
        turns = []
        for _ in range(INNER):
            start = time.perf_counter()
            await conn.prompt(session_id=session.session_id, prompt=[text_block(str(TURN_CHUNKS))])
            turns.append(time.perf_counter() - start)
        assert received == 100 + INNER * TURN_CHUNKS, received
    return {**times, "turn": statistics.median(turns)}


def recorded(flavour: str) -> list[bytes]:
    """The 200k-line stream `run.py` recorded (bench/.cache), or a fresh one."""
    path = Path(__file__).resolve().parent / ".cache" / f"stream-{flavour}-{stream.SEED}.ndjson"
    if path.exists():
        return path.read_bytes().splitlines()
    return stream.sdk(MIXED_LINES) if flavour == "sdk" else stream.ours(MIXED_LINES)


def mixed_streams(argv: list[str], count: int = 50_000) -> list[tuple[str, int, list[bytes]]]:
    """For a profiling script's `[v2|v1] [LINES]` (both, and `count` lines, by default): each
    version's name, number and first lines of its recorded mixed stream (ours for v2, the
    SDK-flavoured one for v1)."""
    names = [argv[1]] if len(argv) > 1 else ["v2", "v1"]
    count = int(argv[2]) if len(argv) > 2 else count
    return [
        (name, 2 if name == "v2" else 1, recorded("ours" if name == "v2" else "sdk")[:count])
        for name in names
    ]


def main() -> None:
    measure, impl, generated = sys.argv[1], sys.argv[2], sys.argv[3]
    sys.path.insert(0, generated)
    flavour = "sdk" if impl in ("sdk", "json", "orjson") else "ours"
    result: dict[str, float]
    if measure == "line_chunks":
        result = {measure: line_to_state(impl, stream.chunks(CHUNK_LINES))}
    elif measure == "line_mixed":
        result = {measure: line_to_state(impl, recorded(flavour), repeat=1)}
    elif measure == "ingest":
        result = {measure: ingest(impl, recorded(flavour))}
    elif measure == "round_trips":
        run = sdk_round_trips() if impl == "sdk" else ours_round_trips(generated)
        result = asyncio.run(run)
    elif measure in ("line_rc3", "round_trips_rc3"):
        import worker_rc3  # SDK 1.0.0rc3's experimental v2 (first on PYTHONPATH for `rc3`)

        if measure == "line_rc3":
            result = {measure: worker_rc3.line_rc3(impl, recorded("ours"))}
        else:
            result = worker_rc3.round_trips_rc3(impl, generated)
    elif measure in ("line_v1", "round_trips_v1"):
        import worker_v1  # v1 against the SDK: the SDK-flavoured (v1) stream for every impl

        if measure == "line_v1":
            result = {measure: worker_v1.line_v1(impl, recorded("sdk"))}
        else:
            result = worker_v1.round_trips_v1(impl, generated)
    elif measure == "memory":
        import worker_mem  # the state's and the snapshot's memory, per stream byte

        result = worker_mem.memory(recorded("ours"))
    elif measure in ("merge", "outgoing"):
        import worker_micro  # one runtime piece alone, no connection to a peer

        result = (
            worker_micro.merge_growth()
            if measure == "merge"
            else worker_micro.outgoing_validation()
        )
    else:
        raise SystemExit(f"unknown measure {measure!r}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
