"""Where a `/` line goes, and the help that says so.

The rule: a command the agent lists (`available_commands_update`) is the agent's, even when its
name is one of chat's own (`/help`, `/quit`, `/exit`); chat's own commands answer the names the
agent leaves free, and so do the session commands (`/fork`, `/title`, ... of
`session_commands`), listed only when the agent advertises them (refused, saying why, when it
does not). `/?` always shows the help and Ctrl-D always quits, so neither is ever lost to an
agent's command.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from .session_commands import COMMANDS, help_lines
from .visible import visible_line

Route = Literal["help", "quit", "agent", "session", "unknown"]
ALWAYS_HELP = "?"  # not a name agents give commands; reserved so the help is always reachable
OWN: dict[str, Route] = {"help": "help", "quit": "quit", "exit": "quit"}


def command_name(line: str) -> str:
    """`/name args` -> `name` (empty for a lone `/`)."""
    words = line[1:].split()
    return words[0] if words else ""


def route(line: str, agent_commands: Sequence[tuple[str, str]]) -> Route:
    """Where the `/` line `line` goes: chat's help or quit, the agent, or nowhere."""
    name = command_name(line)
    if name == ALWAYS_HELP:
        return "help"
    if name in dict(agent_commands):
        return "agent"
    if name in COMMANDS:
        return "session"
    return OWN.get(name, "unknown")


def help_text(agent_commands: Sequence[tuple[str, str]], offered: Sequence[str] = ()) -> str:
    """The agent's commands, then chat's own under the names that reach them now: the session
    commands the agent `offered` (advertised), help and quit."""
    # The agent's names and descriptions kept on their line: they cannot fake chat's own.
    lines = [visible_line(f"/{name}  {description}") for name, description in agent_commands]
    if not lines:
        lines = ["(the agent lists no commands)"]
    taken = {name for name, _ in agent_commands}
    lines += help_lines([name for name in offered if name not in taken])
    helps = ["/?"] + [f"/{name}" for name in ("help",) if name not in taken]
    quits = [f"/{name}" for name in ("quit", "exit") if name not in taken] + ["Ctrl-D"]
    lines.append(f"{', '.join(helps)}  this list")
    lines.append(f"{', '.join(quits)}  stop the agent and leave")
    shadowed = [f"/{name}" for name in OWN if name in taken]
    if shadowed:
        lines.append(f"({', '.join(shadowed)}: the agent's command wins; /? is always this list)")
    return "\n".join(lines)
