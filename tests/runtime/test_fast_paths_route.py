"""The server's routing of the agent's output (`RemoteLink._route`) against its reference
(`_route_peeked`, which reads every message whole), on the frames our connection writes: the
same messages on the same streams, the same children learnt; and `update_session` against
`peek`."""

from __future__ import annotations

import asyncio
from typing import Any

from acp_codegen.runtime.rpc.messages import notification_message, request_message
from acp_codegen.runtime.serving.remote_link import RemoteLimits, RemoteLink
from acp_codegen.runtime.transports.remote_wire import peek, update_session
from acp_codegen.runtime.wire.jsonvalue import JsonObject
from acp_codegen.runtime.wire.line_framing import encode_json
from hypothesis import example, given
from hypothesis import strategies as st

from .json_text import json_text
from .streams import Silent

SESSIONS = ["s1", "s2", "child", "grandchild"]
session_ids = st.sampled_from(SESSIONS) | json_text(max_size=6)
texts = st.sampled_from(["subagent_update", '"', "\\", "é", "\ud800"]) | json_text(max_size=8)


@st.composite
def updates(draw: st.DrawFn) -> JsonObject:
    kind = draw(st.sampled_from(["agent_message_chunk", "tool_call_update", "subagent_update"]))
    if kind == "subagent_update":
        return {"sessionUpdate": kind, "sessionId": draw(session_ids)}
    return {"sessionUpdate": kind, "content": {"type": "text", "text": draw(texts)}}


@st.composite
def frames(draw: st.DrawFn) -> bytes:
    """A message as our connection writes it: most of them session updates."""
    session, update = draw(session_ids), draw(updates())
    params: JsonObject = {"sessionId": session, "update": update}
    if draw(st.booleans()):
        params = {"update": update, "sessionId": session}  # another builder's order
    kind = draw(st.sampled_from(["update", "update", "update", "other", "request", "answer"]))
    if kind == "update":
        return encode_json(notification_message("session/update", params))
    if kind == "other":
        return encode_json(notification_message("_x/note", params))
    if kind == "request":
        method = "session/request_permission"
        return encode_json(request_message(draw(st.integers(0, 3)), method, params))
    return encode_json({"jsonrpc": "2.0", "id": draw(st.integers(0, 3)), "result": {}})


@given(frames())
@example(encode_json(notification_message("session/update", {"sessionId": "s1", "update": {}})))
def test_update_session_equals_peek_where_it_answers(frame: bytes) -> None:
    session = update_session(frame)
    if session is None:
        return
    envelope = peek(frame)
    assert envelope.method == "session/update" and not envelope.has_id
    assert envelope.session_id == session
    params: Any = envelope.value["params"] if envelope.value is not None else None
    assert params["update"].get("sessionUpdate") != "subagent_update"


def test_update_session_answers_for_a_plain_chunk() -> None:
    update: JsonObject = {"sessionUpdate": "agent_message_chunk", "content": {"text": "hi"}}
    params: JsonObject = {"sessionId": "s1", "update": update}
    frame = encode_json(notification_message("session/update", params))
    assert update_session(frame) == "s1"


def _state(link: RemoteLink) -> dict[str, Any]:
    streams = {"main": list(link.main._frames)}
    streams.update({session: list(outbox._frames) for session, outbox in link.sessions.items()})
    return {"streams": streams, "parents": dict(link._parents), "asked": dict(link._asked)}


@given(
    st.lists(frames(), max_size=12),
    st.sets(st.sampled_from(SESSIONS)),
    st.booleans(),
)
def test_the_fast_routing_queues_what_the_reference_queues(
    sent: list[bytes], with_streams: set[str], websocket: bool
) -> None:
    async def routed(fast: bool) -> dict[str, Any]:
        link = RemoteLink(lambda _: Silent(), RemoteLimits(), websocket=websocket)
        try:
            for session in sorted(with_streams):
                link.session_stream(session)
            for frame in sent:
                (link._route if fast else link._route_peeked)(frame)
            return _state(link)
        finally:
            await link.close()

    assert asyncio.run(routed(True)) == asyncio.run(routed(False))
