"""A recorded-style session/update stream, generated from a fixed seed (never committed).

`ours(n)` is the v2 stream our client reads; `sdk(n)` is the same events in the nearest shape
the official SDK's (v1) schema accepts, so both sides parse lines of similar size and mix.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

SEED = 20261130
SESSION = "sess_7f3a9c"
# Share of each variant in the stream (chunks dominate a real prompt turn).
MIX = (
    ("agent_message_chunk", 70),
    ("tool_call_update", 8),
    ("tool_call_content_chunk", 12),
    ("plan_update", 3),
    ("usage_update", 5),
    ("state_update", 2),
)
_WORDS = [
    "the",
    "parser",
    "reads",
    "each",
    "line",
    "then",
    "folds",
    "it",
    "into",
    "the",
    "session",
    "state",
    "while",
    "tool",
    "calls",
    "stream",
    "their",
    "output",
    "and",
    "the",
    "plan",
    "moves",
    "one",
    "entry",
    "at",
    "a",
    "time",
    "until",
    "the",
    "turn",
    "ends",
]


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 12))) + " "


def _events(n: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """(tag, facts) pairs; both flavours render the same facts."""
    rng = random.Random(SEED)
    tags = [tag for tag, _ in MIX]
    weights = [weight for _, weight in MIX]
    message = tool = 0
    for _ in range(n):
        tag = rng.choices(tags, weights)[0]
        if rng.random() < 0.01:
            message += 1
        if tag in ("tool_call_update", "tool_call_content_chunk") and rng.random() < 0.05:
            tool += 1
        yield (
            tag,
            {
                "message": f"msg_{message}",
                "tool": f"call_{tool}",
                "text": _text(rng),
                "status": rng.choice(("pending", "in_progress", "completed")),
                "entries": rng.randint(1, 5),
                "used": rng.randint(1000, 200_000),
                "state": rng.choice(("running", "idle")),
            },
        )


def _ours(tag: str, f: dict[str, Any]) -> dict[str, Any]:
    text = {"type": "text", "text": f["text"]}
    if tag == "agent_message_chunk":
        return {"sessionUpdate": tag, "messageId": f["message"], "content": text}
    if tag == "tool_call_update":
        return {
            "sessionUpdate": tag,
            "toolCallId": f["tool"],
            "status": f["status"],
            "title": "Run tests",
            "kind": "execute",
        }
    if tag == "tool_call_content_chunk":
        return {
            "sessionUpdate": tag,
            "toolCallId": f["tool"],
            "content": {"type": "content", "content": text},
        }
    if tag == "plan_update":
        entries = [
            {"content": f"step {i}", "priority": "medium", "status": f["status"]}
            for i in range(f["entries"])
        ]
        return {
            "sessionUpdate": tag,
            "plan": {"type": "items", "planId": "plan_1", "entries": entries},
        }
    if tag == "usage_update":
        return {"sessionUpdate": tag, "used": f["used"], "size": 200_000}
    update: dict[str, Any] = {"sessionUpdate": "state_update", "state": f["state"]}
    if f["state"] == "idle":
        update["stopReason"] = "end_turn"
    return update


def _sdk(tag: str, f: dict[str, Any]) -> dict[str, Any]:
    text = {"type": "text", "text": f["text"]}
    if tag == "agent_message_chunk":
        return {"sessionUpdate": tag, "messageId": f["message"], "content": text}
    if tag == "tool_call_update":
        return {
            "sessionUpdate": tag,
            "toolCallId": f["tool"],
            "status": f["status"],
            "title": "Run tests",
            "kind": "execute",
        }
    if tag == "tool_call_content_chunk":  # v1 has no chunk: a progress update with content
        return {
            "sessionUpdate": "tool_call_update",
            "toolCallId": f["tool"],
            "content": [{"type": "content", "content": text}],
        }
    if tag == "plan_update":
        entries = [
            {"content": f"step {i}", "priority": "medium", "status": f["status"]}
            for i in range(f["entries"])
        ]
        return {"sessionUpdate": "plan", "entries": entries}
    if tag == "usage_update":
        return {"sessionUpdate": tag, "used": f["used"], "size": 200_000}
    return {"sessionUpdate": "session_info_update", "title": f["state"]}  # v1 has no state


def _line(update: dict[str, Any]) -> bytes:
    message = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": SESSION, "update": update},
    }
    return json.dumps(message, separators=(",", ":")).encode()


def ours(n: int) -> list[bytes]:
    return [_line(_ours(tag, facts)) for tag, facts in _events(n)]


def sdk(n: int) -> list[bytes]:
    return [_line(_sdk(tag, facts)) for tag, facts in _events(n)]


def chunks(n: int) -> list[bytes]:
    """agent_message_chunk lines only (valid for both schemas)."""
    rng = random.Random(SEED)
    return [
        _line(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "msg_1",
                "content": {"type": "text", "text": _text(rng)},
            }
        )
        for _ in range(n)
    ]
