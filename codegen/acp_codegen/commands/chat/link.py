"""Driving one agent: start it, initialize, open a session, run turns, cancel, stop it.

Built on the vendored generated `Client`; every failure becomes a `ChatError` carrying the exit
code and one line to print, never a traceback. Failing before the session is open (the command
cannot run, the agent dies or talks nonsense during the handshake) is a usage error (2); failing
during a turn is a turn that did not end with `end_turn` (1).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import IO, Any, TypeVar, cast

from ..._bindings import (
    AgentProxy,
    ClientSession,
    ConnectionClosed,
    ProtocolUsageError,
    RpcError,
    SessionSnapshot,
    models,
    session_snapshot,
)
from ..._bindings._runtime.client.client_side import ClientSide
from ..._bindings._runtime.rpc.trace import Tracer
from ..._bindings._runtime.transports.remote_client import RemoteAgent, connect_remote
from ..._bindings._runtime.transports.stdio import AgentProcess, spawn_agent
from ..exits import EXIT_DIFFERS, EXIT_USAGE
from .agent_stderr import agent_stderr, runtime_log, stop_runtime_log
from .chat_client import Asker, ChatClient, Listener
from .gate import Gate
from .reattach import Backoff, GaveUp, open_sessions, reconnected_line, resume_all, retrying
from .remote import RemoteTarget
from .traffic import TrafficTap
from .visible import visible_line

T = TypeVar("T")
STOP_INTERNAL_ERROR = "_internal_error"  # how the bindings end a turn whose handler raised
PATIENCE = Backoff()  # how a dropped remote connection is retried


class ChatError(Exception):
    """A failure to report in one line, with the exit code it means. The line often quotes
    the agent (its name, error message, stderr): it is kept one line of visible text."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(visible_line(message))
        self.code = code


