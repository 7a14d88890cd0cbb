"""Serve an agent over Streamable HTTP and WebSocket (aiohttp), on the wire of the official
TypeScript SDK 2.4.0's `experimental/server`; docs/remote.md describes it and its limits.

One URL takes everything:

- `POST` an `initialize` request without `Acp-Connection-Id`: a new connection; the response
  body is the agent's answer and the header names the connection.
- `POST` any other message with `Acp-Connection-Id` (and `Acp-Session-Id` for a session's
  messages): 202, the answer comes on an event stream.
- `GET` with `Accept: text/event-stream`: the connection's event stream, or a session's with
  `Acp-Session-Id`; one reader each (a second one gets 409).
- `GET` with `Upgrade: websocket`: a WebSocket connection (ws_server.py).
- `DELETE` with `Acp-Connection-Id`: close the connection.

Every request passes the `WebGuard` first (Host, Origin, token). On this side only this module,
ws_server.py and event_stream.py import aiohttp (the client's transports: when a URL is reached),
so a generated package works without it on stdio.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable, Mapping
from typing import Final, Protocol

from aiohttp import web

from ..guard.web_guard import TOKEN_QUERY_PARAMETER, Refusal, bind_problem
from ..rpc.messages import error_message
from ..rpc.task_owner import TaskOwner
from ..rpc.trace import Tracer, TraceTarget, tracer_for
from ..transports.remote_wire import (
    CONNECTION_HEADER,
    EVENT_STREAM_TYPE,
    JSON_TYPE,
    SESSION_HEADER,
    SESSION_SCOPED_METHODS,
    Envelope,
    peek,
)
from ..wire.errors import ConnectionClosed, RpcError
from ..wire.line_framing import decode_line, encode_json
from .event_stream import stream_events
from .hand_over import HandOver
from .http_options import Access
from .remote_link import DispatcherFactory, LimitExceeded, RemoteLimits, RemoteLink
from .ws_server import busy, serve_websocket

logger = logging.getLogger(__name__)
_REAP_EVERY: Final = 5.0


class Gate(Protocol):
    """What checks a request before it is served (`WebGuard`, `Guards`)."""

    def refusal(
        self, headers: Mapping[str, str], query_token: str | None = None
    ) -> Refusal | None: ...


def _text(status: int, reason: str) -> web.Response:
    return web.Response(status=status, text=reason, content_type="text/plain")


class RemoteServer:
    """The connections of one listening agent. `guard` (a `WebGuard`, or `Guards` for several
    addresses) checks each request; None means no Host/Origin/token check (tests).

    The server's `tasks` hold its reaper and what its connections run besides their own
    connection (a WebSocket's sending pump, a close begun from a callback); the app's
    shutdown stops the reaper, closes every connection, then waits for those tasks to end."""

    def __init__(
        self,
        dispatcher_factory: DispatcherFactory,
        *,
        guard: Gate | None,
        limits: RemoteLimits | None = None,
        trace: TraceTarget | Tracer | None = None,
    ) -> None:
        self.dispatcher_factory = dispatcher_factory
        self.guard = guard
        self.limits = limits or RemoteLimits()
        self.tracer = tracer_for(trace)  # every connection's traffic (default: ACP_TRACE)
        self.open_sockets: Callable[[], int] | None = None  # set by `running`
        self.links: dict[str, RemoteLink] = {}
        self.tasks = TaskOwner("a remote server")
        self.hand_over = HandOver()  # which busy connection goes on first (hand_over.py)
        self._reaper: asyncio.Task[None] | None = None

    def app(self) -> web.Application:
        app = web.Application(client_max_size=self.limits.max_message_bytes)
        app.router.add_route("*", "/", self.handle)
        app.on_startup.append(self._start)
        app.on_shutdown.append(self._stop)
        return app

    # -- lifecycle ------------------------------------------------------------------------------

    async def _start(self, _: web.Application) -> None:
        self._reaper = self.tasks.spawn(self._reap(), name="acp idle connection reaper")

    async def _stop(self, _: web.Application) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
        await asyncio.gather(*(link.close() for link in list(self.links.values())))
        await self.tasks.wait()  # pumps deliver what the closed connections queued, then end
        await self.tasks.close()
        if self.tracer is not None:
            self.tracer.close()

    async def _reap(self) -> None:
        """Close connections idle past the limit (their client vanished without DELETE)."""
        every = min(_REAP_EVERY, self.limits.idle_seconds / 2)
        while True:
            await asyncio.sleep(every)
            for link in [link for link in self.links.values() if link.idle]:
                link.close_soon("idle")

    def new_link(self, *, websocket: bool) -> RemoteLink:
        """A connection for a client (LimitExceeded when the server has too many)."""
        if len(self.links) >= self.limits.max_connections:
            raise LimitExceeded("too many connections")
        link = RemoteLink(
            self.dispatcher_factory,
            self.limits,
            websocket=websocket,
            on_closed=self._forget,
            trace=self.tracer,
            tasks=self.tasks,
            hand_over=self.hand_over,
        )
        self.links[link.id] = link
        return link

    def _forget(self, link: RemoteLink) -> None:
        self.links.pop(link.id, None)

    # -- requests -------------------------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if self.open_sockets is not None and self.open_sockets() > self.limits.max_sockets:
            return busy("too many open connections")
        if self.guard is not None:
            refusal = self.guard.refusal(request.headers, request.query.get(TOKEN_QUERY_PARAMETER))
            if refusal is not None:
                return _text(refusal.status, refusal.reason)
        if request.method == "POST":
            return await self._post(request)
        if request.method == "GET":
            if request.headers.get("Upgrade", "").lower() == "websocket":
                return await serve_websocket(
                    request, lambda: self.new_link(websocket=True), self.limits
                )
            return await self._get(request)
        if request.method == "DELETE":
            return self._delete(request)
        return _text(405, "Method Not Allowed")

    async def _post(self, request: web.Request) -> web.StreamResponse:
        if request.content_type != JSON_TYPE:
            return _text(415, "Unsupported Media Type")
        try:
            body = await _read_body(request, self.limits)
        except web.HTTPRequestEntityTooLarge:
            return _text(413, f"message over {self.limits.max_message_bytes} bytes")
        except TimeoutError:
            return _text(408, f"no byte of the request body came for {self.limits.stall_seconds} s")
        envelope = peek(body)
        if envelope.value is None:
            return _refuse_body(body)
        connection_id = request.headers.get(CONNECTION_HEADER)
        if envelope.is_initialize:
            if connection_id is not None:
                return _text(400, "Initialize not allowed on existing connection")
            return await self._initialize(body, envelope)
        link = self._link_of(request)
        if isinstance(link, web.Response):
            return link
        header = request.headers.get(SESSION_HEADER)
        problem = _session_problem(link, envelope, header)
        if problem is not None:
            return _text(400, problem)
        try:
            link.accept(body, envelope, header or envelope.session_id)
        except LimitExceeded as problem:
            return _text(400, str(problem))
        return web.Response(status=202)

    async def _initialize(self, body: bytes, envelope: Envelope) -> web.StreamResponse:
        if envelope.id is None:
            return _text(400, "Initialize request must include an ID")
        try:
            link = self.new_link(websocket=False)
        except LimitExceeded as problem:
            return busy(str(problem))
        try:
            answer = await link.initialize(body, envelope)
        except ConnectionClosed as problem:  # the agent ended the connection during initialize
            await link.close()
            failed = RpcError(-32603, "Initialize failed", str(problem))
            return _json(500, encode_json(error_message(envelope.id, failed)))
        return _json(200, answer, {CONNECTION_HEADER: link.id})

    async def _get(self, request: web.Request) -> web.StreamResponse:
        if EVENT_STREAM_TYPE not in request.headers.get("Accept", "").lower():
            return _text(406, "Not Acceptable")
        link = self._link_of(request)
        if isinstance(link, web.Response):
            return link
        session = request.headers.get(SESSION_HEADER)
        try:
            stream = link.main if session is None else link.session_stream(session)
        except LimitExceeded as problem:
            return _text(400, str(problem))
        lease = stream.acquire(lambda: _connected(request))
        if lease is None:
            return _text(409, "Outbound stream already has an active receiver")
        try:
            return await stream_events(request, stream, lease, self.limits)
        finally:
            stream.release(lease)
            link.touch()

    def _link_of(self, request: web.Request) -> RemoteLink | web.Response:
        """The live connection the request names, or the refusal to answer with."""
        connection_id = request.headers.get(CONNECTION_HEADER)
        if connection_id is None:
            return _text(400, "Missing Acp-Connection-Id")
        link = self.links.get(connection_id)
        if link is None or link.closed.is_set():
            return _text(404, "Unknown Acp-Connection-Id")
        return link

    def _delete(self, request: web.Request) -> web.StreamResponse:
        connection_id = request.headers.get(CONNECTION_HEADER)
        if connection_id is None:
            return _text(400, "Missing Acp-Connection-Id")
        link = self.links.pop(connection_id, None)
        if link is None:
            return _text(404, "Unknown Acp-Connection-Id")
        link.close_soon("the client closed it")
        return web.Response(status=202)


def _session_problem(link: RemoteLink, envelope: Envelope, header: str | None) -> str | None:
    """Why a POST's `Acp-Session-Id` does not fit its message (as the TS SDK checks it)."""
    if envelope.is_response:
        # The request's id already says which session it came on, so an answer without the
        # header is taken (the Python SDK's client sends none; the TS server refuses it).
        asked, session = link.asked_session(envelope)
        if asked and None not in (header, session) and header != session:
            return "Mismatched Acp-Session-Id"
        return None
    needs = envelope.method in SESSION_SCOPED_METHODS or envelope.session_id is not None
    if needs and header is None:
        return "Missing Acp-Session-Id"
    if header is not None and envelope.session_id not in (None, header):
        return "Mismatched Acp-Session-Id"
    return None


async def _read_body(request: web.Request, limits: RemoteLimits) -> bytes:
    """The request's body: TimeoutError once no byte of it has come for `stall_seconds` (a
    body that keeps coming, however slowly, is read whole), HTTPRequestEntityTooLarge past
    `max_message_bytes`."""
    limit = limits.max_message_bytes
    announced = request.content_length or 0
    if announced > limit:
        raise web.HTTPRequestEntityTooLarge(max_size=limit, actual_size=announced)
    body = bytearray()
    while True:
        async with asyncio.timeout(limits.stall_seconds):
            piece = await request.content.readany()
        if not piece:
            return bytes(body)
        body += piece
        if len(body) > limit:
            raise web.HTTPRequestEntityTooLarge(max_size=limit, actual_size=len(body))


def _connected(request: web.Request) -> bool:
    transport = request.transport
    return transport is not None and not transport.is_closing()


def _json(status: int, body: bytes, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(status=status, body=body, content_type=JSON_TYPE, headers=headers)


def _refuse_body(body: bytes) -> web.Response:
    """A POST whose body is no JSON object: answered here, never passed on (as the TS SDK)."""
    try:
        value = decode_line(body)
    except ValueError:
        return _json(400, encode_json(error_message(None, RpcError.parse_error("Invalid JSON"))))
    if isinstance(value, list):
        batch = RpcError(-32600, "JSON-RPC batches are not supported")
        return _json(400, encode_json(error_message(None, batch)))
    return _text(400, "Invalid JSON-RPC message")


def web_app(
    dispatcher_factory: DispatcherFactory,
    *,
    host: str,
    port: int,
    access: Access,
    limits: RemoteLimits | None = None,
    trace: TraceTarget | None = None,
) -> web.Application:
    """The aiohttp application serving `dispatcher_factory` (one dispatcher per connection),
    for running under another server (`python -m aiohttp.web`, gunicorn's aiohttp worker).
    `host` and `port` are what clients put in their URL (the Host header is checked against
    them and `access.hosts`); without a token, `access.insecure` must say so: the app cannot
    see where the server binds, so it never runs unauthenticated by default (ValueError)."""
    if access.token is None and not access.insecure:
        raise ValueError("web_app needs a token, or insecure=True to run without one")
    guard = access.guard(host, port)
    return RemoteServer(dispatcher_factory, guard=guard, limits=limits, trace=trace).app()


async def serve_http(
    dispatcher_factory: DispatcherFactory,
    host: str,
    port: int,
    *,
    access: Access,
    limits: RemoteLimits | None = None,
    ready: Callable[[int], None] | None = None,
    trace: TraceTarget | None = None,
) -> None:
    """Listen on `host:port` until cancelled. Refuses a non-loopback address without a token
    unless `access.insecure` (ValueError). `ready` gets the bound port (useful with port 0).
    `trace` names a file recording every connection's traffic (default: `ACP_TRACE`)."""
    authenticated = access.token is not None
    problem = bind_problem(host, authenticated=authenticated, insecure=access.insecure)
    if problem is not None:
        raise ValueError(problem)
    server = RemoteServer(dispatcher_factory, guard=None, limits=limits, trace=trace)
    runner = await running(server)
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
        bound = _bound_port(site, port)
        server.guard = access.guard(host, bound)
        if ready is not None:
            ready(bound)
        else:
            print(f"serving ACP on http://{_shown(host)}:{bound}/", file=sys.stderr, flush=True)
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


async def running(server: RemoteServer) -> web.AppRunner:
    """An aiohttp runner for `server`, set up (add a site to listen). A socket whose request
    head has not all come `header_seconds` after it connected (or after its last answer) is
    closed (aiohttp's keep-alive timeout counts from the connection's start too), and open
    sockets are counted against `max_sockets`."""
    runner = web.AppRunner(
        server.app(),
        handler_cancellation=True,
        access_log=None,
        keepalive_timeout=server.limits.header_seconds,
    )
    await runner.setup()
    handlers = runner.server
    assert handlers is not None
    server.open_sockets = lambda: len(handlers.connections)
    return runner


def _bound_port(site: web.TCPSite, asked: int) -> int:
    server = site._server  # aiohttp keeps the asyncio server here; its sockets know the port
    sockets = getattr(server, "sockets", None) or ()
    for sock in sockets:
        return int(sock.getsockname()[1])
    return asked


def _shown(host: str) -> str:
    return f"[{host}]" if ":" in host else host
