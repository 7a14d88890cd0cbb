"""`ACP_TRACE` over HTTP and WebSocket, as over stdio: the served agent and our client each
append every message they send and receive to the file, as `{"time", "dir", "message"}`
records; the agent's records also name their connection (`"connection"`), since one server
writes all of its connections to one file. Both sides of one turn are in the file: what the
client sent is what the agent received, and the other way round."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.remote.agents import REPO, AllowingClient, run, served


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def key(record: dict[str, Any]) -> str:
    """What tells one message from another: the whole message."""
    return json.dumps(record["message"], sort_keys=True)


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_acp_trace_records_both_ends_of_a_remote_connection(
    scheme: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv("ACP_TRACE", str(trace))

    async def scenario() -> str | None:
        async with served() as agent:
            client = AllowingClient()
            remote = await client.connect(agent.url if scheme == "http" else agent.ws_url)
            try:
                await client.lifecycle.initialize()
                session = await client.lifecycle.new_session(cwd=str(REPO))
                assert await session.run_turn([{"type": "text", "text": "traced"}]) == "end_turn"
                await session.close()
                return remote.connection_id
            finally:
                await remote.close()

    connection_id = run(scenario())
    everything = records(trace)
    assert all({"time", "dir", "message"} <= set(record) for record in everything)
    agent = [record for record in everything if "connection" in record]
    client = [record for record in everything if "connection" not in record]
    assert {record["connection"] for record in agent} == {connection_id}
    assert client[0]["dir"] == "send" and client[0]["message"]["method"] == "initialize"
    assert agent[0]["dir"] == "recv" and agent[0]["message"] == client[0]["message"]
    sent = {key(r): r for r in client if r["dir"] == "send"}
    received = {key(r): r for r in agent if r["dir"] == "recv"}
    assert sent.keys() == received.keys()
    assert {key(r) for r in agent if r["dir"] == "send"} == {
        key(r) for r in client if r["dir"] == "recv"
    }
    methods = [r["message"].get("method") for r in client if r["dir"] == "send"]
    assert {"initialize", "session/new", "session/prompt", "session/close"} <= set(methods)
    updates = [r for r in agent if r["message"].get("method") == "session/update"]
    assert updates and all(r["dir"] == "send" for r in updates)
