"""claude-agent-acp (npm, pinned in agent_cache.py) as a peer: a v2 agent built on the TypeScript
SDK 2.4.0 that opens a session without a model service or a login. Its `session/new` answer
carries what the session starts with (its options and slash commands), sent nowhere else; a
prompt is taken and the turn ends at once in an error, for want of a login."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from .agent_cache import CLAUDE_AGENT, CLAUDE_AGENT_VERSION, agent_home
from .real_drive import HANG_GUARD, V1Client, drive, texts

pytestmark = pytest.mark.network  # installs the agent from its registry once (then cached)


def test_our_client_opens_a_v2_session_with_claude_agent_acp(
    claude_agent_argv: list[str], tmp_path: Path
) -> None:
    seen = drive(claude_agent_argv, tmp_path, tmp_path / "home")
    assert seen.version == 2
    assert seen.agent_info["name"] == CLAUDE_AGENT
    assert seen.agent_info["version"] == CLAUDE_AGENT_VERSION
    assert seen.after_new["messages"] == [] and seen.after_new["unknown"] == []
    assert seen.exit_code == 0  # it ends when we close its stdin


def test_over_v1_claude_agent_acps_session_new_answer_is_folded(
    claude_agent_argv: list[str], tmp_path: Path
) -> None:
    # It speaks v1 too: there the options of its answer are in the snapshot (its commands come
    # in an update after the answer). Our v1 client advertises boolean options (it folds them
    # as v2 does), so it sends its two booleans as booleans, not the on/off selects it gives a
    # client that does not (tests/interop/test_v1_interop.py shows that degraded form).
    seen = drive(claude_agent_argv, tmp_path, tmp_path / "home", client=V1Client)
    assert seen.version == 1 and seen.agent_info["version"] == CLAUDE_AGENT_VERSION
    options = {option["configId"]: option for option in seen.after_new["configOptions"]}
    assert list(options) == ["mode", "model", "effort", "fast", "ultracode"]
    fast = options["fast"]
    assert (fast["type"], fast["currentValue"]) == ("boolean", False)


def test_claude_agent_acps_session_new_answer_is_folded(
    claude_agent_argv: list[str], tmp_path: Path
) -> None:
    seen = drive(claude_agent_argv, tmp_path, tmp_path / "home")
    options = {option["configId"]: option for option in seen.after_new["configOptions"] or []}
    assert list(options) == ["mode", "model", "effort", "fast", "ultracode"]
    assert options["mode"]["category"] == "mode" and options["mode"]["type"] == "select"
    assert options["fast"]["type"] == "boolean" and options["fast"]["currentValue"] is False
    names = {command["name"] for command in seen.after_new["availableCommands"] or []}
    assert {"compact", "init", "code-review"} <= names


def test_a_turn_with_claude_agent_acp_offline_ends_in_error(
    claude_agent_argv: list[str], tmp_path: Path
) -> None:
    # Without a login it takes the prompt (the receipt names the user message it reports),
    # announces its commands, and goes idle at once with `error` (-32000 "Authentication
    # required" in the state update).
    seen = drive(claude_agent_argv, tmp_path, tmp_path / "home", prompt="hello")
    assert seen.stop == "error" and seen.exit_code == 0
    after = seen.after_turn
    assert after["state"] == "idle" and after["stopReason"] == "error"
    assert texts(after) == [("user", "hello")]
    names = {command["name"] for command in after["availableCommands"]}
    assert {"compact", "init", "code-review"} <= names
    assert after["unknown"] == []


def test_chats_slash_help_lists_claude_agent_acps_commands(
    claude_agent_argv: list[str], tmp_path: Path
) -> None:
    # A user in a terminal opens a chat with it and asks for the commands before any turn:
    # the only place they were sent is the session/new answer.
    pexpect = pytest.importorskip("pexpect")
    env = {**agent_home(tmp_path / "home"), "TERM": "xterm-256color", "LANG": "C.UTF-8"}
    child = pexpect.spawn(
        sys.executable,
        ["-m", "acp_codegen", "chat", "--cwd", str(tmp_path), "--", *claude_agent_argv],
        cwd=str(tmp_path),
        dimensions=(40, 200),
        encoding="utf-8",
        timeout=HANG_GUARD,
        env=env,
    )
    try:
        child.expect("session open in")
        child.expect(r"(?<!-)> ")
        child.sendline("/?")
        listed = child.expect([r"/compact  ", r"the agent lists no commands"])
    finally:
        child.sendeof()
        child.expect(pexpect.EOF)
        child.close()
    assert listed == 0
