"""The measures of `worker.py` against the official SDK's v2 pre-release (1.0.0rc3,
`acp.experimental.v2`), a baseline beside 0.12.1: both are imported as `acp`, so `run.py` runs
the `rc3` samples with that SDK first on PYTHONPATH (a separate install, see `sdk_rc3.py`).

- `line_rc3`: one raw line of our v2 mixed stream; `rc3` is `json.loads` + the check the
  SDK's v2 client runs on a `session/update`'s params (the `TypeAdapter` its method table
  holds; it keeps no state), `ours` our client's line to state.
- `round_trips_rc3`: `session/new` round trips and the 10k-chunk turn over pipes on v2;
  `rc3` is the SDK's v2 client driving its v2 agent (`agents.py rc3`), `ours` our client
  driving our agent (the turn ends at the idle state update in both).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from trip_window import timed
from worker import INNER, TURN_CHUNKS, inner, line_to_state, ours_round_trips

# The line measure reads the first lines of the mixed stream only: the pre-release's check of
# one update takes a few hundred µs, so 200k lines would take minutes per sample.
RC3_LINES = 20_000


def line_rc3(impl: str, lines: list[bytes]) -> float:
    """Seconds per line, over the first `RC3_LINES` lines."""
    lines = lines[:RC3_LINES]
    if impl != "rc3":
        return line_to_state(impl, lines, repeat=1, version=2)
    # By name: mypy checks the bench against 0.12.1, which has no `experimental` package.
    methods = importlib.import_module("acp.experimental.v2._methods")
    spec = next(s for s in methods.CLIENT_NOTIFICATIONS if s.method == "session/update")
    validate = spec.params.validate_python
    loads = json.loads

    def run() -> float:
        start = time.perf_counter()
        for line in lines:
            validate(loads(line)["params"])
        return (time.perf_counter() - start) / len(lines)

    return inner(run, 1)


def round_trips_rc3(impl: str, generated: str) -> dict[str, float]:
    if impl != "rc3":
        return asyncio.run(ours_round_trips(generated, ext=False))
    return asyncio.run(rc3_round_trips())


async def rc3_round_trips() -> dict[str, float]:
    v2 = importlib.import_module("acp.experimental.v2")  # by name, as in `line_rc3`
    schema = v2.schema

    idle = asyncio.Event()
    received = 0

    class BenchClient:
        def on_connect(self, connection: Any) -> None:
            self.connection = connection

        async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
            nonlocal received
            received += 1
            if getattr(update, "state", None) == "idle":
                idle.set()

        async def request_permission(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    script = str(Path(__file__).resolve().parent / "agents.py")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        script,
        "rc3",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=1 << 24,
    )
    assert process.stdin is not None and process.stdout is not None
    conn = v2.connect_to_agent(BenchClient(), process.stdin, process.stdout)
    try:
        info = schema.Implementation(name="bench", version="0")
        await conn.initialize(protocol_version=v2.PROTOCOL_VERSION, info=info)
        times = await timed("session_new", lambda _: conn.new_session(cwd="/"), process.pid)
        session = await conn.new_session(cwd="/")

        async def turn(count: int) -> float:
            idle.clear()
            block = schema.TextContentBlock(type="text", text=str(count))
            start = time.perf_counter()
            await conn.prompt(session_id=session.session_id, prompt=[block])
            await idle.wait()
            return time.perf_counter() - start

        await turn(100)
        turns = [await turn(TURN_CHUNKS) for _ in range(INNER)]
        assert received == 101 + INNER * (TURN_CHUNKS + 1), received
    finally:
        await conn.close()
        process.stdin.close()
        await process.wait()
    return {**times, "turn": statistics.median(turns)}
