"""Our remote agent against the official TypeScript SDK 2.4.0's own server (`AcpServer`), the
same counting agent on each, the same client load. Reported, never asserted.

    python bench/remote_vs_ts.py                       # 50 sessions x 1,000 chunks, both transports
    python bench/remote_vs_ts.py --samples 5 --transport ws
    python bench/remote_vs_ts.py --clients 200 --chunks 2000 --samples 1   # nothing lost?

Ours is bench/remote_load.py's agent (`remote_load.py serve`, the committed bindings under
`run_http`); theirs is bench/ts_counting_agent.mjs on the SDK that tests/interop/sdk_cache.py
caches (installed from npm once; nothing else is fetched). Samples alternate (ours, theirs,
ours, ...), each on a fresh server process, so load from other work falls on both alike.

A sample is two phases on one server, each with fresh clients (remote_load.measure: all
connected first, then timed together):
- load: `--clients` sessions each run one turn of `--chunks` chunks. Reported: chunks folded
  per second, the median turn (and the first and the last to end: a server that serves its
  sessions evenly ends them all near the end, one that favours some ends those early), the
  `session/prompt` round trip p50 and p99 (request sent to
  receipt read), the server's CPU time per chunk over the timed window (/proc schedstat, all
  threads), its peak resident memory (VmHWM);
- round trips: the same sessions each run `--trips` turns of one chunk. Reported: the round
  trip p50 and the server's CPU per round trip (such a turn: the prompt, its receipt and four
  notifications).
Every turn's reply is checked ("0 1 2 ..."): a chunk lost, repeated or out of order is counted.
The medians over samples are printed and appended to bench/REMOTE_RESULTS.md with the ratio
ours/theirs (below 1: ours takes less time, CPU or memory; for chunks/s above 1 is better).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import platform
import re
import statistics
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from remote_load import REPO, RESULTS, Tally, measure, memory_of, percentile
from trip_window import cpu_seconds

BENCH = Path(__file__).resolve().parent

IMPLEMENTATIONS = ("ours", "ts")


@dataclass
class Sample:
    chunks_per_s: float
    turn_median_s: float
    turn_first_s: float
    turn_last_s: float
    prompt_p50_ms: float
    prompt_p99_ms: float
    cpu_us_per_chunk: float
    trip_p50_ms: float
    cpu_us_per_trip: float
    peak_kb: float
    wall_s: float
    wrong: int


def server_argv(implementation: str) -> list[str]:
    if implementation == "ours":
        return [sys.executable, str(BENCH / "remote_load.py"), "serve"]
    sys.path.insert(0, str(REPO))  # the SDK cache the interop tests use
    from tests.interop.sdk_cache import ts_sdk, ts_ws

    return ["node", str(BENCH / "ts_counting_agent.mjs"), str(ts_sdk()), str(ts_ws())]


@contextmanager
def server(implementation: str) -> Iterator[tuple[int, str]]:
    """A fresh server process: (its pid, its URL)."""
    process = subprocess.Popen(server_argv(implementation), stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        for line in process.stderr:
            if found := re.search(r"serving ACP on (http://\S+)", line):
                yield process.pid, found.group(1)
                return
        raise RuntimeError(f"the {implementation} server exited before serving")
    finally:
        process.terminate()
        process.wait()


def cpu_of(pid: int) -> float:
    seconds = cpu_seconds(pid)
    if seconds is None:
        raise RuntimeError("this bench reads CPU time from /proc")
    return seconds


async def phase(
    url: str, pid: int, clients: int, chunks: int, turns: int
) -> tuple[Tally, float, float]:
    """One timed phase: (tally, wall seconds, server CPU seconds over the timed window)."""
    began: list[float] = []
    load = argparse.Namespace(clients=clients, chunks=chunks, turns=turns)
    tally, wall = await measure(load, url, lambda: began.append(cpu_of(pid)))
    return tally, wall, cpu_of(pid) - began[0]


def sample(implementation: str, transport: str, args: argparse.Namespace) -> Sample:
    with server(implementation) as (pid, url):
        if transport == "ws":
            url = "ws" + url.removeprefix("http")
        load, wall, cpu = asyncio.run(phase(url, pid, args.clients, args.chunks, 1))
        trips, _, trip_cpu = asyncio.run(phase(url, pid, args.clients, 1, args.trips))
        peak = float(memory_of(pid).get("VmHWM", "0 kB").split()[0])
    return Sample(
        chunks_per_s=load.chunks / wall,
        turn_median_s=statistics.median(load.turn_seconds),
        turn_first_s=min(load.turn_seconds),
        turn_last_s=max(load.turn_seconds),
        prompt_p50_ms=percentile(load.prompt_seconds, 0.5) * 1e3,
        prompt_p99_ms=percentile(load.prompt_seconds, 0.99) * 1e3,
        cpu_us_per_chunk=cpu / load.chunks * 1e6,
        trip_p50_ms=percentile(trips.prompt_seconds, 0.5) * 1e3,
        cpu_us_per_trip=trip_cpu / len(trips.prompt_seconds) * 1e6,
        peak_kb=peak,
        wall_s=wall,
        wrong=len(load.wrong) + len(trips.wrong),
    )


ROWS: tuple[tuple[str, str, Callable[[Sample], float]], ...] = (
    ("chunks/s", "{:,.0f}", lambda s: s.chunks_per_s),
    ("turn median, s", "{:.2f}", lambda s: s.turn_median_s),
    ("first turn done, s", "{:.2f}", lambda s: s.turn_first_s),
    ("last turn done, s", "{:.2f}", lambda s: s.turn_last_s),
    ("prompt round trip p50, ms", "{:.1f}", lambda s: s.prompt_p50_ms),
    ("prompt round trip p99, ms", "{:.1f}", lambda s: s.prompt_p99_ms),
    ("server CPU per chunk, µs", "{:.1f}", lambda s: s.cpu_us_per_chunk),
    ("one-chunk turn: round trip p50, ms", "{:.1f}", lambda s: s.trip_p50_ms),
    ("one-chunk turn: server CPU per round trip, µs", "{:.0f}", lambda s: s.cpu_us_per_trip),
    ("server peak memory, kB", "{:,.0f}", lambda s: s.peak_kb),
    ("wall time of the load, s", "{:.2f}", lambda s: s.wall_s),
)


def table(transport: str, args: argparse.Namespace, samples: dict[str, list[Sample]]) -> str:
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    lost = sum(s.wrong for runs in samples.values() for s in runs)
    lines = [
        f"## {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {transport}, ours vs the "
        f"TS SDK 2.4.0 server: {args.clients} sessions x {args.chunks} chunks, "
        f"{args.samples} sample(s) each, interleaved",
        "",
        f"- machine: {platform.machine()}, {os.cpu_count()} cores, load (1, 5, 15 min) {load}; "
        f"Python {platform.python_version()}, node {node}",
        f"- lost, repeated or reordered: {lost} turn(s)",
        "",
        "| median of the samples | ours | TS server | ours / TS |",
        "|---|---:|---:|---:|",
    ]
    for name, shape, value in ROWS:
        ours = statistics.median(value(s) for s in samples["ours"])
        theirs = statistics.median(value(s) for s in samples["ts"])
        ratio = f"{ours / theirs:.2f}x" if theirs else "-"
        lines.append(f"| {name} | {shape.format(ours)} | {shape.format(theirs)} | {ratio} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--chunks", type=int, default=1000)
    parser.add_argument("--trips", type=int, default=20, help="one-chunk turns per session")
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--transport", choices=["http", "ws", "both"], default="both")
    args = parser.parse_args()
    transports = ["http", "ws"] if args.transport == "both" else [args.transport]
    for transport in transports:
        samples: dict[str, list[Sample]] = {name: [] for name in IMPLEMENTATIONS}
        for _ in range(args.samples):
            for implementation in IMPLEMENTATIONS:
                samples[implementation].append(sample(implementation, transport, args))
                print(f"{transport} {implementation}: {samples[implementation][-1]}", flush=True)
        text = table(transport, args, samples)
        print(text)
        with RESULTS.open("a", encoding="utf-8") as results:
            results.write(text + "\n")


if __name__ == "__main__":
    main()
