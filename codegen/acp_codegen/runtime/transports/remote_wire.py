"""What the remote transports agree on, after the official TypeScript SDK 2.4.0: the header
names, the media types, which methods belong to a session, and a look at one message that
tells where it goes (its id, method and session) without changing a byte of it.

A message belongs to a session when its params carry a `sessionId` (requests and
notifications) or, for a response, when the request it answers did; `session/load` answers go
to the connection's stream (the client is not listening on the session yet). Ids are keyed by
type as well as value, so the request `1` and the request `"1"` are told apart.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit, urlunsplit

from ..wire.jsonvalue import JsonObject, JsonValue
from ..wire.line_framing import decode_line
from ..wire.protocol import SESSION_UPDATE, SUBAGENT_UPDATE

CONNECTION_HEADER: Final = "Acp-Connection-Id"
SESSION_HEADER: Final = "Acp-Session-Id"
JSON_TYPE: Final = "application/json"
EVENT_STREAM_TYPE: Final = "text/event-stream"
# The TS SDK's default for one message, both ways (its DEFAULT_MAX_MESSAGE_BYTES).
DEFAULT_MAX_MESSAGE_BYTES: Final = 32 * 1024 * 1024
# How often our client pings a WebSocket server (`connect_remote(heartbeat_seconds=)`).
DEFAULT_HEARTBEAT_SECONDS: Final = 30.0
# How long our client waits on a silent event stream before taking it for lost. Servers send a
# keep-alive comment every 15 s while a reader waits (ours, the TS and the Python SDK's), so three
# missed ones mean the server went away without closing (a half-open socket).
DEFAULT_STREAM_IDLE_SECONDS: Final = 45.0
# The bearer token, for the server (the token it requires) and the client (the token it sends):
# read from the environment, never the command line, which every local user can read.
TOKEN_VARIABLE: Final = "ACP_TOKEN"
AUTHORIZATION: Final = "Authorization"
SESSION_LOAD: Final = "session/load"
SESSION_RESUME: Final = "session/resume"
INITIALIZE: Final = "initialize"
# Methods whose POST must name its session in the header (the TS SDK's list).
SESSION_SCOPED_METHODS: Final = frozenset(
    {
        "session/cancel",
        "session/close",
        "session/delete",
        "session/fork",
        SESSION_LOAD,
        "session/prompt",
        SESSION_RESUME,
        "session/set_config_option",
        "session/set_mode",
        "session/set_model",
    }
)

IdKey = tuple[str, str | int | float | None]  # the kind of id, and the id


def id_key(value: JsonValue) -> IdKey | None:
    """A hashable key for a JSON-RPC id (string, number or null); None for anything else."""
    if value is None:
        return ("null", None)
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, int | float):
        return ("number", value)
    return None


@dataclass(frozen=True, slots=True)
class Envelope:
    """What routing needs of one message. `value` is the parsed message (None when the text
    is no JSON object: the connection itself answers that)."""

    value: JsonObject | None
    method: str | None = None
    session_id: str | None = None  # params.sessionId of a request or notification
    result_session_id: str | None = None  # result.sessionId of a response

    @property
    def has_id(self) -> bool:
        return self.value is not None and "id" in self.value

    @property
    def id(self) -> Any:  # the JSON the peer sent (a RequestId when well-formed), passed back as is
        return None if self.value is None else self.value.get("id")

    @property
    def is_request(self) -> bool:
        return self.method is not None and self.has_id

    @property
    def is_response(self) -> bool:
        return self.method is None and self.has_id

    @property
    def is_initialize(self) -> bool:
        return self.is_request and self.method == INITIALIZE


def peek(frame: bytes) -> Envelope:
    """Read `frame`'s routing facts; an Envelope without value when it is no JSON object."""
    try:
        value = decode_line(frame)
    except ValueError:
        return Envelope(None)
    return envelope_of(value)


