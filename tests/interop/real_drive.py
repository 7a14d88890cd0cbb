"""Our generated `Client` driving a real agent (agent_cache.py): initialize, `session/new`,
and a turn when a prompt is given; what it saw at each step. The agent runs with `home` as its
home (agent_cache.agent_home) and writes its stderr to `agent-stderr.txt` there."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_codegen._bindings import Client
from acp_codegen._bindings._runtime.transports.stdio import AgentProcess
from acp_codegen._bindings._runtime.wire.jsonvalue import JsonObject

from .agent_cache import agent_home

# Only turns a hang into a failure, never a statement about speed: a real agent starts slowly
# (fast-agent takes seconds to import) on a machine shared with other test workers.
HANG_GUARD = 300.0


class V1Client(Client):
    """Offers v1 only, as today's editors do."""

    protocol_versions = (1,)


@dataclass
class Seen:
    version: int | None
    agent_info: Any
    after_new: dict[str, Any]  # the snapshot right after `session/new` answered
    stop: str | None  # the turn's stop reason (None without a prompt)
    after_turn: dict[str, Any]
    exit_code: int


async def spawned(client: Client, argv: list[str], cwd: Path, home: Path) -> AgentProcess:
    env = agent_home(home)
    with (home / "agent-stderr.txt").open("ab") as stderr:  # the child keeps its own copy
        return await client.spawn(argv, env=env, cwd=cwd, stderr=stderr)


def drive(
    argv: list[str],
    cwd: Path,
    home: Path,
    *,
    client: type[Client] = Client,
    prompt: str | None = None,
) -> Seen:
    """Start the agent in `cwd`, open a session there and run one turn of `prompt`."""

    async def scenario() -> Seen:
        ours = client()
        process = await spawned(ours, argv, cwd, home)
        try:
            await ours.lifecycle.initialize()
            session = await ours.lifecycle.new_session(cwd=str(cwd))
            after_new = dict(session.snapshot())
            stop = None
            if prompt is not None:
                stop = await session.run_turn([{"type": "text", "text": prompt}])
            after_turn = dict(session.snapshot())
        finally:
            exit_code = await process.close()
        side = ours.lifecycle
        return Seen(side.protocol_version, side.agent_info, after_new, stop, after_turn, exit_code)

    return asyncio.run(asyncio.wait_for(scenario(), HANG_GUARD))


def texts(snapshot: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each message as (role, its text)."""
    return [
        (m["role"], "".join(b.get("text", "") for b in m["content"])) for m in snapshot["messages"]
    ]


def reloaded(
    argv: list[str],
    cwd: Path,
    home: Path,
    prompts: list[str],
    *,
    client: type[Client] = Client,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A session's snapshot after a turn of each prompt, and after `session/load` of that same
    session on the same connection (the agent replays its history before answering)."""

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        ours = client()
        process = await spawned(ours, argv, cwd, home)
        try:
            await ours.lifecycle.initialize()
            session = await ours.lifecycle.new_session(cwd=str(cwd))
            for prompt in prompts:
                await session.run_turn([{"type": "text", "text": prompt}])
            before = dict(session.snapshot())
            again = await ours.lifecycle.load_session(session.session_id, cwd=str(cwd))
            return before, dict(again.snapshot())
        finally:
            await process.close()

    return asyncio.run(asyncio.wait_for(scenario(), HANG_GUARD))


def first_answer(
    argv: list[str], cwd: Path, home: Path, request: Mapping[str, object]
) -> JsonObject:
    """The agent's answer to `request` (id 0) sent as its first line, read off the wire as is:
    what it says, before any client of ours reads it."""

    async def scenario() -> JsonObject:
        env = agent_home(home)
        with (home / "agent-stderr.txt").open("ab") as stderr:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=stderr,
                cwd=cwd,
                env=env,
                limit=1 << 24,
            )
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 0, **request}).encode() + b"\n")
            while line := await process.stdout.readline():
                message = json.loads(line)
                if isinstance(message, dict) and message.get("id") == 0:
                    answer: JsonObject = message
                    return answer
            raise AssertionError("the agent closed its output without answering")
        finally:
            process.stdin.close()
            await process.wait()

    return asyncio.run(asyncio.wait_for(scenario(), HANG_GUARD))
