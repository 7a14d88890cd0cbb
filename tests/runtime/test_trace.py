"""The traffic trace (issue 7, part 6): every line both ways, as JSON lines."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.runtime.rpc.trace import TRACE_ENV, Tracer, tracer_for

from .rpc_fixtures import request, table
from .streams import connected, run


def records(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.splitlines()]


def test_every_line_in_both_directions_is_recorded_with_time_and_direction() -> None:
    sink = io.BytesIO()

    async def scenario() -> None:
        connection, peer = await connected(table)
        connection.trace = Tracer(sink)
        await peer.send(request(1, "echo", {"text": "a"}))
        assert (await peer.recv())["result"] == {"text": "a"}
        await peer.send_bytes(b"not json at all\n")
        await peer.recv()  # the parse error
        await connection.close()

    run(scenario())
    seen = records(sink.getvalue())
    assert [(r["dir"], r.get("message", r.get("text"))) for r in seen] == [
        ("recv", request(1, "echo", {"text": "a"})),
        ("send", {"jsonrpc": "2.0", "id": 1, "result": {"text": "a"}}),
        ("recv", "not json at all"),
        ("send", seen[3]["message"]),
    ]
    assert seen[3]["message"]["error"]["code"] == -32700
    assert all(r["time"].endswith("+00:00") for r in seen)


def test_acp_trace_names_the_file_and_an_argument_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(TRACE_ENV, raising=False)
    assert tracer_for(None) is None
    from_env = tmp_path / "env.jsonl"
    monkeypatch.setenv(TRACE_ENV, str(from_env))
    tracer = tracer_for(None)
    assert tracer is not None
    tracer.record("send", b'{"jsonrpc":"2.0","method":"x"}')
    tracer.close()
    assert records(from_env.read_bytes())[0]["message"] == {"jsonrpc": "2.0", "method": "x"}
    explicit = tmp_path / "arg.jsonl"
    tracer = tracer_for(explicit)
    assert tracer is not None
    tracer.record("recv", b"[1,")
    tracer.close()
    assert records(explicit.read_bytes())[0]["text"] == "[1,"
