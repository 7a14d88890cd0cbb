"""The whole client connection's ingest against `json.loads` on the same lines (issue 35).

    python bench/ingest_connection.py [v2|v1] [LINES] [ROUNDS]   # default: v2, 200k, 15 rounds

Each round times, in this one process and back to back, `json.loads` over every line of the
recorded mixed stream, then our client's `Connection.run` over the same lines preloaded in a
reader (the benchmark session set up as after `session/new`, every update merged into its
state). Both are CPU time of this process, so another process on the host slows neither; a
round's figure is the ratio of the two, and the result is the median of the rounds. Issue 35's
target is 1.6x through the connection.
"""

from __future__ import annotations

import asyncio
import gc
import json
import statistics
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "generated"))

import worker  # noqa: E402  (bench/ on the path first)


def loads_seconds(lines: list[bytes]) -> float:
    loads = json.loads
    gc.collect()  # what the round before left is not this measure's to collect
    start = time.process_time()
    for line in lines:
        loads(line)
    return time.process_time() - start


def connection_seconds(lines: list[bytes], version: int) -> float:
    async def run() -> float:
        connection, session = worker.our_client(worker.preloaded(lines), version)
        gc.collect()
        start = time.process_time()
        await connection.run()
        elapsed = time.process_time() - start
        assert session.snapshot()["messages"], "nothing reached the session state"
        return elapsed

    return asyncio.run(run())


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else "v2"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    ((_, version, lines),) = worker.mixed_streams(["", name, str(count)])
    ratios = []
    for _ in range(rounds):
        loads, ours = loads_seconds(lines), connection_seconds(lines, version)
        ratios.append(ours / loads)
        print(f"  json.loads {loads:6.3f} s  connection {ours:6.3f} s  ratio {ours / loads:4.2f}")
    print(
        f"{name}: {len(lines)} lines; connection / json.loads, median of {rounds}: "
        f"{statistics.median(ratios):.2f} (range {min(ratios):.2f}-{max(ratios):.2f})"
    )


if __name__ == "__main__":
    main()
