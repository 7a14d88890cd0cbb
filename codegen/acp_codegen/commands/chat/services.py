"""chat's answers to a v1 agent's client requests: the generated `Client`'s typed v1 handlers
(`fs_*`, `terminal_*`) overridden, so chat advertises files and terminals to v1 agents and
answers them through its `Workspace` and `Terminals` (confined to `--cwd`).

Writes and commands are asked first; a write's question carries its diff (the file's text
before and after). Reads are asked too when `ask_reads` (an agent reached
by `--url` when `--cwd` was not given: the folder chat was started from was never offered
to it, and may be `$HOME`); the question names the file, escaped for the terminal.

The params are the bindings' v1 models; an optional field the agent left out holds the
bindings' `MISSING` marker, so optional values are read through `_given`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import difflib
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from ..._bindings._runtime.wire.jsonvalue import JsonObject
from .gate import Gate, Question
from .terminals import Terminals
from .visible import visible_line
from .workspace import Workspace

T = TypeVar("T")


def _given(value: Any, kind: type[T]) -> T | None:
    """An optional field's value when it holds a `kind` (None when null or left out)."""
    return value if isinstance(value, kind) else None


Confirm = Callable[[Question], Awaitable[bool]]


def one_at_a_time(confirm: Confirm) -> Confirm:
    """`confirm` with one question open at a time: an agent sending requests together gets
    them asked in turn (a second question would take the first one's place on the screen,
    leaving it unanswered for ever)."""
    turn = asyncio.Lock()

    async def asked(question: Question) -> bool:
        async with turn:
            return await confirm(question)

    return asked


def _lines(text: str) -> list[str]:
    lines = [line + "\n" for line in text.split("\n")]  # newlines alone end a line
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def write_diff(path: Path, old: str | None, new: str) -> JsonObject | None:
    """A write of `new` over `old` (None: no file) as a tool call's `diff` item; None when a
    file is there that chat cannot read (the question then says what it can: the size)."""
    if old is None and os.path.lexists(path):
        return None
    where = str(path)
    patch = difflib.unified_diff(
        _lines(old or ""), _lines(new), "/dev/null" if old is None else f"a{where}", f"b{where}"
    )
    text = "".join(line if line.endswith("\n") else line + "\n" for line in patch)
    operation = "add" if old is None else "modify"
    return {
        "type": "diff",
        "changes": [{"operation": operation, "path": where}],
        "patch": {"format": "git_patch", "text": text},
    }


class V1Services:
    """Mixed into chat's client before the generated `Client`: its v1 service handlers."""

    workspace: Workspace
    terminals: Terminals

    def serve_files(self, cwd: Path, gate: Gate, *, ask_reads: bool = False) -> None:
        """Answer file and terminal requests under `cwd`, asking through `gate` before a write
        or a command (and a read, with `ask_reads`), one question at a time."""
        confirm = one_at_a_time(gate.confirm)

        async def write(path: Path, content: str, replaced: str | None) -> bool:
            where = visible_line(str(path))
            change = write_diff(path, replaced, content)
            return await confirm(
                Question(f"write {len(content)} characters to {where}", diff=change)
            )

        async def read(path: Path) -> bool:
            return await confirm(Question(f"read {visible_line(str(path))}"))

        self.workspace = Workspace(cwd, write, read if ask_reads else None)
        self.terminals = Terminals(self.workspace, dataclasses.replace(gate, confirm=confirm))

    async def fs_read_text_file(self, *, params: Any) -> Any:
        text = await self.workspace.read_text(
            params.path, _given(params.line, int), _given(params.limit, int)
        )
        return {"content": text}

    async def fs_write_text_file(self, *, params: Any) -> Any:
        await self.workspace.write_text(params.path, params.content)
        return {}

    async def terminal_create(self, *, params: Any) -> Any:
        env = {variable.name: variable.value for variable in _given(params.env, list) or []}
        terminal_id = await self.terminals.create(
            params.command,
            _given(params.args, list) or [],
            env,
            _given(params.cwd, str),
            _given(params.output_byte_limit, int),
        )
        return {"terminalId": terminal_id}

    async def terminal_output(self, *, params: Any) -> Any:
        return self.terminals.output(params.terminal_id)

    async def terminal_wait_for_exit(self, *, params: Any) -> Any:
        return await self.terminals.wait_for_exit(params.terminal_id)

    async def terminal_kill(self, *, params: Any) -> Any:
        self.terminals.kill(params.terminal_id)
        return {}

    async def terminal_release(self, *, params: Any) -> Any:
        await self.terminals.release(params.terminal_id)
        return {}
