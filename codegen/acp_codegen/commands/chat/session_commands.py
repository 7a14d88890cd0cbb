"""chat's `/fork`, `/title`, `/archive`, `/unarchive` and `/status`: upstream's unstable session
methods, sent only to an agent that advertised them.

chat's bindings are generated without `--unstable`, so they type none of these methods: chat
sends them as plain requests on the connection (`session/fork`, `session/set_title`,
`session/archive`, `session/unarchive`, `session/status`), their names kept here. An agent
advertises each in `initialize` (v2: `capabilities.session.fork|title|archive|status`, where
`archive` stands for both archive methods; v1: `agentCapabilities.sessionCapabilities`, the same
members); a command it did not advertise is refused without sending anything. `/fork` switches
chat to the new session, resumed with its history replayed so the conversation it starts from
is shown; `/unarchive` takes the session's id, by default the one chat archived last; `/status`
says the session's title too (the one the agent last told, `session_info_update`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..._bindings import RpcError
from .transcript import title_of
from .visible import visible_line

SESSION_FORK: Final = "session/fork"
SESSION_SET_TITLE: Final = "session/set_title"
SESSION_ARCHIVE: Final = "session/archive"
SESSION_UNARCHIVE: Final = "session/unarchive"
SESSION_STATUS: Final = "session/status"
# chat's command (and what it takes) -> (the `session` capability that advertises it, the
# method, what /? says).
COMMANDS: Final[Mapping[str, tuple[str, str, str]]] = {
    "fork": ("fork", SESSION_FORK, "fork this session and continue in the fork"),
    "title": ("title", SESSION_SET_TITLE, "name this session"),
    "archive": ("archive", SESSION_ARCHIVE, "archive this session and continue in a new one"),
    # upstream's `session.archive` advertises session/unarchive too
    "unarchive": ("archive", SESSION_UNARCHIVE, "unarchive a session (default: the last archived)"),
    "status": ("status", SESSION_STATUS, "ask the agent how this session stands"),
}
ARGUMENTS: Final = {"title": " TEXT", "unarchive": " [ID]"}


def advertised(agent_capabilities: Any) -> list[str]:
    """chat's session commands the agent's `initialize` answer advertised, in `COMMANDS`' order."""
    if not isinstance(agent_capabilities, Mapping):
        return []
    members: dict[str, Any] = {}
    for key in ("session", "sessionCapabilities"):  # v2's name, v1's
        found = agent_capabilities.get(key)
        if isinstance(found, Mapping):
            members.update(found)
    return [name for name, (member, _, _) in COMMANDS.items() if members.get(member) is not None]


def help_lines(offered: list[str]) -> list[str]:
    return [f"/{name}{ARGUMENTS.get(name, '')}  {COMMANDS[name][2]}" for name in offered]


def refusal(name: str) -> str:
    """Why `/name` (one of `COMMANDS`) is not sent."""
    member = COMMANDS[name][0]
    return (
        f"/{name}: the agent does not offer {COMMANDS[name][1]} (its initialize answer does "
        f"not advertise session.{member}); /? lists what it offers"
    )


def status_line(result: Any) -> str:
    """`session/status`'s answer as one line: `status: open (idle)`, `status: saved`."""
    if not isinstance(result, Mapping) or not isinstance(result.get("status"), str):
        return "status: (the agent's answer has no status)"
    line = f"status: {result['status']}"
    state = result.get("state")
    if isinstance(state, Mapping) and isinstance(state.get("state"), str):
        line += f" ({state['state']})"
    return visible_line(line)


def forked_id(result: Any) -> str:
    """The new session's id from `session/fork`'s answer."""
    named = result.get("sessionId") if isinstance(result, Mapping) else None
    if not isinstance(named, str) or not named:
        raise RpcError(-32603, f"{SESSION_FORK} result has no sessionId")
    return named


class SessionCommands:
    """Runs chat's session commands over `link` (an `AgentLink` with its session open); each
    returns the line to show, or raises `ChatError` (the agent refused, or stopped)."""

    def __init__(self, link: Any) -> None:
        self.link = link
        self.last_archived: str | None = None  # what a bare /unarchive unarchives

    @property
    def offered(self) -> list[str]:
        return advertised(self.link.lifecycle.agent_capabilities)

    async def _send(self, name: str, params: dict[str, Any]) -> Any:
        method = COMMANDS[name][1]
        # Untyped in chat's bindings: sent as is, on the connection (not the v1 wire's checks).
        request = self.link.lifecycle.connection.request(method, params)
        return await self.link.manage(request, method)

    async def fork(self) -> str:
        """Fork the current session and make the fork the one prompted, its history replayed
        (resumed from the start; v1: loaded) so it is shown."""
        parent = self.link.session.session_id
        cwd = str(self.link.cwd)
        child = forked_id(await self._send("fork", {"sessionId": parent, "cwd": cwd}))
        replay = {"replayFrom": {"type": "start"}}
        resumed = self.link.lifecycle.resume_session(child, cwd, **replay)
        await self.link.manage(resumed, "session/resume")
        self.link.use(child)
        return visible_line(f"[forked {parent} into {child}: chat continues in the fork]")

    async def title(self, text: str) -> str:
        session_id = self.link.session.session_id
        result = await self._send("title", {"sessionId": session_id, "title": text})
        stored = result.get("title") if isinstance(result, Mapping) else None
        return visible_line(f"[title: {stored if isinstance(stored, str) else text}]")

    async def archive(self) -> str:
        session_id = self.link.session.session_id
        await self._send("archive", {"sessionId": session_id})
        self.link.session.closed = True  # the agent closed it: not resumed after a reconnect
        self.last_archived = session_id
        opened = (await self.link.new_session()).session_id
        return visible_line(f"[archived {session_id}; chat continues in a new session {opened}]")

    async def unarchive(self, session_id: str) -> str:
        """Unarchive `session_id`; chat stays in the current session (upstream: unarchiving
        never loads or resumes one)."""
        await self._send("unarchive", {"sessionId": session_id})
        if session_id == self.last_archived:
            self.last_archived = None
        return visible_line(f"[unarchived {session_id}; session/list lists it again]")

    async def status(self) -> str:
        session_id = self.link.session.session_id
        line = status_line(await self._send("status", {"sessionId": session_id}))
        title = title_of(self.link.snapshot()["sessionInfo"])
        return f"{line} · title: {title}" if title is not None else line
