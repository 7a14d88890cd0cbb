"""The README's code examples type-check under `mypy --strict` against the committed package,
and its agent example runs for real, driven by its client example."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

GENERATED = REPO / "generated"
pytestmark = pytest.mark.skipif(
    not (GENERATED / "acp_bindings").is_dir(), reason="generated/acp_bindings is absent"
)


def readme_blocks() -> dict[str, str]:
    """The README's Python blocks, keyed by the first class or call they define."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    named = {}
    for block in blocks:
        match = re.search(r"^class (\w+)", block, flags=re.MULTILINE)
        named[match.group(1) if match else "state"] = block
    return named


def mypy(files: list[Path], cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MYPYPATH": str(GENERATED)}
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), *map(str, files)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd=REPO,
    )


def test_readme_has_the_agent_client_and_state_examples() -> None:
    assert {"EchoAgent", "MyClient", "state"} <= set(readme_blocks())


def test_readme_examples_pass_mypy_strict(tmp_path: Path, mypy_cache: Path) -> None:
    files = [REPO / "examples" / "demo_agent.py"]
    for name, block in readme_blocks().items():
        path = tmp_path / f"readme_{name.lower()}.py"
        path.write_text(block, encoding="utf-8")
        files.append(path)
    proc = mypy(files, mypy_cache)
    assert proc.returncode == 0, proc.stdout + proc.stderr


MISTAKES = """
from acp_bindings import (
    Client,
    ClientSession,
    PermissionRequest,
    Prompt,
    Session,
    SessionState,
    message_text,
    models,
)


async def turn(session: Session, prompt: Prompt) -> None:
    await session.start_tool_call("a", kind="reed")  # MISTAKE value
    await session.start_tool_call("a", knd="read")  # MISTAKE field
    call = await session.start_tool_call("a")
    await call.update(status="done")  # MISTAKE value
    await call.update(locations=[{"path": "/a"}])  # MISTAKE dict, not a model
    await session.update_plan([models.TextContent(text="x")])  # MISTAKE wrong model
    await session.report_usage(1, 2, cost=5)  # MISTAKE type
    await session.agent_message().append(3)  # MISTAKE not a block
    first = prompt.content[0]
    first.bogus  # MISTAKE no such attribute on any block
    snapshot = SessionState().snapshot()
    snapshot["toolcalls"]  # MISTAKE misspelt entity
    message_text(snapshot["messages"][0])
    status: int = snapshot["toolCalls"]["c"]["status"]  # MISTAKE a status is no int
    snapshot["messages"][0]["content"][0]["txt"]  # MISTAKE no such key on any block


async def client_side(client: Client) -> None:
    session = await client.lifecycle.new_session(cwd="/tmp")
    snapshot = session.snapshot()
    snapshot["toolcalls"]  # MISTAKE misspelt entity
    message_text(snapshot["messages"][0])
    status: int = snapshot["toolCalls"]["c"]["status"]  # MISTAKE a status is no int


class TypedClient(Client):
    async def on_permission(
        self, session: ClientSession, request: PermissionRequest
    ) -> models.RequestPermissionOutcome:
        session.snapshot()["toolCalls"]  # a plain ClientSession still overrides the hook
        return models.SelectedPermissionOutcome(option_id="yes")
"""


def test_mistakes_with_the_typed_helpers_are_type_errors(tmp_path: Path, mypy_cache: Path) -> None:
    path = tmp_path / "mistakes.py"
    path.write_text(MISTAKES, encoding="utf-8")
    proc = mypy([path], mypy_cache)
    flagged = {int(n) for n in re.findall(r"mistakes\.py:(\d+): error", proc.stdout)}
    expected = {i for i, line in enumerate(MISTAKES.splitlines(), 1) if "# MISTAKE" in line}
    assert expected <= flagged, proc.stdout
    assert flagged <= expected, proc.stdout  # nothing else is flagged


def test_readme_agent_runs_driven_by_the_readme_client(tmp_path: Path) -> None:
    blocks = readme_blocks()
    agent = tmp_path / "readme_agent.py"
    agent.write_text(blocks["EchoAgent"], encoding="utf-8")
    client = tmp_path / "readme_client.py"
    client.write_text(
        blocks["MyClient"].replace('"-m", "acp_codegen", "demo-agent"', repr(str(agent))),
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(GENERATED)}
    proc = subprocess.run(
        [sys.executable, str(client)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "end_turn user 'hello there'", proc.stdout
    assert "end_turn agent 'hello there (echoed)'" in lines, proc.stdout
