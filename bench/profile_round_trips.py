"""Where one round trip's time goes, in both processes (bench/RESULTS.md, Round 9b).

    python bench/profile_round_trips.py PAIR PHASE [COUNT]

PAIR: `ours` (our client and agent on v2), `ours-v1` (our client offering only v1, our agent),
`sdk` (SDK 0.12.1's client and agent, v1). PHASE: `new` (COUNT `session/new` round trips,
default 3000) or `turn` (COUNT prompt turns of 10k chunks, default 3). The client runs under
cProfile in this process, the agent under cProfile in its own (bench/agents.py writes its stats
when ACP_BENCH_PROFILE names a file); both profiles are printed per round trip (or per chunk),
largest own time first, with each process's CPU time per round trip or chunk measured again
without the profiler (`process_time` here, the child's rusage for the agent).
"""

from __future__ import annotations

import asyncio
import cProfile
import os
import pstats
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
GENERATED = str(BENCH.parent / "generated")
sys.path.insert(0, str(BENCH))
sys.path.insert(0, GENERATED)

import worker  # noqa: E402

CHUNKS = worker.TURN_CHUNKS


async def ours(phase: str, count: int, offer: tuple[int, ...] | None) -> None:
    from acp_bindings import Client

    client = Client()
    if offer is not None:
        client.protocol_versions = offer  # type: ignore[misc]  # ClassVar, set per instance
    process = await client.spawn(worker.agent_argv("ours", GENERATED))
    try:
        await client.lifecycle.initialize()
        session = await client.lifecycle.new_session(cwd="/")
        await session.run_turn([{"type": "text", "text": "100"}])
        for _ in range(10):
            await client.lifecycle.new_session(cwd="/")
        with measured(phase, count):
            if phase == "new":
                for _ in range(count):
                    await client.lifecycle.new_session(cwd="/")
            else:
                for _ in range(count):
                    await session.run_turn([{"type": "text", "text": str(CHUNKS)}])
    finally:
        await process.close()


async def sdk(phase: str, count: int) -> None:
    import acp
    from acp.helpers import text_block

    class BenchClient:
        async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
            return None

    script = str(BENCH / "agents.py")
    client: Any = BenchClient()
    env = {"ACP_BENCH_PROFILE": os.environ.get("ACP_BENCH_PROFILE", "")}  # it passes few on
    async with acp.spawn_agent_process(client, sys.executable, script, "sdk", env=env) as (conn, _):
        await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
        session = await conn.new_session(cwd="/")
        await conn.prompt(session_id=session.session_id, prompt=[text_block("100")])
        for _ in range(10):
            await conn.new_session(cwd="/")
        with measured(phase, count):
            if phase == "new":
                for _ in range(count):
                    await conn.new_session(cwd="/")
            else:
                for _ in range(count):
                    prompt: list[Any] = [text_block(str(CHUNKS))]
                    await conn.prompt(session_id=session.session_id, prompt=prompt)


class measured:
    """Profiles (or times) the client's part of the measured phase."""

    profile: cProfile.Profile | None = None
    seconds = 0.0
    cpu = 0.0

    def __init__(self, phase: str, count: int) -> None:
        self.units = count * (CHUNKS if phase == "turn" else 1)

    def __enter__(self) -> None:
        self.wall, self.process = time.perf_counter(), time.process_time()
        if measured.profile is not None:
            measured.profile.enable()

    def __exit__(self, *exc: object) -> None:
        if measured.profile is not None:
            measured.profile.disable()
        if self.units:
            measured.seconds = (time.perf_counter() - self.wall) / self.units
            measured.cpu = (time.process_time() - self.process) / self.units


def run(pair: str, phase: str, count: int) -> None:
    if pair == "sdk":
        asyncio.run(sdk(phase, count))
    else:
        asyncio.run(ours(phase, count, (1,) if pair == "ours-v1" else None))


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


Rows = dict[tuple[str, int, str], tuple[int, float, float]]


def rows_of(path: str) -> Rows:
    stats: Any = pstats.Stats(path)
    return {key: (value[1], value[2], value[3]) for key, value in stats.stats.items()}


def minus(whole: Rows, start: Rows) -> Rows:
    """The profile of a run less the profile of the same run without the measured phase."""
    out = {}
    for key, (calls, own, total) in whole.items():
        calls0, own0, total0 = start.get(key, (0, 0.0, 0.0))
        out[key] = (calls - calls0, own - own0, total - total0)
    return out


