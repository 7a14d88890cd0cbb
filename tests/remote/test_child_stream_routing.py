"""Over Streamable HTTP a child session (a subagent) has no stream of its own until its client
opens one: what the agent sends for it goes to the stream of the session that announced it, so
it follows the announcement there instead of racing it on the connection's stream."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from acp_codegen.runtime.serving.outbox import Outbox
from acp_codegen.runtime.serving.remote_link import RemoteLimits, RemoteLink

from tests.runtime.streams import Silent


def _update(session: str, update: dict[str, Any]) -> bytes:
    message = {"jsonrpc": "2.0", "method": "session/update"}
    message["params"] = {"sessionId": session, "update": update}  # type: ignore[assignment]
    return json.dumps(message).encode()


def _chunk(session: str, text: str) -> bytes:
    return _update(session, {"sessionUpdate": "agent_message_chunk", "content": {"text": text}})


def _announce(parent: str, child: str) -> bytes:
    return _update(parent, {"sessionUpdate": "subagent_update", "sessionId": child})


def _drain(outbox: Outbox) -> list[str]:
    frames: list[str] = []
    while len(outbox):
        frame = outbox._frames.popleft()
        update = json.loads(frame)["params"]["update"]  # a chunk's text, else whom it announces
        frames.append(update["content"]["text"] if "content" in update else update["sessionId"])
    return frames


def _routed(frames: list[bytes], streams: list[str]) -> dict[str, list[str]]:
    async def scenario() -> dict[str, list[str]]:
        link = RemoteLink(lambda _: Silent(), RemoteLimits())
        try:
            for session in streams:
                link.session_stream(session)
            for frame in frames:
                link._route(frame)
            out = {"main": _drain(link.main)}
            out.update({session: _drain(link.sessions[session]) for session in streams})
            return out
        finally:
            await link.close()

    return asyncio.run(scenario())


def test_a_childs_messages_follow_its_announcement_on_the_parents_stream() -> None:
    frames = [_announce("p", "c"), _chunk("c", "from the child"), _announce("c", "g")]
    frames.append(_chunk("g", "from the grandchild"))
    routed = _routed(frames, ["p"])
    assert routed == {"main": [], "p": ["c", "from the child", "g", "from the grandchild"]}


def test_a_child_with_a_stream_of_its_own_uses_it() -> None:
    routed = _routed([_announce("p", "c"), _chunk("c", "mine")], ["p", "c"])
    assert routed == {"main": [], "p": ["c"], "c": ["mine"]}


def test_without_session_streams_everything_stays_on_the_connections_stream() -> None:
    routed = _routed([_announce("p", "c"), _chunk("c", "x"), _chunk("q", "y")], [])
    assert routed == {"main": ["c", "x", "y"]}


def test_a_session_announcing_itself_or_a_cycle_routes_without_looping() -> None:
    frames = [_announce("p", "p"), _announce("p", "c"), _announce("c", "p"), _chunk("c", "z")]
    routed = _routed(frames, ["p"])
    assert routed["p"][-1] == "z"


def test_an_unannounced_session_without_a_stream_goes_to_the_connections_stream() -> None:
    routed = _routed([_chunk("other", "x")], ["p"])
    assert routed == {"main": ["x"], "p": []}
