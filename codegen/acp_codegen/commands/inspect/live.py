"""`inspect -- AGENT_CMD`: one agent driven by chat's `AgentLink` (the same client runtime and
typed snapshot), with the page's actions: prompt, cancel, answer a permission request, open or
switch sessions. The agent (command or URL) is fixed here at start; nothing the page sends
runs or reaches another."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import shlex
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..._bindings import models, session_snapshot
from ..chat.agent_stderr import RUNTIME_LOGGER
from ..chat.command_env import NOTHING_ALLOWED, AllowedEnv
from ..chat.gate import Gate, Question
from ..chat.link import AgentLink, ChatError
from ..chat.permissions import CANCELLED
from ..chat.remote import RemoteTarget
from ..chat.session_commands import SessionCommands, advertised
from .replay import permission_view
from .traffic_log import TrafficLog
from .view import (
    agent_view,
    announced_children,
    can_delete,
    conversation_view,
    listed_sessions,
    session_row,
)

MAX_ATTACHMENT_BYTES = 8 * 1024 * 1024
MAX_LIST_PAGES = 50
T = TypeVar("T")


class ActionError(Exception):
    """An action the page asked for that cannot be done now (answered 409 with this text)."""


@dataclass
class Asked:
    """A permission request waiting for the person at the page."""

    key: int
    request: models.RequestPermissionRequest
    answer: asyncio.Future[models.RequestPermissionOutcome]


class ProblemMarks(logging.Handler):
    """What the runtime logs while it handles a line (a dropped or repaired update, a refused
    message) marked on the last received line: it is handled as soon as it is read."""

    def __init__(self, log: TrafficLog) -> None:
        super().__init__(logging.WARNING)
        self._log = log

    def emit(self, record: logging.LogRecord) -> None:
        received = [line for line in self._log.lines[-8:] if line.record.get("dir") == "recv"]
        if received:
            self._log.mark(received[-1].summary["n"], record.getMessage()[:300])


def agent_heading(argv: Sequence[str] | RemoteTarget) -> str:
    """The page's name for the agent: its command (program without its folder) or its URL
    without user info and query (where a secret may hide; the headers are never shown)."""
    if isinstance(argv, RemoteTarget):
        return argv.shown
    return shlex.join([Path(argv[0]).name, *argv[1:]])


class LiveInspector:
    """The agent process and its sessions, as the page sees and drives them."""

    mode = "live"

    def __init__(
        self,
        argv: Sequence[str] | RemoteTarget,
        *,
        cwd: Path,
        cwd_given: bool = False,
        trace: Path | None,
        changed: Callable[[], None],
        allowed_env: AllowedEnv = NOTHING_ALLOWED,
    ) -> None:
        self.log = TrafficLog()
        self.name = agent_heading(argv)
        self._changed = changed
        self._asked: list[Asked] = []
        self._count = 0
        self._turn: asyncio.Task[None] | None = None
        self._cancelled = False  # the running turn was cancelled: its writes are refused
        self.error: str | None = None
        self.listed: list[dict[str, Any]] = []  # what session/list last answered
        self.deleted: set[str] = set()  # not listed any more
        self.forked_from: dict[str, str] = {}  # forks made here: the session each copies
        self.reconnected: str | None = None  # the line about the last reattach
        self.refused: str | None = None  # the last command refused without asking, and why
        self.link = AgentLink(
            argv,
            cwd=cwd,
            cwd_given=cwd_given,
            ask=self._ask,
            confirm=Gate(self._confirm, self._refused, allowed_env),
            trace=trace,
            verbose=False,
            on_record=self._heard,
            tell=self._reattached,
            reconnect=True,  # a dropped --url connection is reattached, its session resumed
        )
        self.link.listen(lambda _update: changed())
        self.link.client.offered_anew = changed  # suggestions are not the turn's: not listened
        self._marks = ProblemMarks(self.log)

    def _heard(self, record: dict[str, Any]) -> None:
        self.log.add(record)

    def _refused(self, line: str) -> None:
        self.refused = line
        self._changed()

    def _reattached(self, line: str) -> None:
        self.reconnected = line
        self._changed()

    async def start(self) -> None:
        logging.getLogger(RUNTIME_LOGGER).addHandler(self._marks)
        logging.getLogger(RUNTIME_LOGGER).setLevel(logging.WARNING)
        await self.link.start()
        self._changed()

    async def stop(self) -> None:
        """Cancel the running turn and stop the agent (no session is left running)."""
        if self._turn is not None and not self._turn.done():
            with contextlib.suppress(ChatError, ConnectionError, RuntimeError):
                await self.link.cancel()
            self._turn.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._turn
        await self.link.stop()
        logging.getLogger(RUNTIME_LOGGER).removeHandler(self._marks)

    @property
    def running(self) -> bool:
        return self._turn is not None and not self._turn.done()

    async def _ask(
        self, request: models.RequestPermissionRequest
    ) -> models.RequestPermissionOutcome:
        self._count += 1
        asked = Asked(self._count, request, asyncio.get_running_loop().create_future())
        self._asked.append(asked)
        self._changed()
        try:
            return await asked.answer
        finally:  # answered, or cancelled with the turn
            self._asked.remove(asked)
            self._changed()

    async def _confirm(self, question: Question) -> bool:
        """A v1 agent's file write or command (or a remote agent's read), asked on the page as
        a permission request (v1 has no permission request of its own for these), a command's
        details (program, folder, every variable) as its description, a write's diff (when
        the `Question` carries one) as the tool call's, drawn like any other. Refused once
        the turn is cancelled."""
        if self._cancelled:
            return False
        diff = question.diff
        subject = None
        if diff is not None:
            call = {"toolCallId": "fs/write_text_file", "content": [diff]}
            subject = models.ToolCallPermissionSubject.model_validate({"toolCall": call})
        request = models.RequestPermissionRequest(
            session_id=self.link.session.session_id,
            title=f"The agent asks to {question.title}",
            description="\n".join(question.details) or None,
            subject=subject,
            options=[
                models.PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
                models.PermissionOption(option_id="reject", name="Refuse", kind="reject_once"),
            ],
        )
        outcome = await self._ask(request)
        return getattr(outcome, "option_id", None) == "allow"

    def answer(self, key: int, option_id: str | None) -> None:
        """Answer the permission request `key` with one of its options (None: cancelled)."""
        asked = next((item for item in self._asked if item.key == key), None)
        if asked is None or asked.answer.done():
            raise ActionError("that permission request is no longer open")
        if option_id is None:
            asked.answer.set_result(CANCELLED)
            return
        if option_id not in {option.option_id for option in asked.request.options}:
            raise ActionError(f"{option_id!r} is not one of the request's options")
        outcome = models.SelectedPermissionOutcome(outcome="selected", option_id=option_id)
        asked.answer.set_result(outcome)

    def prompt(self, text: str, attachment: dict[str, Any] | None = None) -> None:
        """Start a turn with `text` (and a file attached as a resource)."""
        self._idle_only()
        blocks: list[Any] = [models.TextContent(type="text", text=text)]
        if attachment is not None:
            blocks.append(resource_block(attachment))
        self.error, self.refused = None, None
        self._cancelled = False
        self._turn = asyncio.create_task(self._run_turn(blocks))
        self._changed()

    async def _run_turn(self, blocks: list[Any]) -> None:
        try:
            stop = await self.link.turn_with(blocks)
            self.error = self.link.turn_failure(stop)
        except ChatError as error:
            self.error = str(error)
        finally:
            self._changed()

    async def cancel(self) -> None:
        if not self.running:
            raise ActionError("no turn is running")
        self._cancelled = True
        await self.link.cancel()
        # The runtime answers the agent's own permission requests; a write or command asked
        # by `_confirm` is the page's to refuse.
        for asked in self._asked:
            if not asked.answer.done():
                asked.answer.set_result(CANCELLED)
        self._changed()

    async def new_session(self) -> None:
        self._idle_only()
        try:
            await self.link.new_session()
        except ChatError as error:
            raise ActionError(str(error)) from None
        self._changed()

    async def list_sessions(self) -> None:
        """Ask the agent for its sessions (`session/list`, every page up to a bound)."""
        listed: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(MAX_LIST_PAGES):
            page = await self._manage(self.link.lifecycle.list_sessions(cursor=cursor), "list")
            listed += [item for item in page.get("sessions") or [] if isinstance(item, dict)]
            cursor = page.get("nextCursor")
            if not isinstance(cursor, str):
                break
        self.listed = listed
        self._changed()

    async def resume(self, session_id: str) -> None:
        """Reopen a listed session. One this connection never held (another connection's, as
        after `inspect --url` is restarted) is replayed from its start, so the page shows its
        history (on v1: `session/load`); one held here already shows it."""
        self._idle_only()
        lifecycle = self.link.lifecycle
        replay = {} if session_id in lifecycle.sessions else {"replayFrom": {"type": "start"}}
        resumed = lifecycle.resume_session(session_id, str(self.link.cwd), **replay)
        await self._manage(resumed, "resume")
        self.link.use(session_id)
        self._changed()

    async def fork(self, session_id: str) -> None:
        """Fork an open session (when the agent advertises `session.fork`) and switch to the
        fork, its history replayed (chat's `/fork`)."""
        self._idle_only()
        if "fork" not in advertised(self.link.lifecycle.agent_capabilities):
            raise ActionError("the agent does not offer session/fork")
        if session_id not in self.link.lifecycle.sessions:
            raise ActionError("no such session on this connection")
        self.link.use(session_id)
        try:  # the page lists the fork, marked, as the current session: no line to show
            await SessionCommands(self.link).fork()
        except ChatError as error:
            raise ActionError(str(error)) from None
        self.forked_from[self.link.session.session_id] = session_id
        self._changed()

    async def close(self, session_id: str) -> None:
        session = self.link.lifecycle.sessions.get(session_id)
        if session is None or session.closed:
            raise ActionError("that session is not open here")
        if self.running and session is self.link.session:
            raise ActionError("a turn is running in that session: cancel it first")
        await self._manage(session.close(), "close")
        self._changed()

    async def delete(self, session_id: str) -> None:
        if not can_delete(self.link.lifecycle.agent_capabilities):
            raise ActionError("the agent does not offer session/delete")
        if self.running and session_id == self.link.session.session_id:
            raise ActionError("a turn is running in that session: cancel it first")
        request = models.DeleteSessionRequest(session_id=session_id)
        await self._manage(self.link.agent.session_delete(request), "delete")
        self.listed = [item for item in self.listed if item.get("sessionId") != session_id]
        self.deleted.add(session_id)
        session = self.link.lifecycle.sessions.get(session_id)
        if session is not None:  # gone at the agent: later prompts are refused here
            session.closed = True
        self._changed()

    async def _manage(self, step: Awaitable[T], what: str) -> T:
        try:
            return await self.link.manage(step, f"session/{what}")
        except ChatError as error:
            raise ActionError(str(error)) from None

    def _idle_only(self) -> None:
        if self.running:
            raise ActionError("a turn is running: cancel it or wait for it to end")

    def use(self, session_id: str) -> None:
        self._idle_only()
        if session_id not in self.link.lifecycle.sessions:
            raise ActionError("no such session on this connection")
        self.link.use(session_id)
        self._changed()

    def view(self, at: int | None = None, session_id: str | None = None) -> dict[str, Any]:
        lifecycle = self.link.lifecycle
        current = self.link.session.session_id
        snapshot = self.link.snapshot()  # taken once: a long session's snapshot is costly
        held = {
            key: (snapshot if key == current else session_snapshot(session), session.closed)
            for key, session in lifecycle.sessions.items()
            if key not in self.deleted or key == current
        }
        children = announced_children({key: shot for key, (shot, _) in held.items()})
        sessions = [
            session_row(
                key,
                shot,
                children,
                current=key == current,
                open=not closed,
                forkedFrom=self.forked_from.get(key),
            )
            for key, (shot, closed) in held.items()
        ]
        sessions += listed_sessions(self.listed, set(lifecycle.sessions))
        asked = self._asked[0] if self._asked else None
        return {
            "mode": self.mode,
            "source": self.name,
            "at": len(self.log),
            "total": len(self.log),
            "agent": agent_view(
                lifecycle.agent_info,
                lifecycle.protocol_version,
                lifecycle.agent_capabilities,
                lifecycle.auth_methods,
            ),
            "sessions": sessions,
            "session": conversation_view(snapshot, self.log.turns.plan_turns(len(self.log))),
            "turns": self.log.turns.views(),
            "sessionId": current,
            "running": self.running,
            "permission": (
                None
                if asked is None
                else permission_view(
                    asked.key, asked.request.model_dump(mode="json", by_alias=True)
                )
            ),
            "error": self.error,
            "reconnected": self.reconnected,
            "refused": self.refused,
        }


def resource_block(attachment: dict[str, Any]) -> models.EmbeddedResource:
    """A file the page attached, as an embedded resource: text when it decodes as UTF-8,
    otherwise base64 as a blob."""
    name = str(attachment.get("name") or "attachment")
    data = base64.b64decode(str(attachment.get("base64") or ""), validate=True)
    if len(data) > MAX_ATTACHMENT_BYTES:
        raise ActionError(f"the attachment is larger than {MAX_ATTACHMENT_BYTES // 2**20} MiB")
    uri = f"file:///{name.lstrip('/')}"
    try:
        resource: dict[str, Any] = {"uri": uri, "text": data.decode("utf-8")}
    except UnicodeDecodeError:
        resource = {"uri": uri, "blob": base64.b64encode(data).decode("ascii")}
    return models.EmbeddedResource.model_validate({"type": "resource", "resource": resource})
