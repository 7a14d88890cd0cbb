"""Load on an agent served remotely: many concurrent clients, each running turns that stream
thousands of chunks, over Streamable HTTP or WebSocket. Reported, never asserted.

    python bench/remote_load.py                          # 200 clients x 2,000 chunks, HTTP
    python bench/remote_load.py --transport ws
    python bench/remote_load.py --clients 50 --chunks 500 --turns 2
    python bench/remote_load.py --session-store sqlite:///tmp/load.db   # or postgresql://...

The agent (`bench/remote_load.py serve`, a subprocess on the committed bindings) answers each
prompt whose text is a number N by streaming N numbered chunks of one message. Each client is
our generated `Client` on its own connection: initialize, session/new, then its turns. It
checks that the folded message is exactly "0 1 2 ... N-1 " (a chunk lost, repeated or out of
order would change it). Reported: throughput (chunks folded per second over the whole run),
p50/p99 of the `session/prompt` round trip (request sent to receipt read) and of a whole turn,
and the agent process's peak and final resident memory (VmHWM, VmRSS). With
`--session-store URL` the agent keeps its sessions in that durable store (a fresh SQLite file
or an empty PostgreSQL database: the URL's kind is reported). Results are appended to
bench/REMOTE_RESULTS.md with the date, machine and load.
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
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "generated"))
RESULTS = REPO / "bench" / "REMOTE_RESULTS.md"
TOKEN = "bench-token"


def counting_agent(session_store: Any = None) -> Any:
    """An agent (committed bindings) that answers a prompt whose text is a number N with N
    numbered chunks of one message (tests/remote uses it too), keeping its sessions in
    `session_store` when given."""
    from acp_bindings import Agent, Prompt, Session

    class CountingAgent(Agent):
        async def on_prompt(self, session: Session, prompt: Prompt) -> str | None:
            message = session.agent_message()
            for number in range(int(prompt.text)):
                await message.append(f"{number} ")
            return None

    return CountingAgent(session_store=session_store)


def serve(store_url: str | None) -> None:
    """The bench agent, served on a free port (its sessions in the store `store_url` names)."""
    from acp_bindings._runtime.serving.http_options import Access
    from acp_bindings._runtime.serving.remote_link import RemoteLimits
    from acp_bindings._runtime.store.store_url import open_store

    limits = RemoteLimits(max_connections=4096)
    store = open_store(store_url) if store_url else None
    agent = counting_agent(store)
    agent.run_http("127.0.0.1", 0, access=Access(token=TOKEN), limits=limits)


@dataclass
class Tally:
    prompt_seconds: list[float] = field(default_factory=list)
    turn_seconds: list[float] = field(default_factory=list)
    chunks: int = 0
    wrong: list[str] = field(default_factory=list)


async def one_client(
    url: str, chunks: int, turns: int, tally: Tally, ready: list[int], start: asyncio.Event
) -> None:
    from acp_bindings import Client, message_text

    client = Client()
    remote = await client.connect(url, headers={"Authorization": f"Bearer {TOKEN}"})
    try:
        await client.lifecycle.initialize()
        session = await client.lifecycle.new_session(cwd=str(REPO))
        request = remote.connection.request

        async def timed(method: str, params: Any = None) -> Any:
            began = time.perf_counter()
            answer = await request(method, params)
            if method == "session/prompt":
                tally.prompt_seconds.append(time.perf_counter() - began)
            return answer

        remote.connection.request = timed  # type: ignore[method-assign]
        ready.append(1)
        await start.wait()
        expected = "".join(f"{number} " for number in range(chunks))
        for _ in range(turns):
            began = time.perf_counter()
            stop = await session.run_turn([{"type": "text", "text": str(chunks)}])
            tally.turn_seconds.append(time.perf_counter() - began)
            reply = message_text(session.snapshot()["messages"][-1])
            if stop != "end_turn" or reply != expected:
                tally.wrong.append(f"{session.session_id}: {stop}, {len(reply)} characters")
            tally.chunks += chunks
    finally:
        await remote.close()


def memory_of(pid: int) -> dict[str, str]:
    status = Path(f"/proc/{pid}/status").read_text()
    return {key: value.strip() for key, value in re.findall(r"^(VmHWM|VmRSS):(.*)$", status, re.M)}


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def measure(
    args: argparse.Namespace, url: str, at_start: Callable[[], object] | None = None
) -> tuple[Tally, float]:
    """Connect every client (initialize, session/new), then time their turns together
    (`at_start` is called as the clock starts: remote_vs_ts.py reads the server's CPU there)."""
    tally, start = Tally(), asyncio.Event()
    ready: list[int] = []  # one entry per client set up
    clients = [
        asyncio.create_task(one_client(url, args.chunks, args.turns, tally, ready, start))
        for _ in range(args.clients)
    ]
    while len(ready) < args.clients:  # set-up of all clients, before the clock starts
        done, _ = await asyncio.wait(clients, timeout=0.05, return_when=asyncio.FIRST_EXCEPTION)
        for task in done:
            task.result()  # a client that failed to connect stops the run here
    if at_start is not None:
        at_start()
    began = time.perf_counter()
    start.set()
    await asyncio.gather(*clients)
    return tally, time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", nargs="?", choices=["serve"], help=argparse.SUPPRESS)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--chunks", type=int, default=2000)
    parser.add_argument("--turns", type=int, default=1)
    parser.add_argument("--transport", choices=["http", "ws"], default="http")
    parser.add_argument("--session-store", metavar="URL", default=None)
    args = parser.parse_args()
    if args.mode == "serve":
        serve(args.session_store)
        return
    store = ["--session-store", args.session_store] if args.session_store else []
    agent = subprocess.Popen(
        [sys.executable, __file__, "serve", *store], stderr=subprocess.PIPE, text=True
    )
    try:
        assert agent.stderr is not None
        url = ""
        for line in agent.stderr:
            if found := re.search(r"serving ACP on (http://\S+)", line):
                url = found.group(1)
                break
        if args.transport == "ws":
            url = "ws" + url.removeprefix("http")
        tally, wall = asyncio.run(measure(args, url))
        memory = memory_of(agent.pid)
    finally:
        agent.terminate()
        agent.wait()
    report(args, tally, wall, memory)


