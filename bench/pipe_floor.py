"""The floor under any asyncio round trip over pipes (bench/RESULTS.md, Round 9b).

    python bench/pipe_floor.py [COUNT]

A parent and a child process exchange one fixed JSON-RPC line each way, COUNT times, through
asyncio's own pipe transports and `StreamReader.readline`, and nothing else: no parsing, no
validation, no dispatch, no state. Prints the wall time per round trip and each process's CPU
time per round trip (from /proc/PID/schedstat): what the event loop, its wake-ups and the
read/write system calls cost before a runtime does any work of its own.
"""

from __future__ import annotations

import asyncio
import sys
import time

REQUEST = b'{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}\n'
ANSWER = b'{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess_0123456789abcdef"}}\n'
WARM_UP = 300


def cpu_seconds(pid: int | str = "self") -> float:
    with open(f"/proc/{pid}/schedstat") as stats:
        return int(stats.read().split()[0]) / 1e9


async def answer() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), sys.stdout.buffer
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    while await reader.readline():
        writer.write(ANSWER)
        await writer.drain()


async def ask(count: int) -> None:
    child = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "answer", stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert child.stdin is not None and child.stdout is not None
    for _ in range(WARM_UP):
        child.stdin.write(REQUEST)
        await child.stdin.drain()
        await child.stdout.readline()
    wall, own, theirs = time.perf_counter(), cpu_seconds(), cpu_seconds(child.pid)
    for _ in range(count):
        child.stdin.write(REQUEST)
        await child.stdin.drain()
        await child.stdout.readline()
    wall, own = time.perf_counter() - wall, cpu_seconds() - own
    theirs = cpu_seconds(child.pid) - theirs
    child.stdin.close()
    await child.wait()
    print(
        f"{count / wall:,.0f} round trips/s: {wall / count * 1e6:.1f} µs wall, CPU "
        f"{own / count * 1e6:.1f} µs asking, {theirs / count * 1e6:.1f} µs answering"
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["answer"]:
        asyncio.run(answer())
    else:
        asyncio.run(ask(int(sys.argv[1]) if len(sys.argv) > 1 else 5000))
