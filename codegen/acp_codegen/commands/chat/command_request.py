"""A v1 agent's `terminal/create` checked before anyone is asked, and the question it makes.

Refused outright with -32602, saying why (nothing asked, nothing run): text that is not text
(a NUL, a lone surrogate), an empty command, a variable name no program reads (empty, `=`,
controls, non-ASCII), a variable that makes another program run (`command_env`) unless
`--allow-env` let it through, more variables than a question can show, a folder outside the
working directory (symlinks and `..` resolved) or not a folder, a program not found.

The program is looked up as the process would (a name on `PATH`, a path relative to the
folder) and the question shows where it is: what is asked about is what runs.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ..._bindings import RpcError
from ..._bindings._runtime.wire.errors import ErrorCode
from .command_env import ALLOW_OPTION, AllowedEnv, check_env, invalid_name, refusal_text
from .gate import Question
from .visible import visible_line
from .workspace import Workspace

MAX_ENV: Final = 64  # variables a question can show in full; more is no honest command
TITLE_CHARS: Final = 100  # of the command line in the one-line title
LINE_CHARS: Final = 2000  # of the command line in the details
VALUE_CHARS: Final = 300  # of one variable's value


@dataclass(frozen=True)
class CommandRequest:
    """A command that passed the checks: `program` is the file that will be executed."""

    command: str
    args: tuple[str, ...]
    env: dict[str, str]
    folder: Path
    program: str
    allowed: frozenset[str]  # variables refused by default that --allow-env let through


def refused(message: str, data: object) -> RpcError:
    return RpcError(ErrorCode.INVALID_PARAMS, message, data)


def _text(what: str, value: str) -> None:
    if "\0" in value:
        raise refused(f"{what} holds a NUL character", {"field": what})
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise refused(f"{what} is not valid text (a lone surrogate)", {"field": what}) from None


def checked_request(
    workspace: Workspace,
    command: str,
    args: Sequence[str],
    env: Mapping[str, str],
    cwd: str | None,
    allowed_env: AllowedEnv,
) -> CommandRequest:
    """The request, when it may be asked about; otherwise the -32602 error to answer."""
    if not command:
        raise refused("an empty command", {"field": "command"})
    for what, value in [("command", command), *(("args", arg) for arg in args)]:
        _text(what, value)
    if len(env) > MAX_ENV:
        raise refused(f"more than {MAX_ENV} environment variables", {"field": "env"})
    for name, value in env.items():
        if invalid_name(name):
            raise refused(f"{name!r} is not an environment variable name", {"env": [name]})
        _text(f"the value of {name}", value)
    check = check_env(env, allowed_env)
    if check.refused:
        raise refused(refusal_text(check.refused), {"env": list(check.refused)})
    folder = workspace.resolve(cwd) if cwd is not None else workspace.root
    if not folder.is_dir():
        raise refused(f"not a folder: {cwd!r}", {"path": cwd})
    program = find_program(command, folder, {**os.environ, **env})
    if program is None:
        raise refused(f"no program {command!r} found", {"command": command})
    return CommandRequest(command, tuple(args), dict(env), folder, program, check.allowed)


def find_program(command: str, folder: Path, env: Mapping[str, str]) -> str | None:
    """The absolute path the process would execute: a command with a `/` is a path from
    `folder`; a name is looked up on the command's own `PATH` (a relative entry from
    `folder`), as exec does."""
    places = [""] if "/" in command else os.get_exec_path(dict(env))
    for place in places:
        candidate = os.path.abspath(os.path.join(folder, place, command))
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate  # executed as it is named here, so what is shown is what runs
    return None


def folded(text: str, limit: int) -> str:
    """`text` escaped for one line; past `limit` characters cut, saying how long it was."""
    if len(text) <= limit:
        return visible_line(text)
    return f"{visible_line(text[:limit])}... ({len(text)} characters, the first {limit} shown)"


def question(request: CommandRequest) -> Question:
    """What the user is asked: the command line, the program it runs, the folder, and every
    variable the agent sets (those only `--allow-env` let through marked)."""
    line = shlex.join([request.command, *request.args])
    real = os.path.realpath(request.program)
    program = request.program if real == request.program else f"{request.program} (-> {real})"
    details = [
        f"command: {folded(line, LINE_CHARS)}",
        f"program: {visible_line(program)}",
        f"in: {visible_line(str(request.folder))}",
    ]
    for name, value in request.env.items():
        mark = f"  [let through by {ALLOW_OPTION}]" if name in request.allowed else ""
        details.append(f"env: {name}={folded(shlex.quote(value), VALUE_CHARS)}{mark}")
    if not request.env:
        details.append("env: none added")
    title = f"run {folded(line, TITLE_CHARS)} in {visible_line(str(request.folder))}"
    return Question(title, tuple(details))