def report(args: argparse.Namespace, tally: Tally, wall: float, memory: dict[str, str]) -> None:
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    lines = [
        f"## {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {args.transport}: "
        f"{args.clients} clients x {args.turns} turn(s) x {args.chunks} chunks"
        + (f", sessions in {args.session_store.partition(':')[0]}" if args.session_store else ""),
        "",
        f"- machine: {platform.machine()}, {os.cpu_count()} cores, load (1, 5, 15 min) {load}; "
        f"Python {platform.python_version()}",
        f"- wall time {wall:.1f} s; {tally.chunks} chunks folded, "
        f"{tally.chunks / wall:,.0f} chunks/s",
        f"- session/prompt round trip: p50 {percentile(tally.prompt_seconds, 0.5) * 1e3:.1f} ms, "
        f"p99 {percentile(tally.prompt_seconds, 0.99) * 1e3:.1f} ms",
        f"- whole turn: p50 {percentile(tally.turn_seconds, 0.5):.2f} s, "
        f"p99 {percentile(tally.turn_seconds, 0.99):.2f} s, "
        f"mean {statistics.fmean(tally.turn_seconds):.2f} s",
        f"- agent memory: peak {memory.get('VmHWM', '?')}, at the end {memory.get('VmRSS', '?')}",
        f"- lost, repeated or reordered: {len(tally.wrong)} turn(s)"
        + (f" ({'; '.join(tally.wrong[:3])})" if tally.wrong else ""),
        "",
    ]
    text = "\n".join(lines)
    print(text)
    header = "" if RESULTS.exists() else "# Remote load (bench/remote_load.py)\n\n"
    with RESULTS.open("a", encoding="utf-8") as results:
        results.write(header + text + "\n")


if __name__ == "__main__":
    main()
