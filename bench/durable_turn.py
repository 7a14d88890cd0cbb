"""Durable sessions, measured; reported, never asserted.

    python bench/durable_turn.py             # 5 samples of each measure
    python bench/durable_turn.py --repeat 3 --chunks 10000 --updates 100000
    python bench/durable_turn.py --postgres postgresql://...   # PostgreSQL too (an empty
                                                               # database: sessions are added)

- `turn`: one turn streaming `--chunks` agent-message chunks, from the prompt to the idle
  report on the client, the generated Agent and Client on an in-process pipe: in memory
  (no store) against a SQLite store (`Agent(session_store=SqliteStore(...))`) and, given
  `--postgres`, a PostgreSQL one. A store's figure includes the turn's end being written
  before the idle report goes out. Measured twice: wall time, and the CPU time of this
  process (every thread: the SQLite store's too; not the PostgreSQL server's), which other
  work on a shared machine disturbs far less.
- `resume`: `session/resume` with `replayFrom` of a session with `--updates` stored updates
  (chunks of one message, folded as history.py does), in a fresh agent on the same file: the
  store's load and the history rebuilt, then the replay.

Samples alternate between the stores, so load on a shared machine hits both alike; each figure
is the median. Prints a table and writes it to bench/RESULTS_DURABLE.md.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "generated"))

import acp_bindings as acp  # noqa: E402
from acp_bindings._runtime.rpc.connection import Connection  # noqa: E402
from acp_bindings._runtime.store.durable import Batch, DurableStore, StoredSession  # noqa: E402
from acp_bindings._runtime.store.sqlite_store import SqliteStore  # noqa: E402
from acp_bindings._runtime.wire.jsonvalue import JsonObject  # noqa: E402

CHUNK = {"type": "text", "text": "token "}


class StreamingAgent(acp.Agent):
    """Answers a prompt whose text is N with N chunks of one message."""

    async def on_prompt(self, session: acp.Session, prompt: acp.Prompt) -> str | None:
        message = session.engine.agent_message()
        for _ in range(int(prompt.text)):
            await message.append(CHUNK)
        return None


async def pipe() -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """Two stream pairs over a local socket pair (reader, writer per end)."""
    import socket

    left, right = socket.socketpair()
    return await asyncio.open_connection(sock=left), await asyncio.open_connection(sock=right)


async def connect(agent: acp.Agent) -> tuple[acp.Client, Connection, Connection]:
    client = acp.Client()
    (ra, wa), (rb, wb) = await pipe()
    agent_end, client_end = Connection(ra, wa), Connection(rb, wb)
    agent_end.dispatcher = agent.dispatcher(agent_end)
    client_end.dispatcher = client.dispatcher(client_end)
    agent_end.start()
    client_end.start()
    await client.lifecycle.initialize()
    return client, agent_end, client_end


Where = Path | str  # a SQLite file, or a PostgreSQL URL


def open_store(where: Where) -> DurableStore:
    if isinstance(where, Path):
        return SqliteStore(where)
    from acp_bindings._runtime.store.postgres_store import PostgresStore

    return PostgresStore(where)


async def one_turn(where: Where | None, chunks: int) -> tuple[float, float]:
    """The turn's wall time and this process's CPU time meanwhile."""
    store = open_store(where) if where is not None else None
    client, agent_end, client_end = await connect(StreamingAgent(session_store=store))
    session = await client.lifecycle.new_session(cwd="/bench")
    started, cpu = time.perf_counter(), time.process_time()
    await session.run_turn([{"type": "text", "text": str(chunks)}])
    took, cpu = time.perf_counter() - started, time.process_time() - cpu
    await client_end.close()
    await agent_end.close()
    if store is not None:
        await store.close()
    return took, cpu


async def one_resume(where: Where, session_id: str) -> float:
    store = open_store(where)
    client, agent_end, client_end = await connect(StreamingAgent(session_store=store))
    started = time.perf_counter()
    await client.lifecycle.resume_session(session_id, "/bench", replayFrom={"type": "start"})
    took = time.perf_counter() - started
    await client_end.close()
    await agent_end.close()
    await store.close()
    return took


async def fill(where: Where, updates: int) -> str:
    """A stored session of `updates` chunks (written as the journal would: batches of 512)."""
    store = open_store(where)
    session_id = f"bench-session-{time.time_ns()}"
    await store.create(StoredSession(session_id, cwd="/bench", setup={"cwd": "/bench"}, owner="b"))
    chunk: JsonObject = {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m",
        "content": {"type": "text", "text": "token "},
    }
    for first in range(0, updates, 512):
        count = min(512, updates - first)
        await store.append(Batch(session_id, first, [chunk] * count, "b"))
    await store.close()
    return session_id


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:.1f} ms"


def measure(repeat: int, sample: Callable[[], Coroutine[Any, Any, float]]) -> list[float]:
    return [asyncio.run(sample()) for _ in range(repeat)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--updates", type=int, default=100_000)
    parser.add_argument("--postgres", metavar="URL", help="measure a PostgreSQL store too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        kinds: dict[str, Callable[[int], Where]] = {"SQLite": lambda n: root / f"turn{n}.db"}
        if args.postgres:
            kinds["PostgreSQL"] = lambda n: str(args.postgres)
        memory: list[tuple[float, float]] = []
        turns: dict[str, list[tuple[float, float]]] = {kind: [] for kind in kinds}
        for n in range(args.repeat):  # alternating, each SQLite sample on a fresh file
            memory.append(asyncio.run(one_turn(None, args.chunks)))
            for kind, where in kinds.items():
                turns[kind].append(asyncio.run(one_turn(where(n), args.chunks)))
        resumes: dict[str, list[float]] = {}
        for kind, where in kinds.items():
            big = root / "resume.db" if kind == "SQLite" else where(0)
            session_id = asyncio.run(fill(big, args.updates))
            resumes[kind] = measure(args.repeat, partial(one_resume, big, session_id))
    rows = [("measure", "in memory", *kinds, *(f"{kind} / memory" for kind in kinds))]
    for which, label in ((0, "wall"), (1, "CPU")):
        base = [sample[which] for sample in memory]
        of = {kind: [sample[which] for sample in turns[kind]] for kind in kinds}
        rows.append(
            (
                f"turn of {args.chunks} chunks ({label})",
                median_ms(base),
                *(median_ms(of[kind]) for kind in kinds),
                *(
                    f"{statistics.median(of[kind]) / statistics.median(base):.2f}x"
                    for kind in kinds
                ),
            )
        )
    rows.append(
        (
            f"resume of {args.updates} stored updates",
            "-",
            *(median_ms(resumes[kind]) for kind in kinds),
            *("-" for _ in kinds),
        )
    )
    lines = ["| " + " | ".join(row) + " |" for row in rows]
    lines.insert(1, "|" + "---|" * len(rows[0]))
    report = "\n".join(lines)
    print(report)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    header = (
        f"# Durable sessions (bench/durable_turn.py)\n\n{stamp}, Python "
        f"{platform.python_version()}, {platform.machine()}, median of {args.repeat} samples "
        "(a shared machine: compare within a run, not across runs).\n\n"
    )
    (BENCH / "RESULTS_DURABLE.md").write_text(header + report + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