def show(title: str, stats: Rows, units: int, lines: int = 32) -> None:
    print(f"\n== {title}: CPU µs per unit (own, with callees), calls per unit; top {lines}")
    rows = []
    for (path, line, name), (calls, own, total) in stats.items():
        rows.append((own, total, calls, f"{Path(path).name}:{line}:{name}"))
    rows.sort(reverse=True)
    whole = sum(row[0] for row in rows)
    print(f"   profiled own time in all: {whole / units * 1e6:.1f} µs per unit")
    for own, total, calls, where in rows[:lines]:
        per = calls / units
        print(f"{own / units * 1e6:8.2f} {total / units * 1e6:8.2f} {per:7.2f}  {where}")


# Own time grouped by where it is spent (file name, or the builtin's name for C calls).
KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("wait (epoll)", ("'poll' of 'select.epoll'",)),
    ("pipe write syscall", ("posix.write",)),
    ("pipe read syscall", ("posix.read",)),
    ("decode", ("from_json", "decoder.py", "json/__init__.py:299", ":decode_line")),
    ("encode", ("encoder.py", ":encode_json", ":encoded_size", "to_python", ":dumps", ":to_json")),
    ("validate", ("checks.py", "validate_python", "SchemaValidator", "wire.py")),
    (
        "asyncio (loop, tasks, futures, streams, transports)",
        (
            "base_events",
            "events.py",
            "selector",
            "unix_events",
            "streams.py",
            "tasks.py",
            "futures.py",
            "queues.py",
            "_asyncio",
            "Context",
            "locks.py",
            "_weakrefset",
        ),
    ),
)


def kind_of(where: str) -> str:
    for kind, marks in KINDS:
        if any(mark in where for mark in marks):
            return kind
    return "the rest: the runtime's (or SDK's) own Python (framing, routing, sessions, answers)"


def show_kinds(title: str, stats: Rows, units: int) -> None:
    totals: dict[str, float] = {}
    for (path, line, name), (_, own, _) in stats.items():
        where = f"{Path(path).name}:{line}:{name}" if path != "~" else name
        if path.endswith("json/__init__.py"):
            where = f"json/__init__.py:{line}:{name}"
        kind = kind_of(where)
        totals[kind] = totals.get(kind, 0.0) + own
    busy = sum(value for kind, value in totals.items() if kind != KINDS[0][0])
    print(f"\n== {title}: profiled own time per unit by kind (share of the time not waiting)")
    for kind, value in sorted(totals.items(), key=lambda item: -item[1]):
        share = "" if kind == KINDS[0][0] else f" {value / busy:6.1%}"
        print(f"{value / units * 1e6:8.2f} µs{share}  {kind}")


def profiled_run(pair: str, phase: str, count: int, folder: str) -> tuple[Rows, Rows]:
    """Client and agent profiles of one run (wall time: waits show in `poll` and `write`);
    the agent's covers its whole process."""
    agent_stats = os.path.join(folder, f"agent-{count}.prof")
    os.environ["ACP_BENCH_PROFILE"] = agent_stats
    measured.profile = cProfile.Profile()
    run(pair, phase, count)
    client_stats = os.path.join(folder, f"client-{count}.prof")
    measured.profile.dump_stats(client_stats)
    return rows_of(client_stats), rows_of(agent_stats)


def main() -> None:
    pair, phase = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else (3000 if phase == "new" else 3)
    units = count * (CHUNKS if phase == "turn" else 1)
    cpu = []
    for n in (0, count, 0, count):  # unprofiled; the agent's CPU of the phase is the difference
        before = children_cpu()
        run(pair, phase, n)
        cpu.append(children_cpu() - before)
    agent_cpu = ((cpu[1] - cpu[0]) + (cpu[3] - cpu[2])) / 2 / units
    print(
        f"{pair} {phase}: {measured.seconds * 1e6:.1f} µs wall per unit, client CPU "
        f"{measured.cpu * 1e6:.1f} µs, agent CPU {agent_cpu * 1e6:.1f} µs"
    )
    with tempfile.TemporaryDirectory() as folder:
        _, agent_start = profiled_run(pair, phase, 0, folder)
        client, agent = profiled_run(pair, phase, count, folder)
    agent = minus(agent, agent_start)
    show_kinds("client", client, units)
    show_kinds("agent", agent, units)
    show("client", client, units)
    show("agent (less a run without the phase)", agent, units)


if __name__ == "__main__":
    main()
