"""What the agent-side wire tests share: an AgentSide on a raw peer, a client that drives it
with request ids of its own, and the state updates the lifecycle reports."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from acp_codegen.runtime.agent.agent_session import AgentSession, Prompt
from acp_codegen.runtime.agent.agent_side import AgentSide
from acp_codegen.runtime.rpc.connection import Connection

from .streams import RawPeer, connected

INFO = {"name": "test-agent", "version": "0.0.1"}
TEXT = [{"type": "text", "text": "hi"}]
OPTIONS = [{"optionId": "yes", "name": "Yes", "kind": "allow_once"}]
RUNNING = {"sessionUpdate": "state_update", "state": "running"}
REQUIRES_ACTION = {"sessionUpdate": "state_update", "state": "requires_action"}
Handler = Callable[[AgentSession, Prompt], Awaitable[str | None]]


def idle(stop_reason: str) -> dict[str, Any]:
    return {"sessionUpdate": "state_update", "state": "idle", "stopReason": stop_reason}


def receipt(result: Any) -> str:
    """A `session/prompt` answer is the insertion receipt: the inserted message's id alone."""
    assert isinstance(result, dict) and set(result) == {"messageId"}, result
    assert isinstance(result["messageId"], str) and result["messageId"], result
    message_id: str = result["messageId"]
    return message_id


def request(request_id: int, method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


async def end_turn(session: AgentSession, prompt: Prompt) -> str | None:
    return None


async def agent(on_prompt: Handler, **options: Any) -> tuple[Connection, RawPeer, AgentSide]:
    sides: list[AgentSide] = []

    def factory(connection: Connection) -> AgentSide:
        sides.append(AgentSide(connection, info=INFO, on_prompt=on_prompt, **options))
        return sides[0]

    connection, peer = await connected(factory)
    return connection, peer, sides[0]


class Client:
    """Drives a raw peer with request ids of its own."""

    def __init__(self, peer: RawPeer) -> None:
        self.peer = peer
        self.next_id = 100

    async def call(self, method: str, params: Any) -> Any:
        """Send a request; return its reply (the next line must be that reply)."""
        self.next_id += 1
        await self.peer.send(request(self.next_id, method, params))
        reply = await self.peer.recv()
        assert reply.get("id") == self.next_id, reply
        return reply

    async def setup(self, version: int = 2) -> str:
        reply = await self.call(
            "initialize", {"protocolVersion": version, "info": {"name": "c", "version": "1"}}
        )
        assert "result" in reply
        return await self.new_session("/tmp")

    async def new_session(self, cwd: str) -> str:
        reply = await self.call("session/new", {"cwd": cwd})
        session_id: str = reply["result"]["sessionId"]
        return session_id

    async def prompt(self, session_id: str, content: Any = None) -> Any:
        """`session/prompt` with `content` (the one-line TEXT by default); returns the reply."""
        params = {"sessionId": session_id, "prompt": TEXT if content is None else content}
        return await self.call("session/prompt", params)

    async def updates(self, count: int) -> list[dict[str, Any]]:
        messages = [await self.peer.recv() for _ in range(count)]
        assert all(m["method"] == "session/update" for m in messages), messages
        return [m["params"]["update"] for m in messages]

    async def notify(self, method: str, params: Any) -> None:
        await self.peer.send({"jsonrpc": "2.0", "method": method, "params": params})


async def agent_with_session(on_prompt: Handler, **options: Any) -> tuple[Connection, Client, str]:
    """An initialized agent with one session open in /tmp (its raw peer is `client.peer`)."""
    connection, peer, _ = await agent(on_prompt, **options)
    client = Client(peer)
    return connection, client, await client.setup()
