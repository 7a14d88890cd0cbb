"""The agent's end of one remote connection (one `Acp-Connection-Id`), whatever carries it.

A `RemoteLink` owns a `Connection` like the one stdio serves, fed through a `FrameQueue` and
written through a `FrameSink`, so the lifecycle never learns which transport it runs on. What
the agent writes is routed to an `Outbox`:

- over HTTP, to the connection's stream or to a session's stream: a request or notification
  by the `sessionId` in its params, a response by the session of the request it answers
  (its `Acp-Session-Id`); a session's stream once the client has opened it, the
  connection's stream before (and always, for a client that never opens session streams);
  a child session's (a subagent's) without a stream of its own go to its parent's, so they
  follow the `subagent_update` that announced the child there;
- over WebSocket, everything to the one stream the socket drains.

The initialize response is the exception: it is the body of the POST (or the first frame)
that opened the connection, so it is handed to `initialize`'s caller instead.

Limits (`RemoteLimits`): message size, bytes queued for clients that are behind (the agent's
writes wait, and a client that takes nothing for `stall_seconds` loses the connection),
session streams per connection, how long a connection may sit idle (no stream attached and no
message from the client), how often a WebSocket is pinged to find a half-open socket, and
how long a write to a client may go without a byte going out before its stream is dropped;
an event stream with nothing to send gets a comment every `keep_alive_seconds`, so proxies
keep it open. Per server: open sockets (`max_sockets`) and how long a request head may take
(`header_seconds`). Per agent: how long, and how many, sessions whose connection ended are kept
for a resume (`detached_session_idle_seconds`, `max_detached_sessions`, `max_detached_bytes`:
session_store).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from ..agent.session_store import DetachedLimits
from ..rpc.connection import Connection
from ..rpc.dispatch import Dispatcher
from ..rpc.task_owner import TaskOwner
from ..rpc.trace import Tracer
from ..transports.remote_wire import (
    DEFAULT_MAX_MESSAGE_BYTES,
    SESSION_LOAD,
    Envelope,
    IdKey,
    id_key,
    peek,
    update_session,
)
from ..wire.errors import ConnectionClosed
from ..wire.message_frames import FrameQueue, FrameSink
from ..wire.protocol import SESSION_UPDATE, SUBAGENT_UPDATE
from .hand_over import HandOver, Stream
from .outbox import Backlog, Outbox

logger = logging.getLogger(__name__)
DispatcherFactory = Callable[[Connection], Dispatcher]
_KEPT_ROUTES: Final = 4096  # answered-request routes remembered per connection, at most


@dataclass(frozen=True, slots=True)
class RemoteLimits:
    """What one server accepts; every limit is per connection unless it says otherwise."""

    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES  # one message, either way
    max_buffered_bytes: int = 64 * 1024 * 1024  # queued for the client before the agent waits
    stall_seconds: float = 60.0  # a client that takes nothing for this long is dropped
    max_session_streams: int = 1024  # session event streams one connection may have
    idle_seconds: float = 300.0  # no stream attached and no message: the connection closes
    max_connections: int = 1024  # per server: initialize beyond it is answered 503
    max_id_length: int = 1024  # request and session ids, as the TS SDK checks them
    heartbeat_seconds: float = 30.0  # WebSocket ping interval; no pong in half of it: closed
    write_seconds: float = 30.0  # a write to a client with no byte going out: stream dropped
    keep_alive_seconds: float = 15.0  # an idle SSE stream gets a comment this often
    max_sockets: int = 4096  # per server: open TCP connections past it get 503 + Retry-After
    header_seconds: float = 30.0  # a request head not complete by then: the socket is closed
    # Per agent: sessions whose connection ended, kept for a resume (session_store.py).
    detached_session_idle_seconds: float = 3600.0  # detached longer: dropped
    max_detached_sessions: int = 1000  # more detached: the oldest dropped
    max_detached_bytes: int = 64 * 1024 * 1024  # more history (JSON) held: the oldest dropped

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            if not getattr(self, name) > 0:
                raise ValueError(f"RemoteLimits.{name} must be positive")

    @property
    def detached(self) -> DetachedLimits:
        """The limits on detached sessions, as the agent's `SessionStore` takes them."""
        return DetachedLimits(
            self.detached_session_idle_seconds,
            self.max_detached_sessions,
            self.max_detached_bytes,
        )


class LimitExceeded(Exception):
    """A client asked for more than a limit allows; the message says which."""


