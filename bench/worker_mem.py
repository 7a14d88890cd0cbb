"""The memory measure of `worker.py`: what the session state of the 200k mixed stream keeps.

`memory`: the recorded 200k-line v2 stream (about 45 MiB) is read line by line through our
client's real path (the reader loop's step, `worker.line_step`), then the session's snapshot
is taken while the state is still alive. Measured with `tracemalloc` in a fresh worker
process: tracing starts after the lines are loaded and the client is built, so it counts only
what the ingest and the snapshot allocate (Python's own allocations; RSS would add the
interpreter and the lines). Reported per byte of the stream (newlines included): `retained`
is what is still allocated after the ingest and a full collection (the state), `peak` the
most allocated at any moment of the ingest and the snapshot (state and snapshot together, at
the snapshot's end).
"""

from __future__ import annotations

import asyncio
import gc
import tracemalloc

from worker import line_step, our_client


def memory(lines: list[bytes]) -> dict[str, float]:
    stream_bytes = sum(len(line) + 1 for line in lines)

    async def run() -> dict[str, float]:
        connection, session = our_client(asyncio.StreamReader(), 2)
        take_line = line_step(connection)

        async def feed(line: bytes) -> None:
            rest = take_line(line)
            if rest is not None:
                await rest

        await feed(lines[0])  # first-call costs (validators, caches) are not the state's
        gc.collect()
        tracemalloc.start()
        before, _ = tracemalloc.get_traced_memory()
        for line in lines[1:]:
            await feed(line)
        gc.collect()
        retained, _ = tracemalloc.get_traced_memory()
        snapshot = session.snapshot()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert snapshot["messages"], "nothing reached the session state"
        return {
            "retained": (retained - before) / stream_bytes,
            "peak": (peak - before) / stream_bytes,
            "stream_mib": stream_bytes / (1 << 20),
        }

    return asyncio.run(run())
