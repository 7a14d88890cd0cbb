"""How close a Python line path can come to `json.loads` (bench/RESULTS.md, Round 12).

    python bench/ingest_floor.py [v2|v1] [LINES]     # default: both, 50k lines of each mix

Issue 21 asks for a raw `session/update` line to merged state within 1.2x `json.loads` on the
same lines. This script times, on the recorded mixed stream (ours for v2, the SDK-flavoured
one for v1), what a line costs with less and less of the work left out, each step as a ratio to
`json.loads`:

- `decode`: `framing.decode_line` (pydantic-core's parser);
- `decode + check`: and the schema check of the params (`wire_check` of the method's type);
- `least line path`: the least any line path checking what it reads could do, written as one
  loop: decode, recognise a `session/update` notification, check its params, keep the update
  as `line, least kept` does (below), with no connection, routing or version conversion;
- `line, nothing kept`: our client's `_take_line` (framing, classification, the check, routing
  and, on v1, the conversion to v2's updates), its fold replaced by a function that keeps
  nothing;
- `line, least kept`: the same with a fold that does the least a session state could: each
  update appended to a list keyed by its message, tool call or tag (no rules, no patches, no
  freezing, no checks);
- `line, ours`: our client as the benchmark row measures it (the session state's merge).

This host's speed swings by up to 2x within a second, so figures taken seconds apart do not
compare. Each step is timed on a batch of lines right after `json.loads` on the same batch, and
its ratio to that is kept; a step's figure is the median of its ratios over every batch and
pass (in microseconds: the median time per line, for orientation only).
"""

from __future__ import annotations

import asyncio
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

BATCH = 2000
PASSES = 3
SESSION_UPDATE = "session/update"
Step = Callable[[list[bytes]], None]


def least_kept(store: dict[str, list[Any]]) -> Callable[[str, Any], bool]:
    """A fold that keeps each update under its message, tool call or tag: a lower bound for
    any session state kept in Python (one call, a few dict operations, one append)."""

    def fold_update(session_id: str, update: Any) -> bool:
        key = update.get("messageId") or update.get("toolCallId") or update.get("sessionUpdate")
        entries = store.get(key)
        if entries is None:
            store[key] = [update]
        else:
            entries.append(update)
        return True

    return fold_update


def keeps_nothing(session_id: str, update: Any) -> bool:
    return True


def line_path(version: int, fold: Callable[[str, Any], bool] | None) -> Step:
    """Our client's per-line step; `fold` replaces its session state's (None: ours)."""
    connection, session = worker.our_client(asyncio.StreamReader(), version)
    if fold is not None:
        # Looked up on each update (the v2 handler and the v1 reader both call it by name),
        # every chunk included once the v2 handler's own append is off.
        session.client.fold_update = fold
        session.client.folds_held = False
    take_line = worker.line_step(connection)

    def run(lines: list[bytes]) -> None:
        for line in lines:
            if take_line(line) is not None:
                raise AssertionError("every session/update is handled at once")

    return run


def steps(version: int) -> dict[str, Step]:
    from acp_bindings._runtime.wire.checks import wire_check
    from acp_bindings._runtime.wire.line_framing import decode_line

    if version == 2:
        from acp_bindings.methods import CLIENT_SPECS
    else:
        from acp_bindings.v1.methods import CLIENT_SPECS
    spec = next(s for s in CLIENT_SPECS if s.method == SESSION_UPDATE)
    check = wire_check(spec.params_type)

    # The stream's lines are JSON-RPC messages: read as such (one name bound once, no call added
    # per line).
    decode_message: Callable[[bytes], Any] = decode_line

    def decode(lines: list[bytes]) -> None:
        for line in lines:
            decode_line(line)

    def decode_and_check(lines: list[bytes]) -> None:
        for line in lines:
            check(decode_message(line)["params"])

    fold = least_kept({})

    def least_line(lines: list[bytes]) -> None:
        for line in lines:
            payload = decode_message(line)
            if (
                type(payload) is dict
                and "id" not in payload
                and payload.get("jsonrpc") == "2.0"
                and payload.get("method") == SESSION_UPDATE
            ):
                params = payload["params"]
                check(params)
                fold(params["sessionId"], params["update"])

    return {
        "decode": decode,
        "decode + check": decode_and_check,
        "least line path": least_line,
        "line, nothing kept": line_path(version, keeps_nothing),
        "line, least kept": line_path(version, least_kept({})),
        "line, ours": line_path(version, None),
    }


def timed(step: Step, lines: list[bytes]) -> float:
    start = time.perf_counter()
    step(lines)
    return time.perf_counter() - start


def measure(version: int, lines: list[bytes]) -> dict[str, tuple[float, float]]:
    """Step -> (median ratio to json.loads, median µs per line)."""
    loads = json.loads

    def floor(batch: list[bytes]) -> None:
        for line in batch:
            loads(line)

    ratios: dict[str, list[float]] = {}
    micros: dict[str, list[float]] = {}
    asyncio.set_event_loop(asyncio.new_event_loop())  # the clients' stream readers want one
    for _ in range(PASSES):
        made = steps(version)  # fresh clients: each pass folds the stream from its start
        for start in range(0, len(lines) - BATCH + 1, BATCH):
            batch = lines[start : start + BATCH]
            for name, step in made.items():
                base = timed(floor, batch)
                took = timed(step, batch)
                ratios.setdefault(name, []).append(took / base)
                micros.setdefault(name, []).append(took / len(batch) * 1e6)
                micros.setdefault("json.loads", []).append(base / len(batch) * 1e6)
    out = {"json.loads": (1.0, statistics.median(micros["json.loads"]))}
    for name, values in ratios.items():
        out[name] = (statistics.median(values), statistics.median(micros[name]))
    return out


def main() -> None:
    for name, version, lines in worker.mixed_streams(sys.argv):
        got = measure(version, lines)
        print(f"{name}: {len(lines)} lines of the mixed stream; / json.loads (µs per line)")
        for step, (ratio, micro) in got.items():
            print(f"  {step:20} {ratio:5.2f}  ({micro:5.2f})")


if __name__ == "__main__":
    main()