class RemoteLink:
    """One remote connection. What it runs besides the connection (a close begun by
    `close_soon`, the WebSocket's pump) are tasks of `tasks`: the server's, or its own."""

    def __init__(
        self,
        dispatcher_factory: DispatcherFactory,
        limits: RemoteLimits,
        *,
        websocket: bool = False,
        on_closed: Callable[[RemoteLink], None] | None = None,
        trace: Tracer | None = None,
        tasks: TaskOwner | None = None,
        hand_over: HandOver | None = None,
    ) -> None:
        self.id = str(uuid.uuid4())
        # The server's order for connections that hand the loop over (hand_over.py).
        self._hand_over = HandOver() if hand_over is None else hand_over
        self._stream = Stream()
        self.tasks = TaskOwner("a remote link") if tasks is None else tasks
        self.limits = limits
        self.websocket = websocket
        self.backlog = Backlog(limits.max_buffered_bytes)
        self.main = Outbox(self.backlog, self._touch)
        self.sessions: dict[str, Outbox] = {}
        self._routes: dict[IdKey, str | None] = {}  # client request -> its session (None: main)
        self._asked: dict[IdKey, str | None] = {}  # agent request -> the session it is for
        self._parents: dict[str, str] = {}  # child session -> the session that announced it
        self._initial: tuple[IdKey, asyncio.Future[bytes]] | None = None
        self.queue = FrameQueue(max_frame_bytes=limits.max_message_bytes)
        self.sink = FrameSink(self._route, self._room)
        traced = None if trace is None else trace.for_connection(self.id)
        self.connection = Connection(self.queue, self.sink, trace=traced)
        self.connection.dispatcher = dispatcher_factory(self.connection)
        self._loop = asyncio.get_running_loop()
        self.last_active = self._loop.time()
        self.closed = asyncio.Event()
        self.on_closed = on_closed
        self._closing = False  # close_soon began closing
        self._task = self.connection.start()
        self._task.add_done_callback(lambda _: self._finish())

    # -- from the client ------------------------------------------------------------------------

    async def initialize(self, frame: bytes, envelope: Envelope) -> bytes:
        """Feed the initialize request; return the agent's response to it."""
        key = id_key(envelope.id)
        assert key is not None
        future: asyncio.Future[bytes] = self._loop.create_future()
        self._initial = (key, future)
        self.queue.feed(frame)
        async with TaskOwner("an initialize") as waiting:  # leaving it ends the wait on close
            closed = waiting.spawn(self.closed.wait())
            await asyncio.wait((future, closed), return_when=asyncio.FIRST_COMPLETED)
        if not future.done() or future.cancelled():
            raise ConnectionClosed("the agent closed the connection during initialize")
        return future.result()

    def accept(self, frame: bytes, envelope: Envelope, session: str | None) -> None:
        """Feed one message the client sent. `session` is where a request's answer goes (its
        `Acp-Session-Id` over HTTP; over WebSocket its params' session)."""
        self.touch()
        for value in (session, envelope.session_id, envelope.id):
            if isinstance(value, str) and len(value) > self.limits.max_id_length:
                raise LimitExceeded(f"id longer than {self.limits.max_id_length} characters")
        key = id_key(envelope.id)
        if envelope.is_request and key is not None:
            self._remember(self._routes, key, None if envelope.method == SESSION_LOAD else session)
        elif envelope.is_response and key is not None:
            self._asked.pop(key, None)
        self.queue.feed(frame)

    def asked_session(self, envelope: Envelope) -> tuple[bool, str | None]:
        """For a response the client sends: whether the agent asked that request (and is
        still waiting), and the session whose stream carried it (None: the connection's)."""
        key = id_key(envelope.id)
        if key is None or key not in self._asked:
            return False, None
        return True, self._asked[key]

    def touch(self) -> None:
        self.last_active = self._loop.time()

    def _touch(self) -> None:
        self.touch()

    @property
    def idle(self) -> bool:
        """No stream is attached and nothing came for `idle_seconds`."""
        attached = self.main.has_receiver or any(s.has_receiver for s in self.sessions.values())
        return not attached and self._loop.time() - self.last_active > self.limits.idle_seconds

    # -- streams --------------------------------------------------------------------------------

    def session_stream(self, session: str) -> Outbox:
        """The stream of `session`, made on first use (LimitExceeded past the limit)."""
        if len(session) > self.limits.max_id_length:
            raise LimitExceeded(f"session id longer than {self.limits.max_id_length} characters")
        stream = self.sessions.get(session)
        if stream is None:
            if len(self.sessions) >= self.limits.max_session_streams:
                raise LimitExceeded(f"more than {self.limits.max_session_streams} session streams")
            stream = self.sessions[session] = Outbox(self.backlog, self._touch)
        return stream

    # -- from the agent -------------------------------------------------------------------------

    def _route(self, frame: bytes) -> None:
        """Queue one message of the agent's for its stream. A fast path for most of them (a
        WebSocket's, a session's update for a session with a stream of its own): its
        reference is `_route_peeked`, which reads every message whole
        (tests/runtime/test_fast_paths_route.py)."""
        if self._initial is None:
            if self.websocket:  # one stream: nothing to tell apart
                self.main.push(frame)
                return
            session = update_session(frame)
            target = self.sessions.get(session) if session is not None else None
            if target is not None:
                target.push(frame)
                return
        self._route_peeked(frame)

    def _route_peeked(self, frame: bytes) -> None:
        envelope = peek(frame)
        key = id_key(envelope.id) if envelope.has_id else None
        if self._initial is not None and envelope.is_response and key == self._initial[0]:
            _, future = self._initial
            self._initial = None
            if not future.done():
                future.set_result(frame)
            return
        if self.websocket:
            self.main.push(frame)
            return
        if envelope.is_response:
            session = self._routes.pop(key, None) if key is not None else None
        else:
            session = envelope.session_id
        # A session's stream exists once the client asked for it (TS SDK clients do, right
        # after session/new); until then, or for a client that only reads the connection's
        # stream (upstream's draft), the session's messages go to the connection's stream.
        target = self.sessions.get(session) if session is not None else None
        if target is None and session in self._parents:
            session = self._stream_of(session)
            target = self.sessions.get(session)
        if target is not None and envelope.method == SESSION_UPDATE:
            self._learn_child(envelope, envelope.session_id)
        if envelope.is_request and key is not None:
            self._remember(self._asked, key, session if target is not None else None)
        (self.main if target is None else target).push(frame)

    def _learn_child(self, envelope: Envelope, session: str | None) -> None:
        """Remember the child a `subagent_update` on `session`'s stream announces."""
        params = envelope.value.get("params") if envelope.value is not None else None
        update = params.get("update") if isinstance(params, dict) else None
        if isinstance(update, dict) and update.get("sessionUpdate") == SUBAGENT_UPDATE:
            child = update.get("sessionId")
            if isinstance(child, str) and session is not None and child != session:
                self._parents[child] = session

    def _stream_of(self, session: str) -> str:
        """The nearest ancestor of a child session that has a stream (else the eldest)."""
        for _ in range(len(self._parents)):  # bounded: a cycle of announcements ends too
            if session in self.sessions or session not in self._parents:
                break
            session = self._parents[session]
        return session

    async def _room(self) -> None:
        """Wait while clients are behind; drop a client that takes nothing for too long.
        Past a little queued output, let the streams' writers run first: an agent that never
        waits on anything else would otherwise queue its whole turn before a byte is sent.
        Then go on when the server's order says (hand_over.py): the busy stream that began
        first goes on first."""
        if not self.backlog.full:
            if self._hand_over.due(self._stream, self.backlog.size):
                await self._hand_over.wait_turn(self._stream)
            return
        try:
            await asyncio.wait_for(self.backlog.room(), self.limits.stall_seconds)
        except TimeoutError:
            self.close_soon("the client read nothing for too long")
            raise ConnectionResetError("the client stopped reading") from None

    def _remember(self, table: dict[IdKey, str | None], key: IdKey, value: str | None) -> None:
        table[key] = value
        if len(table) > _KEPT_ROUTES:
            del table[next(iter(table))]  # a request never answered: forget the oldest

    # -- end ------------------------------------------------------------------------------------

    def close_soon(self, reason: str) -> None:
        logger.info("closing remote connection %s: %s", self.id, reason)
        self.queue.end()
        self.backlog.release_all()
        if not self._closing:
            self._closing = True
            self.tasks.spawn(self.connection.close(), name="acp remote link close")

    async def close(self) -> None:
        self.queue.end()
        self.backlog.release_all()
        await self.connection.close()
        await self.closed.wait()

    def _finish(self) -> None:
        """The connection ended: streams deliver what is queued, then end."""
        if self._initial is not None and not self._initial[1].done():
            self._initial[1].cancel()
        self.backlog.release_all()
        self.main.finish()
        for stream in self.sessions.values():
            stream.finish()
        self.closed.set()
        if self.on_closed is not None:
            self.on_closed(self)
