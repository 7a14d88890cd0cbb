"""What the remote tests run: the example agent served in this process on a free port, and a
client of ours that allows the first permission request of a turn."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from aiohttp import web

REPO = Path(__file__).resolve().parents[2]
# The example agent imports the committed bindings as `acp_bindings`; the server must be of the
# same copy (its RpcError is the one the agent raises).
sys.path.insert(0, str(REPO / "generated"))

from acp_bindings import Client as Client  # noqa: E402
from acp_bindings import ClientSession as ClientSession  # noqa: E402
from acp_bindings import (  # noqa: E402
    PermissionRequest,
    ProtocolUsageError,
    RpcError,
    message_text,
    models,
)
from acp_bindings._runtime.guard.web_guard import WebGuard  # noqa: E402
from acp_bindings._runtime.serving.http_server import RemoteServer, running  # noqa: E402
from acp_bindings._runtime.serving.remote_link import RemoteLimits  # noqa: E402

DEMO_PATH = REPO / "examples" / "demo_agent.py"
HANG_GUARD = 120.0  # only turns a hang into a failure; never a statement about speed


def demo_agent_class() -> Any:
    spec = importlib.util.spec_from_file_location("remote_demo_agent", DEMO_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("remote_demo_agent", module)
    spec.loader.exec_module(module)
    return module.DemoAgent


__all__ = [  # for the tests
    "Client",
    "ClientSession",
    "ProtocolUsageError",
    "RemoteLimits",
    "RpcError",
    "message_text",
    "models",
]


class AllowingClient(Client):
    """Allows every permission request (the demo agent asks once per turn)."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def on_permission(self, session: ClientSession[Any], request: PermissionRequest) -> Any:
        self.asked.append(session.session_id)
        return {"outcome": "selected", "optionId": "allow"}


class Served:
    """A RemoteServer listening on 127.0.0.1 (its port, its URL, its server object)."""

    def __init__(self, server: RemoteServer, port: int, agent: Any = None) -> None:
        self.server = server
        self.agent = agent  # the agent object served (its `served_sessions`)
        self.port = port
        self.url = f"http://127.0.0.1:{port}/"
        self.ws_url = f"ws://127.0.0.1:{port}/"


@contextlib.asynccontextmanager
async def served(
    *,
    token: str | None = None,
    limits: RemoteLimits | None = None,
    pause: float = 0.0,
    agent: Any = None,
) -> AsyncIterator[Served]:
    """The example agent (or `agent`) served on 127.0.0.1, a free port."""
    agent = agent or demo_agent_class()(pause=pause)
    store = getattr(agent, "served_sessions", None)  # (None: a runtime from before it)
    if store is not None:
        store.limits = (limits or RemoteLimits()).detached  # as serve_http sets it
    server = RemoteServer(agent.connection_dispatcher, guard=None, limits=limits)
    runner = await running(server)  # as serve_http sets it up
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    server.guard = WebGuard.for_address("127.0.0.1", port, token=token)
    try:
        yield Served(server, port, agent)
    finally:
        await runner.cleanup()


@contextlib.asynccontextmanager
async def listening(app: web.Application) -> AsyncIterator[int]:
    """`app` served on 127.0.0.1 at a free port (a stand-in server of a test); the port."""
    runner = web.AppRunner(app, handler_cancellation=True)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield runner.addresses[0][1]
    finally:
        await runner.cleanup()


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, HANG_GUARD))


async def demo_turn(url: str, headers: dict[str, str] | None = None) -> None:
    """Our client reaches the example agent at `url` and runs one allowed turn."""
    client = AllowingClient()
    remote = await client.connect(url, headers=headers or {})
    try:
        await client.lifecycle.initialize()
        session = await client.lifecycle.new_session(cwd=str(REPO))
        stop = await session.run_turn([{"type": "text", "text": "over the network"}])
        assert stop == "end_turn"
        assert client.asked == [session.session_id]
        roles = [message["role"] for message in session.snapshot()["messages"]]
        assert roles == ["user", "thought", "agent"]
    finally:
        await remote.close()
