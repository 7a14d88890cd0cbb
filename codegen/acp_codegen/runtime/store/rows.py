"""How both stores keep a session's values as database text: JSON written so any JSON string
survives (a lone surrogate, which UTF-8 cannot hold, goes escaped and comes back exact), a
batch's history as one JSON array (`history_body`: the updates' own bytes, cut from the
notifications that carried them on the wire, encoded again only when no frame is known), and
a session's record read back from its row (`RECORD_COLUMNS`, in that order)."""

from __future__ import annotations

import json
from typing import Any, Final

from ..rpc.messages import notification_message
from ..wire.jsonvalue import JsonValue
from ..wire.line_framing import encode_json
from ..wire.protocol import SESSION_UPDATE
from .durable import Batch, StoredSession

RECORD_COLUMNS: Final = (
    "session_id, cwd, title, setup, config, data, last_state, owner, updated_at, next_seq"
)


def json_text(value: JsonValue) -> str:
    """Compact JSON that encodes as UTF-8: escaped only where a string cannot otherwise."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    try:
        text.encode()
    except UnicodeEncodeError:
        text = json.dumps(value, separators=(",", ":"))
    return text


def json_value(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def stored_record(row: tuple[Any, ...]) -> StoredSession:
    """The record a `SELECT RECORD_COLUMNS` row holds (no history)."""
    sid, cwd, title, setup, config, data, state, owner, updated, next_seq = row
    return StoredSession(
        sid, cwd, title, json_value(setup) or {}, json_value(config), json_value(data),
        json_value(state), owner, float(updated), int(next_seq),
    )  # fmt: skip


def _frame_prefix(session_id: str) -> bytes:
    """What a `session/update` notification's frame holds before its update (the update
    itself and then `}}` follow): encoded as the connection encodes one."""
    probe = encode_json(
        notification_message(SESSION_UPDATE, {"sessionId": session_id, "update": 0})
    )
    return probe[: -len(b"0}}")]


def history_body(batch: Batch) -> bytes:
    """`batch.updates` as one compact JSON array (UTF-8). An update with a frame (the bytes
    the connection wrote: `Batch.frames`) is the slice of it between the notification's
    prefix and its closing `}}` (valid JSON on its own, the same value); the others, and a
    frame of another shape, are encoded here."""
    updates, frames = batch.updates, batch.frames
    if len(frames) != len(updates):
        frames = [None] * len(updates)
    prefix = _frame_prefix(batch.session_id)
    start = len(prefix)
    parts = [
        (
            frame[start:-2]
            if type(frame) is bytes and frame.startswith(prefix) and frame.endswith(b"}}")
            else encode_json(update)
        )
        for update, frame in zip(updates, frames, strict=True)
    ]
    return b"[" + b",".join(parts) + b"]"
