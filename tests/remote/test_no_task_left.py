"""No task outlives its connection: with a turn in flight (the agent's turn waits on a
permission answer the client's hook has not given; in-process agents run a second turn that
waits on nothing the wire can end), the connection ends, by the client closing it or by
either end vanishing, on every transport: a socket pair carrying stdio's newline-delimited
JSON, an agent subprocess on stdin/stdout, Streamable HTTP (answers on SSE event streams) and
WebSocket. Once every end is closed (each close awaited, never slept on), the event loop holds
nothing but the test's own task.

Both sides run in this process (the agent in a child for `subprocess`), so every task either
side spawned is counted: the connection's reader and handlers, the agent's turns, the
client's permission hook, a transport's sender, readers and event streams, the server's
reaper and pumps."""

from __future__ import annotations

import asyncio
import socket
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import pytest
from aiohttp import web

from .agents import HANG_GUARD, REPO, Client, ClientSession, demo_agent_class

if TYPE_CHECKING:
    from acp_bindings._runtime.rpc.connection import Connection

TRANSPORTS = ["memory", "subprocess", "http", "websocket"]
ENDINGS = ["client closes", "agent goes away", "client goes away"]


class StalledClient(Client):
    """Takes a permission request and never answers it: the agent's turn stays in flight."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()

    async def on_permission(self, session: ClientSession[Any], request: Any) -> Any:
        self.asked.set()
        await asyncio.Event().wait()  # until cancelled: the connection ends first


def waiting_agent() -> Any:
    """The example agent, but a prompt saying "wait" starts a turn that waits until it is
    cancelled (as on a model that never answers): a task nothing on the wire ends."""

    class WaitingAgent(demo_agent_class()):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.waiting = asyncio.Event()

        async def on_prompt(self, session: Any, prompt: Any) -> str | None:
            if prompt.text != "wait":
                result: str | None = await super().on_prompt(session, prompt)
                return result
            self.waiting.set()
            await asyncio.Event().wait()
            return None

    return WaitingAgent()


class Ends:
    """How a test ends one connection: `client_close()`; `agent_gone()` (the agent's end
    vanishes, saying nothing), then wait for the client's connection to see it; or
    `client_gone()` (the client's end vanishes), which waits for the agent's end to see it
    where it ends the connection there. `client` is the client's connection; `agent` the agent
    object when it runs in this process."""

    def __init__(
        self,
        client: Connection,
        client_close: Callable[[], Awaitable[None]],
        agent_gone: Callable[[], Awaitable[None]],
        client_gone: Callable[[], Awaitable[None]],
        agent: Any = None,
    ) -> None:
        self.client_gone = client_gone
        self.client = client
        self.agent = agent
        self.client_close = client_close
        self.agent_gone = agent_gone


@asynccontextmanager
async def memory(client: StalledClient) -> AsyncIterator[Ends]:
    """Both ends over a socket pair, as stdio's newline-delimited JSON."""
    from acp_bindings._runtime.rpc.connection import Connection  # on the path `agents` set

    left, right = socket.socketpair()
    agent_reader, agent_writer = await asyncio.open_connection(sock=left)
    client_reader, client_writer = await asyncio.open_connection(sock=right)
    agent = waiting_agent()
    agent_connection = Connection(agent_reader, agent_writer)
    agent_connection.dispatcher = agent.dispatcher(agent_connection)
    client_connection = Connection(client_reader, client_writer)
    client_connection.dispatcher = client.dispatcher(client_connection)
    agent_connection.start()
    client_connection.start()

    async def agent_gone() -> None:
        agent_writer.transport.abort()  # the agent's end vanishes: no goodbye
        await agent_connection.wait_closed()

    async def client_gone() -> None:
        client_writer.transport.abort()
        await agent_connection.wait_closed()  # the agent saw its client vanish

    try:
        yield Ends(client_connection, client_connection.close, agent_gone, client_gone, agent)
    finally:
        await client_connection.close()
        await agent_connection.close()


@asynccontextmanager
async def subprocess(client: StalledClient) -> AsyncIterator[Ends]:
    """The example agent as a child process on stdin/stdout (only the client's tasks are
    this loop's; the child's end with it)."""
    agent = await client.spawn(
        [sys.executable, str(REPO / "examples" / "demo_agent.py")],
        stderr=asyncio.subprocess.DEVNULL,
    )

    async def agent_gone() -> None:
        agent.process.kill()
        await agent.process.wait()

    async def client_gone() -> None:
        assert agent.process.stdin is not None
        agent.process.stdin.transport.abort()  # the agent reads end of file, and exits
        await agent.process.wait()

    try:
        yield Ends(agent.connection, agent.connection.close, agent_gone, client_gone)
    finally:
        await agent.close()


def remote(scheme: str) -> Callable[[StalledClient], Any]:
    @asynccontextmanager
    async def over(client: StalledClient) -> AsyncIterator[Ends]:
        """The example agent served on 127.0.0.1 as `serve_http` serves it; `agent_gone`
        shuts the server down under the connection."""
        from acp_bindings._runtime.serving.http_server import RemoteServer, running

        agent = waiting_agent()
        server = RemoteServer(agent.connection_dispatcher, guard=None)
        runner = await running(server)
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        url = f"{'http' if scheme == 'http' else 'ws'}://127.0.0.1:{port}/"
        try:
            remote_agent = await client.connect(url)
            try:

                async def gone() -> None:
                    [link] = server.links.values()
                    # Its HTTP client closed under it: every socket dropped, no DELETE sent.
                    await remote_agent._http.close()
                    if scheme == "ws":  # the socket was the connection: the server ends it
                        await link.closed.wait()
                    # (over HTTP the server keeps it for a resume; its shutdown ends it)

                yield Ends(remote_agent.connection, remote_agent.close, runner.cleanup, gone, agent)
            finally:
                await remote_agent.close()
        finally:
            await runner.cleanup()  # again after agent_gone: nothing left to do

    return over


OPEN: dict[str, Callable[[StalledClient], Any]] = {
    "memory": memory,
    "subprocess": subprocess,
    "http": remote("http"),
    "websocket": remote("ws"),
}


def leftovers() -> set[asyncio.Task[Any]]:
    current = asyncio.current_task()
    return {task for task in asyncio.all_tasks() if task is not current}


@pytest.mark.parametrize("ending", ENDINGS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_no_task_is_left_after_a_connection_ends_with_a_turn_in_flight(
    transport: str, ending: str
) -> None:
    async def scenario() -> None:
        async with asyncio.timeout(HANG_GUARD):
            client = StalledClient()
            async with OPEN[transport](client) as ends:
                await client.lifecycle.initialize()
                asking = await client.lifecycle.new_session(cwd=str(REPO))
                await asking.prompt([{"type": "text", "text": "a turn that asks"}])
                await client.asked.wait()  # the turn waits on our hook's answer
                if ends.agent is not None:  # and one waits on something else
                    waiting = await client.lifecycle.new_session(cwd=str(REPO))
                    await waiting.prompt([{"type": "text", "text": "wait"}])
                    await ends.agent.waiting.wait()
                if ending == "client closes":
                    await ends.client_close()
                    assert ends.client.closed
                elif ending == "agent goes away":
                    await ends.agent_gone()
                    await ends.client.wait_closed()  # the client's connection saw it
                else:
                    await ends.client_gone()
        assert leftovers() == set(), sorted(repr(task) for task in leftovers())

    asyncio.run(scenario())
