"""Peak memory of `acp-codegen inspect --trace` on a long generated trace (outside the suite;
docs/robustness.md has the numbers).

    python bench/trace_memory.py [MEGABYTES]    # default 100

Writes a trace of a long session (message chunks, thoughts, tool calls with their output, a
prompt every few hundred lines) to a temporary file, starts the inspector on it, asks for the
page's list and view as the page does, stops it with Ctrl-C and prints the peak resident set
size that /usr/bin/time reports.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SESSION = "sess_bench"


def record(direction: str, message: Mapping[str, object]) -> bytes:
    line = {"time": "2026-12-03T00:00:00.000000+00:00", "dir": direction, "message": message}
    return json.dumps(line, separators=(",", ":")).encode() + b"\n"


def update(body: Mapping[str, object]) -> dict[str, object]:
    params = {"sessionId": SESSION, "update": body}
    return {"jsonrpc": "2.0", "method": "session/update", "params": params}


def write_trace(path: Path, megabytes: int) -> int:
    """A trace of about `megabytes` MB; its number of lines."""
    with path.open("wb") as out:
        out.write(record("send", {"jsonrpc": "2.0", "id": 0, "method": "initialize"}))
        answer = {"protocolVersion": 2, "info": {"name": "bench", "version": "1"}}
        out.write(record("recv", {"jsonrpc": "2.0", "id": 0, "result": answer}))
        out.write(record("send", {"jsonrpc": "2.0", "id": 1, "method": "session/new"}))
        out.write(record("recv", {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": SESSION}}))
        lines, turn = 4, 0
        while out.tell() < megabytes * 1_000_000:
            turn += 1
            params = {"sessionId": SESSION, "prompt": [{"type": "text", "text": f"turn {turn}"}]}
            ask = {"jsonrpc": "2.0", "id": 1 + turn, "method": "session/prompt", "params": params}
            out.write(record("send", ask))
            for chunk in range(300):
                words = f"turn {turn} chunk {chunk}: " + "lorem ipsum dolor sit amet " * 3
                kind = "agent_thought_chunk" if chunk % 10 == 0 else "agent_message_chunk"
                text = {"type": "text", "text": words}
                message_id = f"m{turn}{'t' if chunk % 10 == 0 else ''}"
                body = {"sessionUpdate": kind, "messageId": message_id, "content": text}
                out.write(record("recv", update(body)))
                if chunk % 50 == 0:
                    output = {"type": "content", "content": {"type": "text", "text": "x" * 2000}}
                    call = {
                        "sessionUpdate": "tool_call",
                        "toolCallId": f"c{turn}.{chunk}",
                        "title": "read a file",
                        "kind": "read",
                        "status": "completed",
                        "content": [output],
                    }
                    out.write(record("recv", update(call)))
                    lines += 1
            result = {"stopReason": "end_turn"}
            out.write(record("recv", {"jsonrpc": "2.0", "id": 1 + turn, "result": result}))
            lines += 302
    return lines


def peak_rss(trace: Path) -> str:
    command = ["/usr/bin/time", "-v", sys.executable, "-m", "acp_codegen", "inspect"]
    command += ["--no-open", "--trace", str(trace)]
    process = subprocess.Popen(
        command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stderr is not None
    line = process.stdout.readline()
    url = line.split("serving on ", 1)[1].strip()
    base, token = url.split("/?token=")
    for path in ("/api/traffic", "/api/view", "/api/view?at=1000"):
        request = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=600) as response:
            response.read()
    # Ctrl-C to inspect itself: /usr/bin/time ignores SIGINT while it waits.
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
    for child in children:
        os.kill(int(child), signal.SIGINT)
    _, err = process.communicate(timeout=600)
    found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    assert found is not None, err
    return f"{int(found.group(1)) / 1024:.0f} MiB"


def main() -> None:
    megabytes = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    with tempfile.TemporaryDirectory() as folder:
        trace = Path(folder) / "long.trace.jsonl"
        lines = write_trace(trace, megabytes)
        size = trace.stat().st_size / 2**20
        print(f"trace: {size:.1f} MiB, {lines} lines; inspect's peak RSS: {peak_rss(trace)}")


if __name__ == "__main__":
    main()
