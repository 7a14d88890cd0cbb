"""How both stores keep a session's values as database text: JSON written so any JSON string
survives (a lone surrogate, which UTF-8 cannot hold, goes escaped and comes back exact), and
a session's record read back from its row (`RECORD_COLUMNS`, in that order)."""

from __future__ import annotations

import json
from typing import Any, Final

from ..wire.jsonvalue import JsonValue
from .durable import StoredSession

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
