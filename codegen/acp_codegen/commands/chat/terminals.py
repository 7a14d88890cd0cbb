"""Commands a v1 agent runs through chat (`terminal/*`): each one a process started in the
session's working directory (or a folder under it), its output kept up to the agent's byte
limit (the oldest output dropped first, cut at a character boundary).

Before anyone is asked, the request is checked (`command_request`: a variable that makes
another program run is refused unless `--allow-env` let it through); then the user is asked a
question showing the command line, the program that runs, the folder and every variable
(`gate.confirm`, or `--approve`). Every process still running is killed when the terminal is
released or the chat ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..._bindings import RpcError
from ..._bindings._runtime.wire.errors import ErrorCode
from .command_request import checked_request, question
from .gate import Gate
from .visible import visible_line
from .workspace import Workspace

DEFAULT_OUTPUT_LIMIT = 1 << 20
MAX_OUTPUT_LIMIT = 16 << 20
_READ = 1 << 16


@dataclass
class Terminal:
    process: asyncio.subprocess.Process
    limit: int
    output: bytearray = field(default_factory=bytearray)
    truncated: bool = False
    pump: asyncio.Task[None] | None = None

    def keep(self, chunk: bytes) -> None:
        self.output += chunk
        excess = len(self.output) - self.limit
        if excess > 0:
            # Drop the oldest bytes, then any UTF-8 continuation bytes a cut left at the front.
            cut = excess
            while cut < len(self.output) and self.output[cut] & 0xC0 == 0x80:
                cut += 1
            del self.output[:cut]
            self.truncated = True

    def exit_status(self) -> dict[str, Any] | None:
        code = self.process.returncode
        if code is None:
            return None
        if code < 0:
            return {"exitCode": None, "signal": signal.Signals(-code).name}
        return {"exitCode": code, "signal": None}


class Terminals:
    """The terminals of one chat, by id."""

    def __init__(self, workspace: Workspace, gate: Gate) -> None:
        self._workspace = workspace
        self._gate = gate
        self._terminals: dict[str, Terminal] = {}
        self._count = 0

    async def create(
        self,
        command: str,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
    ) -> str:
        try:
            request = checked_request(
                self._workspace, command, args, env or {}, cwd, self._gate.allowed_env
            )
        except RpcError as error:
            self._gate.tell(visible_line(f"refused to run {command!r}: {error.message}"))
            raise
        if not await self._gate.confirm(question(request)):
            raise RpcError(ErrorCode.INVALID_REQUEST, f"the user did not allow running {command!r}")
        try:
            process = await asyncio.create_subprocess_exec(
                request.command,
                *request.args,
                executable=request.program,  # the program the question named, not a new lookup
                cwd=request.folder,
                env={**os.environ, **request.env},
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as error:
            raise RpcError(
                ErrorCode.INTERNAL_ERROR, f"cannot run {command!r}: {error.strerror or error}"
            ) from None
        # The agent's limit, within chat's own (an agent may not make chat hold gigabytes).
        asked = DEFAULT_OUTPUT_LIMIT if output_byte_limit is None else output_byte_limit
        limit = max(0, min(asked, MAX_OUTPUT_LIMIT))
        terminal = Terminal(process, limit)
        terminal.pump = asyncio.create_task(self._pump(terminal))
        self._count += 1
        terminal_id = f"term-{self._count}"
        self._terminals[terminal_id] = terminal
        return terminal_id

    @staticmethod
    async def _pump(terminal: Terminal) -> None:
        assert terminal.process.stdout is not None
        while chunk := await terminal.process.stdout.read(_READ):
            terminal.keep(chunk)
        await terminal.process.wait()

    def _get(self, terminal_id: str) -> Terminal:
        terminal = self._terminals.get(terminal_id)
        if terminal is None:
            raise RpcError(
                ErrorCode.RESOURCE_NOT_FOUND, "Unknown terminal", {"terminalId": terminal_id}
            )
        return terminal

    def output(self, terminal_id: str) -> dict[str, Any]:
        terminal = self._get(terminal_id)
        result: dict[str, Any] = {
            "output": terminal.output.decode("utf-8", errors="replace"),
            "truncated": terminal.truncated,
        }
        status = terminal.exit_status() if terminal.pump is None or terminal.pump.done() else None
        if status is not None:
            result["exitStatus"] = status
        return result

    async def wait_for_exit(self, terminal_id: str) -> dict[str, Any]:
        terminal = self._get(terminal_id)
        assert terminal.pump is not None
        await asyncio.shield(terminal.pump)  # all output read, the exit status known
        status = terminal.exit_status()
        assert status is not None
        return status

    def kill(self, terminal_id: str) -> None:
        terminal = self._get(terminal_id)
        if terminal.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(terminal.process.pid, signal.SIGKILL)

    async def release(self, terminal_id: str) -> None:
        self.kill(terminal_id)
        terminal = self._terminals.pop(terminal_id)
        if terminal.pump is not None:
            await terminal.pump

    async def close(self) -> None:
        """Kill and forget every terminal (the chat is ending)."""
        for terminal_id in list(self._terminals):
            await self.release(terminal_id)
