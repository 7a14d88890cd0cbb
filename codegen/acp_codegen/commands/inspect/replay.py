"""`inspect --trace FILE`: the session state as of any line of a recorded trace, rebuilt with the
runtime's own `SessionState` (the fold every client session uses) from the received updates,
with no agent. Moving forward folds on; moving back folds again from the start. A v1 trace
(initialize settled on 1) is read as the client reads v1: each update through the runtime's
`V1UpdateReader` (its v2 form: diffs as patches, the one plan), the prompt recorded as the
user's message, the states v1 does not send made up from the prompt and its answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from ..._bindings import MalformedUpdateError, SessionSnapshot, session_snapshot
from ..._bindings._runtime.v1.client_updates import V1UpdateReader, state_update
from ..._bindings._runtime.wire.protocol import STATE_IDLE, STATE_REQUIRES_ACTION, STATE_RUNNING
from ..._bindings.state import SessionState
from .trace_file import TraceFile
from .traffic_log import UPDATE_METHOD, TrafficLog
from .view import (
    agent_view,
    announced_children,
    carried_diffs,
    conversation_view,
    session_row,
)

INITIALIZE = "initialize"
SETUPS = ("session/new", "session/load", "session/resume")
# Upstream's unstable session methods (a client of an agent generated with `--unstable`, chat's
# `/fork` and `/title`): a fork's answer names a new session, a title's answer the stored title.
FORK = "session/fork"
SET_TITLE = "session/set_title"
CANCEL = "session/cancel"
PERMISSION = "session/request_permission"
PROMPT = "session/prompt"
MAX_OPEN: Final = 10_000  # requests awaiting an answer that a fold remembers, of each kind


class Fold:
    """The client's state after some prefix of the trace."""

    def __init__(self) -> None:
        self.at = 0  # lines folded
        self.sessions: dict[str, SessionState] = {}
        self.forked_from: dict[str, str] = {}  # a fork's session id: the session it copies
        self.current: str | None = None
        self.agent: dict[str, Any] = agent_view(None, None, None, [])
        self.permissions: dict[Any, dict[str, Any]] = {}  # open requests by JSON-RPC id
        self.prompts: dict[Any, str] = {}  # session/prompt ids not yet answered: their session
        self._asked: dict[Any, tuple[str, Any]] = {}  # our request ids: (method, params)
        self.v1 = False  # initialize settled on v1: updates read as the client reads them
        self._readers: dict[str, V1UpdateReader] = {}

    def step(self, record: dict[str, Any]) -> str | None:
        """Fold one record; returns the problem the runtime found with it, if any."""
        self.at += 1
        message = record.get("message")
        if not isinstance(message, dict):
            return None
        sent = record.get("dir") == "send"
        method = message.get("method")
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        if isinstance(method, str):
            return self._call(sent, method, message, params)
        self._answer(sent, message)
        return None

    def _call(
        self, sent: bool, method: str, message: dict[str, Any], params: dict[str, Any]
    ) -> str | None:
        session_id = params.get("sessionId")
        if sent and "id" in message:
            # Only what the answer needs: a prompt's content may be large.
            _put(self._asked, _key(message["id"]), (method, {"sessionId": session_id}))
            if method == PROMPT and isinstance(session_id, str):
                _put(self.prompts, _key(message["id"]), session_id)
                self.current = session_id
                if self.v1:  # v1 agents echo nothing and send no states
                    prompt = params.get("prompt")
                    _, user = self._reader(session_id).user_prompt(
                        prompt if isinstance(prompt, list) else []
                    )
                    return self._apply(session_id, [user, state_update(STATE_RUNNING)])
        elif sent and method == CANCEL and isinstance(session_id, str):
            if session_id in self.sessions:
                self.sessions[session_id].mark_cancelled()
            self.permissions.clear()  # the client answers them all cancelled
        elif not sent and method == PERMISSION and "id" in message:
            _put(self.permissions, _key(message["id"]), params)
            if self.v1 and isinstance(session_id, str):
                return self._apply(session_id, [state_update(STATE_REQUIRES_ACTION)])
        elif not sent and method == UPDATE_METHOD and isinstance(session_id, str):
            update = params.get("update")
            update = update if isinstance(update, dict) else {}
            if self.v1:
                return self._apply(session_id, self._reader(session_id).read(dict(update)))
            return self._apply(session_id, [update])
        return None

    def _apply(self, session_id: str, updates: list[Any]) -> str | None:
        state = self._session(session_id)
        for update in updates:
            try:
                state.apply(update)
            except MalformedUpdateError as error:
                return f"malformed update, not folded: {error}"
        return None

    def _reader(self, session_id: str) -> V1UpdateReader:
        if session_id not in self._readers:
            self._readers[session_id] = V1UpdateReader()
        return self._readers[session_id]

    def _answer(self, sent: bool, message: dict[str, Any]) -> None:
        key = _key(message.get("id"))
        if sent:  # our answer to the agent's request
            asked = self.permissions.pop(key, None)
            state = self.sessions.get(str((asked or {}).get("sessionId")))
            if self.v1 and state and not self.permissions and state.state == STATE_REQUIRES_ACTION:
                state.apply(state_update(STATE_RUNNING))  # v1 asks no more: back to work
            return
        prompted = self.prompts.pop(key, None)
        method, params = self._asked.pop(key, ("", {}))
        result = message.get("result")
        result = result if isinstance(result, dict) else {}
        if self.v1 and prompted is not None:  # the turn ends with the prompt's answer
            self._reader(prompted).end_message()
            stop = result.get("stopReason")
            self._apply(
                prompted, [state_update(STATE_IDLE, stop if isinstance(stop, str) else None)]
            )
        if method == INITIALIZE and "result" in message:
            self.v1 = result.get("protocolVersion") == 1
            self.agent = agent_view(
                result.get("agentInfo" if self.v1 else "info"),
                result.get("protocolVersion"),
                result.get("agentCapabilities" if self.v1 else "capabilities") or {},
                list(result.get("authMethods") or []),
            )
        elif method == FORK and isinstance(result.get("sessionId"), str):
            self._session(result["sessionId"])
            if isinstance(params.get("sessionId"), str):
                self.forked_from[result["sessionId"]] = params["sessionId"]
        elif method == SET_TITLE and isinstance(result.get("title"), str):
            session_id = params.get("sessionId")
            if isinstance(session_id, str):  # as the agent stored it, told or not
                title = {"sessionUpdate": "session_info_update", "title": result["title"]}
                self._apply(session_id, [title])
        elif method in SETUPS and "result" in message:
            session_id = result.get("sessionId", params.get("sessionId"))
            if isinstance(session_id, str):
                self._session(session_id)
                self.current = session_id
                if self.v1:  # its modes and config options
                    reader = self._reader(session_id)
                    reader.end_message()
                    self._apply(session_id, reader.session_setup(result))

    def _session(self, session_id: str) -> SessionState:
        if session_id not in self.sessions:
            self.sessions[session_id] = SessionState()
            self.current = self.current or session_id
        return self.sessions[session_id]

    def snapshot(self, session_id: str) -> SessionSnapshot:
        return session_snapshot(self.sessions[session_id])


