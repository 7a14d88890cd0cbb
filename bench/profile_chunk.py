"""Where the time of one incoming `session/update` goes, stage by stage (bench/RESULTS.md, Round 7).

    python bench/profile_chunk.py [v2|v1] [LINES]     # default: both, 50k lines of each mix

Each stage is timed alone on the same lines of the recorded mixed stream (ours for v2, the
SDK-flavoured one for v1), on freshly decoded copies where the stage consumes what it is given,
through the client's real objects (the connection, the version router, the checks, the v1
dialect, the session state). Per line, in microseconds:

- `read`: the reader loop (`Connection.run` on a preloaded stream) over calling `_take_line`;
- `decode`: `framing.decode_line` (pydantic-core's parser), beside `json.loads` and `orjson`;
- `classify`: `_take_line`'s recognition of a notification and its lookup of the inline handler;
- `validate`: the schema check of the whole params (`wire_check` of the method's params type);
- `route`: the version router and the hops between the checks and the fold;
- `convert` (v1): the v1 dialect's reader turning a v1 update into v2's;
- `merge`: `SessionState.apply` (with the session lookup before it).

Stages are derived from nested timings (the inline handler minus its check and its fold, and
so on), so they add up to the whole line; on a loaded machine each moves by a few percent.
"""

from __future__ import annotations

import asyncio
import copy
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "generated"))

import worker  # noqa: E402

SESSION_UPDATE = "session/update"


def per_line(
    make: Callable[[], Callable[[Any], object]], items: Callable[[], list[Any]], repeat: int = 5
) -> float:
    """Median microseconds per item of the step `make()` returns over `items()`; both are made
    afresh for each run, before the clock starts (a new client, new copies of what it keeps)."""
    times = []
    for _ in range(repeat + 1):  # the first run warms up
        data, run = items(), make()
        start = time.perf_counter()
        for item in data:
            run(item)
        times.append((time.perf_counter() - start) / len(data))
    return statistics.median(times[1:]) * 1e6


def stages(version: int, lines: list[bytes]) -> dict[str, float]:
    from acp_bindings._runtime.v1.client_updates import V1UpdateReader
    from acp_bindings._runtime.wire.checks import wire_check
    from acp_bindings._runtime.wire.line_framing import decode_line

    asyncio.set_event_loop(asyncio.new_event_loop())  # the clients' stream readers want one
    decoded: list[Any] = [decode_line(line) for line in lines]  # JSON-RPC messages, by the stream
    params = [payload["params"] for payload in decoded]

    def copies() -> list[Any]:  # a stage that keeps or changes what it is given gets its own
        return copy.deepcopy(params)

    out: dict[str, float] = {"json.loads": per_line(lambda: json.loads, lambda: lines)}
    try:
        import orjson

        out["orjson.loads"] = per_line(lambda: orjson.loads, lambda: lines)
    except ImportError:
        pass
    out["decode"] = per_line(lambda: decode_line, lambda: lines)

    def client() -> Any:
        connection, _ = worker.our_client(asyncio.StreamReader(), version)
        return connection

    if version == 2:
        from acp_bindings.methods import CLIENT_SPECS
    else:
        from acp_bindings.v1.methods import CLIENT_SPECS
    spec = next(s for s in CLIENT_SPECS if s.method == SESSION_UPDATE)
    out["validate"] = per_line(lambda: wire_check(spec.params_type), lambda: params)

    def fold() -> Callable[[Any], object]:
        dispatcher = client().dispatcher
        checked = getattr(dispatcher, "_by_version", {}).get(version, dispatcher)
        inner = checked.inner  # behind the checks: ClientSide (v2) or the v1 dialect
        return inner._update if version == 2 else inner._fold  # type: ignore[no-any-return]

    folded = per_line(fold, copies)
    inline = per_line(lambda: client()._inline[SESSION_UPDATE], copies)
    if version == 1:

        def convert() -> Callable[[Any], object]:
            read = V1UpdateReader().read
            return lambda p: read(p["update"])

        out["convert"] = per_line(convert, copies)
        out["merge"] = folded - out["convert"]
    else:
        out["merge"] = folded
    out["route"] = inline - out["validate"] - folded

    async def on_lines() -> float:
        take_line = client()._take_line  # the reader loop's step: awaits only what must wait
        start = time.perf_counter()
        for line in lines:
            rest = take_line(line)
            if rest is not None:
                await rest
        return time.perf_counter() - start

    async def whole_run() -> float:
        connection, _ = worker.our_client(worker.preloaded(lines), version)
        start = time.perf_counter()
        await connection.run()
        return time.perf_counter() - start

    count = len(lines)
    line_us = statistics.median(asyncio.run(on_lines()) for _ in range(5)) / count * 1e6
    run_us = statistics.median(asyncio.run(whole_run()) for _ in range(5)) / count * 1e6
    out["classify"] = line_us - out["decode"] - inline
    out["line (_take_line)"] = line_us
    out["read"] = run_us - line_us
    out["connection (run)"] = run_us
    return out


def main() -> None:
    for name, version, lines in worker.mixed_streams(sys.argv):
        got = stages(version, lines)
        print(f"{name}: {len(lines)} lines of the mixed stream, microseconds per line")
        for stage, value in got.items():
            print(f"  {stage:18} {value:6.2f}")


if __name__ == "__main__":
    main()
