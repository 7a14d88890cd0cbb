"""Measure time and peak memory for the big hostile inputs of docs/robustness.md.

    python fuzz/bounds.py            # every case, a Markdown table on stdout
    python fuzz/bounds.py wire_200mib_line schema_100mib

Each case runs in a fresh interpreter (peak RSS is per process). Outside the test suite: the
tests use sizes that keep it fast and assert behaviour, never time.
"""

from __future__ import annotations

import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
REQUEST = REPO / "tests" / "fixtures" / "schemas" / "request.json"


def _doc() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(REQUEST.read_text(encoding="utf-8"))
    return doc


def _generate(text: str | Callable[[Path], None]) -> str:
    """Run `acp-codegen generate` on `text` in a child process; its own time and peak memory
    replace this process's in the row (building the input is not what is measured)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "schema.json"
        if isinstance(text, str):
            path.write_text(text, encoding="utf-8")
        else:
            text(path)  # writes the file itself: a big input never sits in this process
        out = Path(tmp) / "out"
        command = [sys.executable, "-m", "acp_codegen", "generate", "--schema", str(path)]
        start = time.perf_counter()
        proc = subprocess.run(
            [*command, "--out", str(out), "--package", "bounds"],
            capture_output=True,
            text=True,
            check=False,
        )
        _CHILD["seconds"] = time.perf_counter() - start
        _CHILD["peak_mib"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss >> 10
        if "Traceback" in proc.stderr:
            return f"TRACEBACK (exit {proc.returncode})"
        if proc.returncode == 2:
            message = proc.stderr.splitlines()[0].split(": ", 2)[-1]
            return f"exit 2, nothing written: {message}"
        size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file()) >> 10
        return f"exit {proc.returncode}, generated {size} KiB"


_CHILD: dict[str, float] = {}


def schema_100mib() -> str:
    def write(path: Path) -> None:
        head = json.dumps(_doc())[:-1] + ', "description": "'
        with path.open("w", encoding="utf-8") as out:
            out.write(head)
            for _ in range(100):
                out.write("x" * (1 << 20))
            out.write('"}')

    return _generate(write)


def schema_10mib_description() -> str:
    doc = _doc()
    doc["$defs"]["RenameSessionRequest"]["description"] = "x" * (10 << 20)
    return _generate(json.dumps(doc))


def _defs(count: int) -> str:
    doc = _doc()
    for i in range(count):
        doc["$defs"][f"Thing{i}"] = {
            "title": f"Thing{i}",
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "next": {"$ref": f"#/$defs/Thing{(i + 1) % count}"},
            },
        }
    return _generate(json.dumps(doc))


def defs_10000() -> str:
    return _defs(10_000)


def defs_2000() -> str:  # the most accepted (with the fixture's own 3)
    return _defs(1997)


def _nested(levels: int) -> str:
    doc = _doc()
    doc["$defs"]["RenameSessionRequest"]["properties"]["deep"] = {"$ref": "#/$defs/SessionId"}
    nested = '{"type":"object","properties":{"x":' * levels + '{"type":"string"}' + "}}" * levels
    return json.dumps(doc).replace('{"$ref": "#/$defs/SessionId"}', nested, 1)


def nesting_1000() -> str:
    return _generate(_nested(1000))


def nesting_28() -> str:  # 28 objects: 64 JSON levels, the deepest accepted
    return _generate(_nested(28))


def ref_chain_1000() -> str:
    doc = _doc()
    for i in range(1000):
        last = i == 999
        doc["$defs"][f"Alias{i}"] = (
            {"title": f"Alias{i}", "type": "string"}
            if last
            else {"title": f"Alias{i}", "$ref": f"#/$defs/Alias{i + 1}"}
        )
    doc["$defs"]["RenameSessionRequest"]["properties"]["a"] = {"$ref": "#/$defs/Alias0"}
    return _generate(json.dumps(doc))


# -- wire ---------------------------------------------------------------------------------------


class _Sink:
    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def write(self, data: bytes) -> None:
        if data != b"\n":
            self.frames.append(data[:200])

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        pass

    def is_closing(self) -> bool:
        return False


async def _serve(chunks: Callable[[], Any], **options: Any) -> list[bytes]:
    from acp_codegen.runtime.rpc.connection import Connection
    from acp_codegen.runtime.rpc.dispatch import TableDispatcher
    from acp_codegen.runtime.wire.tables import MethodSpec
    from pydantic import BaseModel

    class Text(BaseModel):
        text: str

    class Handler:
        async def size(self, *, params: Text) -> int:
            return len(params.text)

    reader = asyncio.StreamReader()
    sink = _Sink()
    methods = {"size": MethodSpec("size", "agent", "request", Text, None, "size")}  # type: ignore[arg-type]
    connection = Connection(reader, sink, TableDispatcher(methods, Handler()), **options)
    serving = asyncio.create_task(connection.run())
    for chunk in chunks():
        reader.feed_data(chunk)
        await asyncio.sleep(0)
    reader.feed_eof()
    await serving
    return sink.frames


def _big_line(mib: int) -> Callable[[], Any]:
    def chunks() -> Any:
        yield b'{"jsonrpc":"2.0","id":1,"method":"size","params":{"text":"'
        block = b"y" * (1 << 20)
        for _ in range(mib):
            yield block
        yield b'"}}\n'

    return chunks


def wire_200mib_line() -> str:
    frames = asyncio.run(_serve(_big_line(200)))
    return f"answered: {frames[0].decode()}"


def wire_200mib_line_over_a_1mib_limit() -> str:
    frames = asyncio.run(_serve(_big_line(200), max_line_bytes=1 << 20))
    return f"answered: {frames[0].decode()}"


def wire_nesting_10000() -> str:
    line = b'{"jsonrpc":"2.0","id":1,"method":"size","params":' + b"[" * 10_000 + b"]" * 10_000
    frames = asyncio.run(_serve(lambda: [line + b"}\n"]))
    return f"answered: {frames[0].decode()}"


def backpressure_100mib() -> str:
    """An agent streams 100 MiB of notifications to a client that does not read for 2 s."""

    async def scenario() -> str:
        import socket

        from acp_codegen.runtime.rpc.connection import Connection

        left, right = socket.socketpair()
        right.setblocking(False)  # the peer: a plain socket nobody reads until later
        reader, writer = await asyncio.open_connection(sock=left)
        connection = Connection(reader, writer)
        sent = 0

        async def stream() -> None:
            nonlocal sent
            for i in range(10_000):
                await connection.notify("session/update", {"i": i, "text": "z" * (10 << 10)})
                sent += 1

        task = asyncio.create_task(stream())
        await asyncio.sleep(2)
        held_at = sent
        rss_held = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >> 10
        loop = asyncio.get_running_loop()
        lines = 0
        while lines < 10_000:
            lines += (await loop.sock_recv(right, 1 << 20)).count(b"\n")
        await task
        await connection.close()
        right.close()
        return (
            f"sender held at {held_at} of 10,000 frames of 10 KiB ({rss_held} MiB peak while"
            " held); all delivered once read"
        )

    return asyncio.run(scenario())


CASES: dict[str, Callable[[], str]] = {
    f.__name__: f
    for f in (
        schema_100mib,
        schema_10mib_description,
        defs_10000,
        defs_2000,
        nesting_1000,
        nesting_28,
        ref_chain_1000,
        wire_200mib_line,
        wire_200mib_line_over_a_1mib_limit,
        wire_nesting_10000,
        backpressure_100mib,
    )
}


def _measure(name: str) -> None:
    start = time.perf_counter()
    outcome = CASES[name]()
    seconds = _CHILD.get("seconds", time.perf_counter() - start)
    peak = int(_CHILD.get("peak_mib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >> 10))
    print(
        json.dumps(
            {"case": name, "seconds": round(seconds, 1), "peak_mib": peak, "outcome": outcome}
        )
    )


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--case":
        _measure(sys.argv[2])
        return 0
    names = sys.argv[1:] or list(CASES)
    print("| case | outcome | time (s) | peak RSS (MiB) |\n|---|---|---|---|", flush=True)
    for name in names:
        proc = subprocess.run(
            [sys.executable, __file__, "--case", name], capture_output=True, text=True, check=False
        )
        if proc.returncode != 0:
            print(f"| {name} | FAILED: {proc.stderr.strip().splitlines()[-1]} | | |", flush=True)
            continue
        row = json.loads(proc.stdout.strip().splitlines()[-1])
        print(f"| {name} | {row['outcome']} | {row['seconds']} | {row['peak_mib']} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
