"""What stands between a v1 agent and the user's machine when it asks chat (or inspect) to write
a file or run a command: the question put to the user, and who asks it.

A `Question` is already safe to print (agent text escaped by its maker): a one-line `title`
for where one line fits (`... -> Allow`), and `details`, the lines that say everything that
decides what happens (for a command: its arguments, program, folder, every variable). A write
also carries its `diff` (raw: shown through `model.diff_view`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ..._bindings._runtime.wire.jsonvalue import JsonObject
from .command_env import NOTHING_ALLOWED, AllowedEnv


@dataclass(frozen=True)
class Question:
    title: str
    details: tuple[str, ...] = ()
    # A write's change as a tool call's `diff` content item (v2's shape: changes and a git
    # patch; the agent's text, so shown through `model.diff_view`), None for anything else.
    diff: JsonObject | None = None

    def text(self) -> str:
        """The title and the details below it, indented: for plain text."""
        return "\n".join([self.title, *(f"  {line}" for line in self.details)])


async def _refuse(question: Question) -> bool:
    return False


def _silent(text: str) -> None:
    return None


@dataclass(frozen=True)
class Gate:
    """How a client decides: `confirm` asks the user (or `--approve` answers), `tell` says
    what was refused without asking (a line for the user, already safe to print), and
    `allowed_env` is what `--allow-env` let through."""

    confirm: Callable[[Question], Awaitable[bool]] = _refuse
    tell: Callable[[str], None] = _silent
    allowed_env: AllowedEnv = NOTHING_ALLOWED
