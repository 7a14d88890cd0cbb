"""fast-agent (fast-agent-mcp from PyPI, pinned in agent_cache.py) as a peer: a v1 agent built on
the Python SDK 0.12.1 that runs whole turns offline with `--model passthrough` (it answers a
prompt with the prompt's text). Our Client drives it over v1 as an editor does, and offering v2
as it does by default; `acp-codegen chat --prompt` runs a turn with it as a user would.

At a v2 `initialize` fast-agent answers `protocolVersion: 2` with a v1-shaped body (v1's
`agentCapabilities`/`agentInfo`, no `info`) and then refuses v2's `session/new` (no
`mcpServers`) with -32602: issue 36 item 3."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .agent_cache import FAST_AGENT_VERSION, agent_home
from .real_drive import HANG_GUARD, V1Client, drive, first_answer, reloaded, texts

pytestmark = pytest.mark.network  # installs fast-agent from its registry once (then cached)

PROMPT = "hello there"


def test_our_v1_client_runs_a_turn_with_fast_agent(
    fast_agent_argv: list[str], tmp_path: Path
) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    seen = drive(fast_agent_argv, cwd, tmp_path / "home", client=V1Client, prompt=PROMPT)
    assert seen.version == 1
    assert seen.agent_info == {"name": "fast-agent-acp", "version": FAST_AGENT_VERSION}
    # v1's `modes` in the session/new answer, folded as the session's mode option.
    (mode,) = seen.after_new["configOptions"]
    assert (mode["category"], mode["currentValue"]) == ("mode", "agent")
    assert [option["value"] for option in mode["options"]] == ["agent"]
    assert seen.stop == "end_turn" and seen.exit_code == 0
    after = seen.after_turn
    assert after["state"] == "idle" and after["stopReason"] == "end_turn"
    # The user's prompt (kept by the client), then the agent's passthrough of it.
    assert texts(after) == [("user", PROMPT), ("agent", PROMPT)]
    # It titles the session with the prompt, and lists its slash commands after session/new.
    assert after["sessionInfo"]["title"] == PROMPT
    names = [command["name"] for command in after["availableCommands"]]
    assert {"status", "tools", "history", "clear"} <= set(names)
    assert after["toolCalls"] == {} and after["unknown"] == []
    # What it keeps of the session stays in its working folder.
    assert (cwd / ".fast-agent" / "sessions").is_dir()


def test_fast_agent_answers_a_v2_initialize_with_version_2_and_a_v1_body(
    fast_agent_argv: list[str], tmp_path: Path
) -> None:
    # What our client meets when it offers v2 (both names for its info and capabilities, as
    # it sends them): the peer fact behind the two tests below.
    hello = {"name": "raw", "version": "0"}
    params = {"protocolVersion": 2, "info": hello, "capabilities": {}, "clientInfo": hello}
    request = {"method": "initialize", "params": params}
    answer = first_answer(fast_agent_argv, tmp_path, tmp_path / "home", request)
    result = answer["result"]
    assert isinstance(result, dict) and result["protocolVersion"] == 2
    assert {"agentInfo", "agentCapabilities", "authMethods"} <= set(result)
    assert "info" not in result and "capabilities" not in result  # v2's names for them


def test_our_client_offering_v2_still_runs_a_turn_with_fast_agent(
    fast_agent_argv: list[str], tmp_path: Path
) -> None:
    seen = drive(fast_agent_argv, tmp_path, tmp_path / "home", prompt=PROMPT)
    # It cannot speak v2, so the client that also offered v1 must end up speaking v1.
    assert seen.version == 1
    assert seen.stop == "end_turn" and seen.exit_code == 0
    assert texts(seen.after_turn) == [("user", PROMPT), ("agent", PROMPT)]


def test_chat_runs_a_turn_with_fast_agent(fast_agent_argv: list[str], tmp_path: Path) -> None:
    env = agent_home(tmp_path / "home")
    argv = [sys.executable, "-m", "acp_codegen", "chat", "--cwd", str(tmp_path)]
    proc = subprocess.run(
        [*argv, "--prompt", PROMPT, "--", *fast_agent_argv],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=HANG_GUARD,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "fast-agent-acp" in proc.stdout  # the connected line names the agent
    assert f"agent: {PROMPT}\n" in proc.stdout
    assert proc.stdout.endswith("[turn ended: end_turn]\n")


def test_reloading_a_session_held_rebuilds_it_from_fast_agents_replay(
    fast_agent_argv: list[str], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    before, after = reloaded(fast_agent_argv, tmp_path, home, ["one", "two"], client=V1Client)
    held = [("user", "one"), ("agent", "one"), ("user", "two"), ("agent", "two")]
    assert texts(before) == held
    assert texts(after) == held  # the replay rebuilds the history, it does not add to it
