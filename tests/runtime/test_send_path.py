"""The agent's send path converts each update once: what reaches the wire is the update's wire
JSON (models dumped by alias) whether the peer is a connection (which then writes it as it is)
or any other `Peer`; `updated_at` follows each send; frames encode as `json` would."""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.runtime.agent.agent_session import AgentSession
from acp_codegen.runtime.state.history import chunk_runs
from acp_codegen.runtime.wire.line_framing import encode_json

from .rules import RULES
from .streams import connected, run

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "generated"))

from acp_bindings import models


class RecordingPeer:
    """A peer with only the `Peer` protocol (no `notify_json`)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []

    async def request(self, method: str, params: Any) -> Any:
        raise AssertionError("no requests expected")

    async def notify(self, method: str, params: Any) -> None:
        self.sent.append((method, params))


def block_model() -> models.TextContent:
    return models.TextContent.model_validate({"type": "text", "text": "hi"})


EXPECTED_UPDATE = {
    "sessionUpdate": "agent_message_chunk",
    "messageId": "m1",
    "content": {"type": "text", "text": "hi"},
}


def test_a_model_inside_an_update_reaches_the_connection_as_wire_json() -> None:
    async def scenario() -> Any:
        connection, peer = await connected()
        session = AgentSession("s1", connection, {}, None, chunk_runs=chunk_runs(RULES))
        await session.agent_message("m1").append(block_model())
        message = await peer.recv()
        await connection.close()
        return message, session.history

    message, history = run(scenario())
    assert message == {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s1", "update": EXPECTED_UPDATE},
    }
    # kept for resume as the whole message it starts (history.py)
    assert history == [
        {
            "sessionUpdate": "agent_message",
            "messageId": "m1",
            "content": [{"type": "text", "text": "hi"}],
        }
    ]


def test_a_peer_without_notify_json_gets_the_same_params() -> None:
    peer = RecordingPeer()
    session = AgentSession("s1", peer, {}, None)
    run(session.agent_message("m1").append(block_model()))
    assert peer.sent == [("session/update", {"sessionId": "s1", "update": EXPECTED_UPDATE})]


ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def test_updated_at_is_iso_utc_moves_with_each_send_and_can_be_restored() -> None:
    session = AgentSession("s1", RecordingPeer(), {}, None)
    assert ISO_UTC.match(session.updated_at)
    session.updated_at = "2020-01-01T00:00:00.000Z"  # e.g. restored in load_session
    assert session.updated_at == "2020-01-01T00:00:00.000Z"
    run(session.set_title("t"))
    assert ISO_UTC.match(session.updated_at)
    assert session.updated_at > "2020-01-01T00:00:00.000Z"


@pytest.mark.parametrize(
    "value",
    [
        {"text": 'naïve \u2028 \x00 \n "q" \\ 😀', "n": [1, 2.5, True, None]},
        {"big": 10**40, "neg": -0.0},
        ["", [], {}],
    ],
)
def test_frames_encode_exactly_as_compact_json(value: Any) -> None:
    expected = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    assert encode_json(value) == expected.encode()
    assert b"\n" not in encode_json(value)


@pytest.mark.parametrize("bad", [math.nan, math.inf, object()])
def test_frames_that_are_not_json_are_refused(bad: Any) -> None:
    # A lone surrogate is JSON (written escaped): tests/runtime/test_wire_text.py.
    with pytest.raises((ValueError, TypeError)):
        encode_json({"x": bad})


def test_a_chunk_sent_without_a_conversion_walk_is_still_checked() -> None:
    """`append` with no chunk-scoped fields skips the second conversion (its block is converted
    already) but not the schema check: a bad block is refused and nothing is sent."""
    from acp_bindings import merge_rules, methods
    from acp_codegen.runtime.rpc.outgoing_checks import OutgoingChecks
    from pydantic import ValidationError

    tables: dict[str, Any] = {"sent": methods.CLIENT_SPECS, "answered": methods.AGENT_SPECS}
    checks = OutgoingChecks(**tables, stop_reasons=merge_rules.STOP_REASONS)
    peer = RecordingPeer()
    session = AgentSession("s1", peer, {}, None, checks)
    run(session.agent_message("m1").append(block_model()))  # a good one goes out
    with pytest.raises(ValidationError):
        run(session.agent_message("m1").append({"type": "text", "text": 5}))
    assert peer.sent == [("session/update", {"sessionId": "s1", "update": EXPECTED_UPDATE})]


def test_chunk_scoped_fields_holding_a_model_are_converted() -> None:
    peer = RecordingPeer()
    session = AgentSession("s1", peer, {}, None)
    run(session.agent_message("m1").append("hi", _meta={"block": block_model()}))
    update = {**EXPECTED_UPDATE, "_meta": {"block": {"type": "text", "text": "hi"}}}
    assert peer.sent == [("session/update", {"sessionId": "s1", "update": update})]