def _key(value: Any) -> Any:
    return value if isinstance(value, str | int) else repr(value)


def _put(table: dict[Any, Any], key: Any, value: Any) -> None:
    """`table[key] = value`, the oldest entry forgotten past MAX_OPEN (a trace of requests
    never answered cannot grow a fold without end)."""
    if len(table) >= MAX_OPEN and key not in table:
        del table[next(iter(table))]
    table[key] = value


class TraceReplay:
    """A loaded trace, viewable as of any line."""

    mode = "trace"

    def __init__(self, log: TrafficLog, name: str, fold: Fold | None = None) -> None:
        """A replay of `log`; `fold`, when given, is `log` folded to its end already."""
        self.log = log
        self.name = name
        if fold is None:
            fold = Fold()
            for index, line in enumerate(log.lines):  # once through: mark what is refused
                problem = fold.step(line.record)
                if problem is not None:
                    log.mark(index, problem)
        self._fold = fold

    @classmethod
    def load(cls, path: Path) -> TraceReplay:
        """The trace at `path`, read once, a line at a time: each line is listed and folded,
        and only its place in the file is kept (TraceFileError when it cannot be read)."""
        trace = TraceFile(path)
        log, fold = TrafficLog(), Fold()
        for record, stored in trace.lines():
            line = log.add(record, stored)
            problem = fold.step(record)
            if problem is not None:
                log.mark(line.n, problem)
        return cls(log, path.name, fold)

    def view(self, at: int | None = None, session_id: str | None = None) -> dict[str, Any]:
        """The page's state after the first `at` lines (default: all of them)."""
        total = len(self.log)
        at = total if at is None else max(0, min(at, total))
        if at < self._fold.at:
            self._fold = Fold()
        while self._fold.at < at:
            self._fold.step(self.log.lines[self._fold.at].record)
        return self._view(self._fold, at, session_id)

    def _view(self, fold: Fold, at: int, session_id: str | None) -> dict[str, Any]:
        shown = session_id if session_id in fold.sessions else fold.current
        snapshot = fold.snapshot(shown) if shown else None  # once: costly in a long session
        snapshots = {
            key: snapshot if key == shown and snapshot else fold.snapshot(key)
            for key in fold.sessions
        }
        children = announced_children(snapshots)
        sessions = [
            session_row(
                key,
                held,
                children,
                current=key == shown,
                open=True,
                forkedFrom=fold.forked_from.get(key),
            )
            for key, held in snapshots.items()
        ]
        permission = None
        if fold.permissions:
            key, params = next(iter(fold.permissions.items()))
            permission = permission_view(key, params)
        return {
            "mode": self.mode,
            "source": self.name,
            "at": at,
            "total": len(self.log),
            "agent": fold.agent,
            "sessions": sessions,
            "session": (
                conversation_view(snapshot, self.log.turns.plan_turns(at)) if snapshot else None
            ),
            "turns": self.log.turns.views(),
            "sessionId": shown,
            "running": bool(fold.prompts),
            "permission": permission,
            "error": None,
            "reconnected": None,
            "refused": None,
        }


def permission_view(key: Any, params: dict[str, Any]) -> dict[str, Any]:
    """A permission request as the dialog shows it (read-only in a trace)."""
    options = params.get("options")
    description = params.get("description")
    subject = params.get("subject")  # v2: what is asked about; v1: the tool call itself
    tool_call = subject.get("toolCall") if isinstance(subject, dict) else params.get("toolCall")
    return {
        "id": key,
        "title": params.get("title") or "The agent asks for permission",
        # below the title: for a v1 command, its program, folder and every variable
        "description": description if isinstance(description, str) else None,
        "diffs": carried_diffs(tool_call),
        "options": [
            {"id": option.get("optionId"), "name": option.get("name"), "kind": option.get("kind")}
            for option in (options if isinstance(options, list) else [])
            if isinstance(option, dict)
        ],
    }