class AgentLink:
    """One agent (a process it starts, or one served at a URL) with one session; `start()` it,
    then `turn()`, `cancel()`, `stop()`."""

    def __init__(
        self,
        argv: Sequence[str] | RemoteTarget,
        *,
        cwd: Path,
        cwd_given: bool = False,
        ask: Asker,
        confirm: Gate,
        trace: Path | None,
        verbose: bool,
        show_traffic: Callable[[str], None] | None = None,
        notice: Callable[[str], None] | None = None,
        on_record: Callable[[dict[str, Any]], None] | None = None,
        tell: Callable[[str], None] | None = None,
        on_drop: Callable[[str], None] | None = None,  # told when a reattach begins
        backoff: Backoff = PATIENCE,
        reconnect: bool = False,
    ) -> None:
        self.remote = argv if isinstance(argv, RemoteTarget) else None
        self.argv = [] if isinstance(argv, RemoteTarget) else list(argv)
        self.cwd = cwd
        self.verbose = verbose
        self.client = ChatClient(ask, cwd, confirm, ask_reads=not cwd_given and bool(self.remote))
        self.client.notice = notice
        self._garbage: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        try:
            shown = show_traffic if verbose else None
            self._tap = TrafficTap(
                trace, show=shown, on_garbage=self._saw_garbage, on_record=on_record
            )
        except OSError as error:
            raise ChatError(f"--trace {trace}: {error.strerror or error}", EXIT_USAGE) from None
        # Without --verbose the agent's stderr is kept aside, to quote when it fails.
        self._stderr = agent_stderr(verbose, show_traffic)
        self._log = runtime_log(verbose, show_traffic)
        self._process: AgentProcess | RemoteAgent | None = None
        self._session: ClientSession | None = None
        self.agent_name = self.remote.shown if self.remote is not None else self.argv[0]
        self.protocol_version: int | None = None  # negotiated at initialize
        self._tell, self._on_drop = tell, on_drop  # where the lines about a reattach go
        self.backoff = backoff
        self.reconnect = reconnect and self.remote is not None  # reattach when it drops
        self._reattaching = asyncio.Lock()
        self._watcher: asyncio.Future[None] | None = None  # reattaches as soon as a drop happens
        self._lost: ChatError | None = None  # why reattaching gave up
        self._cookies: dict[str, str] = {}  # of the last connection: a proxy's affinity cookie
        self._left_behind: list[str] = []  # sessions the agent refused to resume at a reattach

    def connected_text(self) -> str:
        """One line saying whom chat talks to and which protocol version they settled on."""
        return f"[connected: {self.agent_name} speaks ACP v{self.protocol_version}]"

    def _saw_garbage(self, text: str) -> None:
        if not self._garbage.done():
            self._garbage.set_result(text)

    @property
    def session(self) -> ClientSession:
        if self._session is None:
            raise RuntimeError("the session is not open yet")
        return self._session

    def snapshot(self) -> SessionSnapshot:
        return session_snapshot(self.session)

    @property
    def lifecycle(self) -> ClientSide[SessionSnapshot]:
        """The client runtime's view of the connection: negotiated version, the agent's info
        and capabilities, every session set up on it."""
        return self.client.lifecycle

    async def new_session(self) -> ClientSession:
        """Open another session in `cwd` and make it the one `turn` prompts."""
        session = await self._guarded(
            self.client.lifecycle.new_session(cwd=str(self.cwd)), EXIT_DIFFERS, "session/new"
        )
        self._session = session
        return session

    async def manage(self, step: Awaitable[T], what: str) -> T:
        """Await one session-management request (`session/list`, `/resume`, `/close`,
        `/delete`): its failure becomes a `ChatError` like a turn's."""
        return await self._guarded(step, EXIT_DIFFERS, what)

    @property
    def agent(self) -> AgentProxy:
        """The typed proxy for calls the lifecycle does not make itself (`session/delete`)."""
        return self.client.agent

    def use(self, session_id: str) -> None:
        """Make an open session of this connection the one `turn` prompts."""
        self._session = self.client.lifecycle.sessions[session_id]

    async def start(self) -> None:
        """Spawn the agent, initialize and open a session in `cwd`."""
        try:
            self._process = await self._spawn()
        except (OSError, ValueError, ImportError) as error:
            reason = getattr(error, "strerror", None) or str(error)
            raise ChatError(f"cannot start {self.agent_name!r}: {reason}", EXIT_USAGE) from None
        try:
            try:
                await self._guarded(self.client.lifecycle.initialize(), EXIT_USAGE, "initialize")
            except ChatError as error:
                raise self._not_an_agent() or error from None
            self.protocol_version = self.client.lifecycle.protocol_version
            info = self.client.lifecycle.agent_info
            if isinstance(info, dict) and isinstance(info.get("name"), str):
                self.agent_name = visible_line(info["name"])  # shown in every line about it
            self._session = await self._guarded(
                self.client.lifecycle.new_session(cwd=str(self.cwd)), EXIT_USAGE, "session/new"
            )
        except ChatError:
            await self.stop()
            raise
        if self.reconnect:
            self._watcher = asyncio.ensure_future(self._watch())

    def _not_an_agent(self) -> ChatError | None:
        """Why the command failed initialize when it is plainly no ACP agent at all: it sent
        our own messages back (`cat`), or exited cleanly without a word of JSON-RPC."""
        name = self.agent_name
        if self._tap.echoed and not self._tap.spoke:
            why = "it sends back what it is sent instead of answering initialize"
        elif not self._tap.spoke and self._exit_code() == 0 and not self._garbage.done():
            why = "it exited (code 0) without answering initialize"
        else:
            return None
        return ChatError(f"{name} is not an ACP agent: {why}", EXIT_USAGE)

    def _exit_code(self) -> int | None:
        if not isinstance(self._process, AgentProcess):
            return None  # a remote agent has no exit code to quote
        return self._process.process.returncode

    async def _spawn(self) -> AgentProcess | RemoteAgent:
        """`Client.spawn`, but in a session of its own: Ctrl-C in the terminal is the chat's to
        handle (cancel the turn), it must not reach the agent as SIGINT. `Client.connect` for
        an agent given by URL."""
        if self.remote is not None:
            return await connect_remote(
                self.remote.url,
                self.client.dispatcher,
                headers=self.remote.headers,
                trace=Tracer(cast(IO[bytes], self._tap)),
                cookies=self._cookies,
            )
        try:
            return await spawn_agent(
                self.argv,
                self.client.dispatcher,
                stderr=self._stderr.target(),
                trace=Tracer(cast(IO[bytes], self._tap)),
                start_new_session=True,
            )
        finally:
            self._stderr.spawned()

    def listen(self, listener: Listener | None) -> None:
        """Hear each session update as it is folded in (None: stop)."""
        self.client.listener = listener

    async def turn(self, text: str) -> str | None:
        """Send one prompt and wait for the turn to end; returns its stop reason."""
        return await self.turn_with([models.TextContent(type="text", text=text)])

    async def turn_with(self, blocks: Sequence[models.ContentBlock]) -> str | None:
        """`turn` with any content blocks (text, an attached resource, ...). With `reconnect`,
        a dropped connection (before or during the turn) is reattached; a turn the drop cut
        short ends as the agent reports it after the resume (`cancelled`)."""
        self._stderr.turn_begins()
        if self.reconnect:  # when the connection dropped, or is being reattached now
            await self.reattach()
        process = self._process
        try:
            return await self._guarded(self.session.run_turn(blocks), EXIT_DIFFERS, "the turn")
        except ChatError:
            dropped = isinstance(process, RemoteAgent) and process.connection.closed
            if not (self.reconnect and dropped):
                raise
        try:
            await self.reattach()
        except ChatError as error:  # the prompt was sent: how its turn ended, nobody can say
            raise ChatError(f"{error}; how the turn ended is unknown", error.code) from None
        stop = self.snapshot()["stopReason"]
        return stop if isinstance(stop, str) else None

    @property
    def reconnecting(self) -> bool:  # a turn now would wait for a reattach, or fail (gave up)
        return self.reconnect and (self.dropped or self._reattaching.locked() or bool(self._lost))

    @property
    def process(self) -> AgentProcess | RemoteAgent | None:
        """The agent process or remote connection talked to now (None once stopped)."""
        return self._process

    @property
    def dropped(self) -> bool:
        """Whether this is a remote agent whose connection has ended under us."""
        return isinstance(self._process, RemoteAgent) and self._process.connection.closed

    async def reattach(self) -> None:
        """When the connection dropped: connect again (same URL and headers), initialize,
        resume the session with its history replayed (v1: `session/load`) into a fresh client
        runtime, so its state is rebuilt, not folded on top (the listener hears none of it).
        Says so in one line; `ChatError` (exit 1, now and ever after) when it gives up."""
        async with self._reattaching:
            if self._lost is not None:
                raise self._lost
            if not self.dropped:
                return  # someone else reattached while we waited
            if self._on_drop is not None:
                self._on_drop(visible_line(f"[lost {self.agent_name}: reconnecting]"))
            session_id = self.session.session_id
            sessions = open_sessions(self.client.lifecycle, self.session)
            listener, self.client.listener = self.client.listener, None
            try:
                await self._drop_process()
                await retrying(lambda: self._resume(session_id, sessions), self.backoff)
            except GaveUp as error:
                self._lost = ChatError(f"lost {self.agent_name}: {error}", EXIT_DIFFERS)
                raise self._lost from None
            except (RpcError, ProtocolUsageError) as error:
                why = f"cannot resume {session_id} on {self.agent_name}: {error}"
                self._lost = ChatError(why, EXIT_DIFFERS)
                raise self._lost from None
            finally:
                self.client.listener = listener
        if self._tell is not None:
            self._tell(reconnected_line(self.agent_name, sessions, self._left_behind))

    async def _watch(self) -> None:
        """Reattach as soon as the connection drops, idle or not. When that gives up, the next
        turn fails with why (the caller reports it and ends the chat)."""
        while isinstance(self._process, RemoteAgent):
            await self._process.connection.wait_closed()
            try:
                await self.reattach()
            except ChatError:
                return

    async def _resume(self, session_id: str, sessions: list[tuple[str, str]]) -> None:
        """One reattach (open sessions not taken over, `session_id` prompted); undone on failure."""
        self._process = await self._spawn()
        try:
            try:
                await self.client.lifecycle.initialize()
            except RpcError as error:  # over HTTP, "cannot reach" comes as initialize's error
                raise ConnectionError(str(error)) from None
            self._left_behind = await resume_all(self.client.lifecycle, sessions, session_id)
            self._session = self.client.lifecycle.sessions.get(session_id, self._session)
        except BaseException:
            await self._drop_process()
            raise

    async def _drop_process(self) -> None:
        process, self._process = self._process, None
        if isinstance(process, RemoteAgent):
            self._cookies = process.cookies
            with contextlib.suppress(Exception):
                await process.close()

    async def cancel(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self.session.cancel()

    @property
    def commands(self) -> list[tuple[str, str]]:
        """The agent's slash commands (`available_commands_update`), as (name, description)."""
        if self._session is None:
            return []
        listed = self.snapshot()["availableCommands"] or []
        return [(command["name"], command["description"]) for command in listed]

    async def stop(self) -> None:
        """End the agent process (end of stdin, then terminate, then kill)."""
        if self._watcher is not None:
            self._watcher.cancel()
        if self._process is not None:
            process, self._process = self._process, None
            if isinstance(process, AgentProcess):
                await process.close(grace_seconds=2.0)
            else:
                await process.close()
        await self.client.terminals.close()  # commands the agent left running
        self._stderr.close()
        stop_runtime_log(self._log)
        self._log = None
        self._tap.close()

    async def _guarded(self, step: Awaitable[T], code: int, what: str) -> T:
        """Await `step`, turning every way the agent can fail it into a `ChatError`."""
        task = asyncio.ensure_future(step)
        garbage = asyncio.ensure_future(asyncio.shield(self._garbage))
        waiters: set[asyncio.Future[Any]] = {task, garbage}
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            raise
        finally:
            garbage.cancel()
        succeeded = task.done() and not task.cancelled() and task.exception() is None
        if not succeeded and self._garbage.done():  # the likely cause of whatever failed
            task.cancel()
            line = self._garbage.result()
            raise ChatError(
                f"{self.agent_name} wrote something that is not JSON-RPC on stdout during "
                f"{what}: {line[:80]!r}",
                code,
            )
        try:
            return task.result()
        except ConnectionClosed:
            await self._reap()
            raise ChatError(f"{self.agent_name} stopped during {what}{self._why()}", code) from None
        except RpcError as error:
            raise ChatError(f"{what} failed: {error}", code) from None
        except ProtocolUsageError as error:
            raise ChatError(f"{what}: {error}", code) from None

    async def _reap(self) -> None:
        """Let a dying agent finish exiting, so its exit code can be quoted."""
        if isinstance(self._process, AgentProcess):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._process.process.wait(), 2.0)

    def _why(self) -> str:
        """The exit code and the last line the agent wrote on stderr, when there is one."""
        parts: list[str] = []
        if self._exit_code() is not None:
            parts.append(f"exit code {self._exit_code()}")
        last = self._stderr.last_line().strip()
        if last:
            parts.append(f"last stderr line: {last}")
        return f" ({'; '.join(parts)})" if parts else ""

    def turn_failure(self, stop: str | None) -> str | None:
        """For a turn the agent's code failed (`_internal_error`): the last lines it wrote on
        stderr during the turn, which say why (with --verbose they are on the terminal)."""
        if stop != STOP_INTERNAL_ERROR:
            return None
        return self._stderr.turn_failure(self.agent_name)
