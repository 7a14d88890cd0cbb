"""The generated `Agent`'s session hooks get the typed `Session` and run at their points."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "generated"))

import acp_bindings as acp  # noqa: E402
from acp_bindings._runtime.rpc.connection import Connection  # noqa: E402

from .streams import RawPeer, connection_pair, run, stream_pair  # noqa: E402


class HookedAgent(acp.Agent):
    def __init__(self) -> None:
        self.calls: list[tuple[str, str, type]] = []

    async def on_prompt(self, session: acp.Session, prompt: acp.Prompt) -> str | None:
        return None

    async def on_new_session(self, session: acp.Session) -> Mapping[str, Any] | None:
        self.calls.append(("new", session.session_id, type(session)))
        await session.set_title("named by the hook")
        return None

    async def on_close_session(self, session: acp.Session) -> None:
        self.calls.append(("close", session.session_id, type(session)))

    async def on_resume_session(self, session: acp.Session) -> Mapping[str, Any] | None:
        self.calls.append(("resume", session.session_id, type(session)))
        return None

    async def load_session(self, session: acp.Session) -> bool:
        self.calls.append(("load", session.session_id, type(session)))
        return session.session_id == "stored-1"


def test_session_hooks_receive_the_typed_session_in_order() -> None:
    agent = HookedAgent()

    async def main() -> list[str]:
        client = acp.Client()
        _, _ = await connection_pair(agent.dispatcher, client.dispatcher)
        await client.lifecycle.initialize()
        session = await client.lifecycle.new_session(cwd="/tmp")
        await session.close()
        await client.lifecycle.resume_session(session.session_id, "/tmp")
        await client.lifecycle.resume_session("stored-1", "/tmp")
        listed = await client.lifecycle.list_sessions()
        return [info["title"] for info in listed["sessions"] if "title" in info]

    titles = run(main())
    kinds = [kind for kind, _, _ in agent.calls]
    assert kinds == ["new", "close", "resume", "load", "resume"]
    assert {cls for _, _, cls in agent.calls} == {acp.Session}
    assert agent.calls[3][1] == "stored-1"
    assert "named by the hook" in titles


async def served(agent: acp.Agent) -> tuple[Connection, RawPeer]:
    """`agent` on the generated package's own runtime, initialized, with a raw peer."""
    (reader, writer), (peer_reader, peer_writer) = await stream_pair()
    connection = Connection(reader, writer)
    connection.dispatcher = agent.dispatcher(connection)
    connection.start()
    peer = RawPeer(peer_reader, peer_writer)
    hello = {"protocolVersion": 2, "info": {"name": "c", "version": "1"}}
    await peer.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
    await peer.recv()
    return connection, peer


def test_session_methods_without_params_are_read_as_an_empty_object() -> None:
    """JSON-RPC lets a request omit `params`: each method then answers as for `{}` (a list,
    or -32602 naming the field the schema requires), never "params must be an object"."""

    async def main() -> list[Any]:
        connection, peer = await served(HookedAgent())
        methods = ["session/list", "session/new", "session/resume", "session/close"]
        await peer.send([{"jsonrpc": "2.0", "id": i, "method": m} for i, m in enumerate(methods)])
        answers: list[Any] = await peer.recv()
        await connection.close()
        return answers

    listed, new, resume, close = run(main())
    assert listed["result"] == {"sessions": []}
    for answer, field in ((new, "cwd"), (resume, "sessionId"), (close, "sessionId")):
        assert answer["error"]["code"] == -32602
        assert [field] in [problem["loc"] for problem in answer["error"]["data"]], answer


def test_the_agent_class_sets_the_history_limit_of_its_sessions() -> None:
    class Bounded(HookedAgent):
        history_limit = 1234

    async def main() -> list[int | None]:
        client = acp.Client()
        bounded, default = Bounded(), HookedAgent()
        await connection_pair(bounded.dispatcher, client.dispatcher)
        await client.lifecycle.initialize()
        await client.lifecycle.new_session(cwd="/tmp")
        await connection_pair(default.dispatcher, acp.Client().dispatcher)
        return [bounded.lifecycle.registry.history_limit, default.lifecycle.registry.history_limit]

    assert run(main()) == [1234, 16 << 20]


def test_a_prompt_holding_a_number_beyond_a_double_is_refused_with_its_location() -> None:
    """`1e400` is valid JSON but decodes to infinity, which no answer or echo can carry."""

    async def main() -> list[Any]:
        connection, peer = await served(HookedAgent())
        await peer.send(
            {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/"}}
        )
        reply = await peer.recv()
        while "id" not in reply:  # the hook names the session first
            reply = await peer.recv()
        session_id = reply["result"]["sessionId"]
        start = '{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":'
        head = start + f'{{"sessionId":"{session_id}"'
        block = '{"type":"text","text":"hi","_meta":{"x":[1,-1e999]}}'
        await peer.send_bytes(f'{head},"prompt":[{block}]}}}}\n'.encode())
        text = '{"type":"text","text":"hi"}'  # a prompt holds one block at least (2.4.0)
        await peer.send_bytes(f'{head},"prompt":[{text}],"_meta":{{"y":1e400}}}}}}\n'.encode())
        answers = [await peer.recv(), await peer.recv()]
        await connection.close()
        return answers

    content, meta = run(main())
    assert content["error"]["code"] == meta["error"]["code"] == -32602
    assert content["error"]["data"][0]["loc"] == ["prompt", 0, "_meta", "x", 1]
    assert meta["error"]["data"][0]["loc"] == ["_meta", "y"]
