"""The timed window of a round-trip measure: warm up, then time `ROUND_TRIPS` calls, wall clock
and the CPU both processes (the client here, the agent subprocess) spent on them.

One window for every pair (ours, the SDK's, the v1 and rc3 pairs), so their rates compare.
Why these sizes: 300 timed round trips after one warm-up lasted ~0.1 s, and on a shared 2-core
VM one scheduler hiccup or one full collection in the agent (~50 ms) swung the rate by 1.5x.
The warm-up lets first calls, caches and the collections that follow start-up pass; 2000 timed
round trips (~0.6 s) spread what still lands in the window. CPU per round trip is steadier
than the wall rate under load (time waiting for a core is not counted), so it is reported too.
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable

WARM_UP = 300
ROUND_TRIPS = 2000


def cpu_seconds(pid: int) -> float | None:
    """CPU time of all threads of process `pid` so far, from /proc/PID/task/*/schedstat (the
    first field: nanoseconds on a CPU); None without /proc. Threads, not just the process's
    first one: an agent may read its stdin on a thread."""
    try:
        tasks = os.scandir(f"/proc/{pid}/task")
    except OSError:
        return None
    total = 0
    with tasks:
        for task in tasks:
            try:
                with open(f"{task.path}/schedstat") as stats:
                    total += int(stats.read().split()[0])
            except (OSError, ValueError, IndexError):
                continue  # a thread that ended meanwhile
    return total / 1e9


def both_cpu(agent: int | None) -> tuple[float, float] | None:
    """(client, agent) CPU seconds so far, or None when either cannot be read."""
    client = cpu_seconds(os.getpid())
    theirs = None if agent is None else cpu_seconds(agent)
    return None if client is None or theirs is None else (client, theirs)


async def timed(
    name: str, call: Callable[[int], Awaitable[object]], agent: int | None
) -> dict[str, float]:
    """`call(n)` `WARM_UP` times, then `ROUND_TRIPS` times timed. Returns `name` (round trips
    per second) and, where /proc can be read for both processes (`agent`: its pid), `NAME_cpu_us`
    (client + agent CPU µs per round trip) with its parts `NAME_client_cpu_us` and
    `NAME_agent_cpu_us`."""
    for n in range(WARM_UP):
        await call(n)
    cpu_start = both_cpu(agent)
    start = time.perf_counter()
    for n in range(ROUND_TRIPS):
        await call(n)
    wall = time.perf_counter() - start
    cpu_end = both_cpu(agent)
    result = {name: ROUND_TRIPS / wall}
    if cpu_start is not None and cpu_end is not None:
        client = (cpu_end[0] - cpu_start[0]) / ROUND_TRIPS * 1e6
        theirs = (cpu_end[1] - cpu_start[1]) / ROUND_TRIPS * 1e6
        result |= {
            f"{name}_cpu_us": client + theirs,
            f"{name}_client_cpu_us": client,
            f"{name}_agent_cpu_us": theirs,
        }
    return result