def may_route(frame: bytes) -> bool:
    """False when `frame` surely has neither an `id` nor a `result` member: then `peek`
    would find nothing to route it by (no id, no answered session), so the client's event
    streams skip it for most messages (the notifications). A fast path: its reference is
    `peek` itself (tests/runtime/test_fast_paths_sse.py). A member name is written as it is
    unless an escape spells it (`"\\u0069d"`), so a frame with any escape is peeked."""
    return b'"id"' in frame or b'"result"' in frame or b"\\u" in frame


_UPDATE_HEAD: Final = b'{"jsonrpc":"2.0","method":"%s","params":{"sessionId":"' % (
    SESSION_UPDATE.encode()
)
_CHILD_MARK: Final = SUBAGENT_UPDATE.encode()


def update_session(frame: bytes) -> str | None:
    """The session of a `session/update` that announces no child session, read from the
    head of a frame our own connection wrote (`notification_message`, whose params the
    agent's sessions build with `sessionId` first, in `encode_json`'s bytes); None for any
    other frame, or when unsure (an escape in the id, "subagent_update" anywhere). A fast
    path for the server's routing of the agent's output: its reference is `peek`, which it
    equals on such frames (tests/runtime/test_fast_paths_route.py)."""
    if not frame.startswith(_UPDATE_HEAD):
        return None
    start = len(_UPDATE_HEAD)
    end = frame.find(b'"', start)
    session = frame[start:end]
    if end < 0 or b"\\" in session or _CHILD_MARK in frame:
        return None
    try:
        return session.decode()
    except UnicodeDecodeError:  # not what our encoder writes: `peek` refuses it alike
        return None


def envelope_of(value: JsonValue) -> Envelope:
    if not isinstance(value, dict):
        return Envelope(None)
    method = value.get("method")
    if not isinstance(method, str):
        method = None
    params, result = value.get("params"), value.get("result")
    session = params.get("sessionId") if isinstance(params, dict) and method else None
    answered = result.get("sessionId") if isinstance(result, dict) and not method else None
    return Envelope(
        value,
        method,
        session if isinstance(session, str) else None,
        answered if isinstance(answered, str) else None,
    )


# What a refusal of ours (web_guard.py) most likely means, said to the person who connected.
_REFUSAL_HINTS: Final = {
    401: f"the agent wants its token: set {TOKEN_VARIABLE} (or send an 'Authorization: "
    "Bearer ...' header)",
    403: "refused: a wrong token, or a Host or Origin the agent does not accept",
}


def http_status(status: int) -> str:
    """`HTTP 401 (...)`: a refused connection's status, with what to do about it if known."""
    hint = _REFUSAL_HINTS.get(status)
    return f"HTTP {status}" if hint is None else f"HTTP {status} ({hint})"


def with_token(
    headers: Mapping[str, str] | None,
    token: str | None = None,
    environ: Mapping[str, str] = os.environ,
) -> dict[str, str]:
    """`headers` plus `Authorization: Bearer TOKEN`, unless `headers` has an Authorization of
    its own (the explicit header wins); TOKEN is `token`, else `$ACP_TOKEN` (unset or empty:
    no header). A token that cannot be a header value is a ValueError that does not quote it."""
    chosen = dict(headers or {})
    if any(name.lower() == AUTHORIZATION.lower() for name in chosen):
        return chosen
    secret = token if token is not None else environ.get(TOKEN_VARIABLE)
    if not secret:
        return chosen
    if not secret.isprintable():  # a line break would end the header: refused, not quoted
        where = "the token" if token is not None else f"${TOKEN_VARIABLE}"
        raise ValueError(f"{where} holds a control character")
    chosen[AUTHORIZATION] = f"Bearer {secret}"
    return chosen


def shown_url(url: str) -> str:
    """`url` as messages may quote it: without user info, query and fragment, where a
    secret may be (`?token=...`, `user:password@`)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "the agent's URL"
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))
