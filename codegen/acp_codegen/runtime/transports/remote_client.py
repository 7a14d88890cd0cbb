"""Reach an agent by URL: `connect_remote(url)` gives a started `Connection`, as `spawn_agent`
does for a subprocess, so the client's session API and state are the same either way.

`http://` and `https://` URLs speak Streamable HTTP (http_client.py), `ws://` and `wss://`
WebSocket (ws_client.py), both on the wire of the TS SDK 2.4.0. `headers` go with every
request; the bearer token comes from `ACP_TOKEN` (or `token=`) unless `headers` has an
`Authorization` of its own; cookies a proxy sets for session affinity are kept for the
connection's life and sent back. aiohttp is imported here only when a URL
is reached, so a generated package without it still imports.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..client.client_side import ClientSide
from ..rpc.connection import Connection
from ..rpc.dispatch import Dispatcher
from ..rpc.trace import Tracer, TraceTarget, tracer_for
from ..wire.message_frames import FrameQueue, FrameSink
from .remote_wire import (
    DEFAULT_HEARTBEAT_SECONDS,
    DEFAULT_MAX_MESSAGE_BYTES,
    DEFAULT_STREAM_IDLE_SECONDS,
    shown_url,
    with_token,
)
from .send_queue import Outgoing

if TYPE_CHECKING:
    import aiohttp

DispatcherFactory = Callable[[Connection], Dispatcher]
NEEDS_AIOHTTP = "reaching an agent by URL needs aiohttp (pip install aiohttp)"


class Transport(Protocol):
    """What `RemoteAgent` needs of the HTTP or WebSocket transport under it."""

    outgoing: Outgoing
    connection_id: str | None

    async def close(self) -> None: ...


class RemoteAgent:
    """An agent reached by URL and the connection to it (what `AgentProcess` is for a
    subprocess). `close()` ends the connection and tells the server (HTTP DELETE, or the
    WebSocket's close)."""

    def __init__(
        self,
        connection: Connection,
        queue: FrameQueue,
        session: aiohttp.ClientSession,
        transport: Transport,
        again: Callable[[Mapping[str, str]], Awaitable[RemoteAgent]],
    ) -> None:
        self.connection = connection
        self._queue = queue
        self._http = session
        self._transport = transport
        self._again = again
        self._cookies: dict[str, str] | None = None  # what the jar held when it was closed

    @property
    def connection_id(self) -> str | None:
        """The server's `Acp-Connection-Id` for this connection (None before initialize)."""
        return self._transport.connection_id

    @property
    def cookies(self) -> dict[str, str]:
        """The cookies the server (or a proxy in front of it) set, sent back with every
        request of this connection: e.g. the backend a load balancer pinned it to."""
        if self._cookies is not None:
            return dict(self._cookies)
        return {cookie.key: cookie.value for cookie in self._http.cookie_jar}

    async def reconnect(self) -> RemoteAgent:
        """A new connection to the same URL, with the same dispatcher factory and options and
        the cookies this one was given (a proxy's affinity brings it back to the same
        backend); this one is closed first. Nothing is sent: `initialize` comes next."""
        await self.close()
        return await self._again(self.cookies)

    async def close(self) -> None:
        if self._cookies is None:
            self._cookies = self.cookies
        self._queue.end()
        await self.connection.close()
        try:
            await self._transport.close()
        finally:
            await self._http.close()

    async def __aenter__(self) -> RemoteAgent:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


async def connect_remote(
    url: str,
    dispatcher_factory: DispatcherFactory | None = None,
    *,
    headers: Mapping[str, str] | None = None,
    token: str | None = None,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    trace: TraceTarget | Tracer | None = None,
    cookies: Mapping[str, str] | None = None,
    heartbeat_seconds: float = DEFAULT_HEARTBEAT_SECONDS,
    stream_idle_seconds: float | None = DEFAULT_STREAM_IDLE_SECONDS,
) -> RemoteAgent:
    """A started connection to the agent at `url` (nothing is sent until the first request,
    which must be `initialize`). Every request carries `headers` and `Authorization: Bearer
    TOKEN`, TOKEN being `token` or else the environment's `ACP_TOKEN` (as the server reads
    it; a token on a command line is readable by every local user); an `Authorization` in
    `headers` wins over both. `cookies` (e.g. an earlier connection's `RemoteAgent.cookies`)
    are sent from the first request on, so a proxy's affinity cookie brings a reconnect back
    to the backend that holds the session. Over WebSocket a ping goes out every
    `heartbeat_seconds`; a server whose pong has not come within half of it (gone without
    closing: a half-open socket) ends the connection. Over HTTP an event stream silent for
    `stream_idle_seconds` (no message, no keep-alive comment; None: no limit) is taken for
    lost, as if the server had closed it."""
    try:
        import aiohttp
    except ImportError:
        raise ImportError(NEEDS_AIOHTTP) from None

    if not heartbeat_seconds > 0:
        raise ValueError("heartbeat_seconds must be positive")
    if stream_idle_seconds is not None and not stream_idle_seconds > 0:
        raise ValueError("stream_idle_seconds must be positive, or None for no limit")
    scheme = url.split(":", 1)[0].lower()
    if scheme not in ("http", "https", "ws", "wss"):
        raise ValueError(
            f"{shown_url(url)}: an agent URL starts with http://, https://, ws:// or wss://"
        )
    headers = with_token(headers, token)  # once: a reconnect sends the same
    queue = FrameQueue(max_frame_bytes=max_message_bytes)
    # unsafe=True: keep cookies of hosts given by IP address too (a proxy at 10.0.0.5).
    session = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
    if cookies:  # scoped to the agent's host, never sent elsewhere
        from yarl import URL

        session.cookie_jar.update_cookies(cookies, URL(url))
    transport: Transport
    try:
        if scheme in ("ws", "wss"):
            from .ws_client import WebSocketTransport

            transport = await WebSocketTransport.open(
                session, url, headers, queue, max_message_bytes, heartbeat_seconds
            )
        else:
            from .http_client import HttpTransport

            transport = HttpTransport(
                session, url, headers, queue, max_message_bytes, stream_idle_seconds
            )
    except BaseException:
        await session.close()
        raise
    sink = FrameSink(transport.outgoing.deliver, transport.outgoing.room)
    connection = Connection(queue, sink, trace=tracer_for(trace))
    if dispatcher_factory is not None:
        connection.dispatcher = dispatcher_factory(connection)
    connection.start()

    def again(kept: Mapping[str, str]) -> Awaitable[RemoteAgent]:
        return connect_remote(
            url,
            dispatcher_factory,
            headers=headers,
            max_message_bytes=max_message_bytes,
            trace=trace,
            cookies=kept,
            heartbeat_seconds=heartbeat_seconds,
            stream_idle_seconds=stream_idle_seconds,
        )

    return RemoteAgent(connection, queue, session, transport, again)


async def resume_sessions(lifecycle: ClientSide[Any], sessions: Sequence[tuple[str, str]]) -> None:
    """On a new connection: `initialize`, then resume each of `sessions` (id, cwd) with its
    history replayed from the start (a v1 agent is sent `session/load`), so each session's
    state is rebuilt in `lifecycle` and goes on from where the agent has it."""
    await lifecycle.initialize()
    for session_id, cwd in sessions:
        await lifecycle.resume_session(session_id, cwd, replayFrom={"type": "start"})
