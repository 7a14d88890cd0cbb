"""Today's editors speak ACP v1: the official Python SDK's last v1 release (0.12.1) drives the
example agent and a scaffolded agent, written once against our (v2-shaped) author API, through
a turn with an allowed permission request and a turn it cancels, as a v1 client; so does the
official TypeScript SDK 2.4.0 through its main entry, its stable v1 API (ts_v1_client.mjs).
Every update must parse as v1 in the SDK with no complaint, and carry what the author said."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from .surface import DEMO_AGENT, DEMO_REPLY, SCAFFOLDED_AGENT, SCAFFOLDED_REPLY, summary_of

pytestmark = pytest.mark.network  # installs the SDK from its registry once (then cached)

HERE = Path(__file__).resolve().parent
PY_V1_CLIENT = HERE / "py_sdk_v1_client.py"
# What a v1 client may receive; v2's lifecycle reports (state_update, user_message, whole
# messages, content chunks) must never reach it.
V1_TAGS = {
    "agent_message_chunk",
    "agent_thought_chunk",
    "user_message_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
    "session_info_update",
    "usage_update",
    "available_commands_update",
    "config_option_update",
}


def py_v1_client(py_sdk_v1_path: Path, cwd: Path, agent: list[str], *paths: Path) -> dict[str, Any]:
    pythonpath = ":".join(str(path) for path in (py_sdk_v1_path, *paths))
    argv = [sys.executable, str(PY_V1_CLIENT), str(cwd), "--", *agent]
    return summary_of(argv, PYTHONPATH=pythonpath)


def reply_of(updates: list[dict[str, Any]]) -> str:
    chunks = [u for u in updates if u["sessionUpdate"] == "agent_message_chunk"]
    assert len({u.get("messageId") for u in chunks}) <= 1  # one message, its id on every chunk
    return "".join(u["content"]["text"] for u in chunks)


def tool_statuses(updates: list[dict[str, Any]]) -> dict[str, list[str]]:
    statuses: dict[str, list[str]] = {}
    for update in updates:
        if update["sessionUpdate"] in ("tool_call", "tool_call_update") and "status" in update:
            statuses.setdefault(update["toolCallId"], []).append(update["status"])
    return statuses


def assert_v1_surface(summary: dict[str, Any], cwd: Path, name: str, reply: str) -> None:
    assert summary["sdkErrors"] == []
    assert summary["sdkProtocolVersion"] == 1
    initialized = summary["initialized"]
    assert initialized["protocolVersion"] == 1
    assert initialized["agentInfo"]["name"] == name
    assert initialized["agentCapabilities"]["loadSession"] is True
    allowed, cancelled = summary["turns"]
    for turn in (allowed, cancelled):
        assert {u["sessionUpdate"] for u in turn["updates"]} <= V1_TAGS, turn["updates"]
        (first_call,) = [u for u in turn["updates"] if u["sessionUpdate"] == "tool_call"]
        assert first_call["title"] and first_call["kind"] == "read"
    assert allowed["answer"] == {"stopReason": "end_turn"}  # the answer is the turn's end
    assert reply_of(allowed["updates"]) == reply
    assert list(tool_statuses(allowed["updates"]).values()) == [
        ["pending", "in_progress", "completed"]
    ]
    assert any(u["sessionUpdate"] == "plan" for u in allowed["updates"])
    assert any(u["sessionUpdate"] == "agent_thought_chunk" for u in allowed["updates"])
    assert cancelled["answer"] == {"stopReason": "cancelled"}
    assert reply_of(cancelled["updates"]) == ""
    # v1 asks about a tool call: the one the author's request named.
    for asked, turn in zip(summary["permissions"], summary["turns"], strict=True):
        (call,) = [u for u in turn["updates"] if u["sessionUpdate"] == "tool_call"]
        assert asked["toolCallId"] == call["toolCallId"]
        assert asked["options"] == ["allow", "reject"]
        # Its fields are the call's own, which an editor merges into the call it shows: the
        # question ("...?") does not become the call's title.
        assert asked["title"] in (None, call["title"]), (asked, call)
    assert [p["answer"] for p in summary["permissions"]] == ["allow", "cancel"]
    (listed,) = summary["listed"]["sessions"]
    assert (listed["sessionId"], listed["cwd"]) == (summary["sessionId"], str(cwd))
    assert summary["closed"] == {}
    assert summary["agentExitCode"] == 0


def test_the_py_sdk_v1_client_drives_the_example_agent(
    py_sdk_v1_path: Path, tmp_path: Path
) -> None:
    summary = py_v1_client(py_sdk_v1_path, tmp_path, DEMO_AGENT)
    assert_v1_surface(summary, tmp_path, "acp-codegen-demo-agent", DEMO_REPLY)


def test_the_py_sdk_v1_client_drives_a_scaffolded_agent(
    py_sdk_v1_path: Path, scaffolded: Path, tmp_path: Path
) -> None:
    summary = py_v1_client(py_sdk_v1_path, tmp_path, SCAFFOLDED_AGENT, scaffolded / "src")
    assert_v1_surface(summary, tmp_path, "my-agent", SCAFFOLDED_REPLY)


def ts_v1_client(ts_prefix: Path, cwd: Path, agent: list[str]) -> list[str]:
    return ["node", str(HERE / "ts_v1_client.mjs"), str(ts_prefix), str(cwd), "--", *agent]


def test_the_ts_sdk_v1_client_drives_the_example_agent(ts_prefix: Path, tmp_path: Path) -> None:
    summary = summary_of(ts_v1_client(ts_prefix, tmp_path, DEMO_AGENT))
    assert_v1_surface(summary, tmp_path, "acp-codegen-demo-agent", DEMO_REPLY)


def test_the_ts_sdk_v1_client_drives_a_scaffolded_agent(
    ts_prefix: Path, scaffolded: Path, tmp_path: Path
) -> None:
    argv = ts_v1_client(ts_prefix, tmp_path, SCAFFOLDED_AGENT)
    summary = summary_of(argv, PYTHONPATH=str(scaffolded / "src"))
    assert_v1_surface(summary, tmp_path, "my-agent", SCAFFOLDED_REPLY)


def test_the_py_sdk_v1_client_logs_in_and_sets_options(
    py_sdk_v1_path: Path, tmp_path: Path
) -> None:
    """v1's authenticate, session/set_mode, session/set_config_option and logout reach the
    author's v2 hooks (tests/runtime/configured_agent.py), answered in v1's words."""
    agent = [sys.executable, str(HERE.parent / "runtime" / "configured_agent.py")]
    argv = [sys.executable, str(HERE / "py_sdk_v1_renamed_client.py"), str(tmp_path), "--", *agent]
    summary = summary_of(argv, PYTHONPATH=str(py_sdk_v1_path))
    assert summary["sdkErrors"] == []
    initialized = summary["initialized"]
    assert initialized["authMethods"] == [{"id": "browser", "name": "Log in with a browser"}]
    assert initialized["agentCapabilities"]["auth"] == {"logout": {}}
    assert summary["authenticated"] == {} and summary["loggedOut"] == {}
    modes = summary["session"]["modes"]
    assert modes["currentModeId"] == "ask"
    assert [mode["id"] for mode in modes["availableModes"]] == ["ask", "code"]
    assert summary["setMode"] == {}
    # The one boolean option turned on; its answer shows the mode set_mode chose, too.
    (switched,) = summary["switched"]
    values = {option["id"]: option["currentValue"] for option in switched["configOptions"]}
    assert values == {"mode": "code", "verbose": True}
    assert summary["agentExitCode"] == 0


def gated_run(py_sdk_v1_path: Path, cwd: Path, *flags: str) -> dict[str, Any]:
    """The SDK's v1 client (py_sdk_v1_gates_client.py) on the gated agent."""
    agent = [sys.executable, str(HERE.parent / "runtime" / "configured_agent.py"), "--gated"]
    script = str(HERE / "py_sdk_v1_gates_client.py")
    argv = [sys.executable, script, str(cwd), *flags, "--", *agent]
    return summary_of(argv, PYTHONPATH=str(py_sdk_v1_path))


def verbose_in(options: list[dict[str, Any]]) -> dict[str, Any]:
    (verbose,) = [option for option in options if option["id"] == "verbose"]
    return verbose


def test_the_py_sdk_v1_client_gets_only_what_it_advertised(
    py_sdk_v1_path: Path, tmp_path: Path
) -> None:
    """0.12.1 advertises no notices, compactions, terminal logins or boolean options: it is
    sent none of them (a notice would be logged as an unhandled error and dropped), and the
    boolean option comes as a select of "true"/"false", which it can set."""
    summary = gated_run(py_sdk_v1_path, tmp_path)
    assert summary["sdkErrors"] == []
    assert [m["id"] for m in summary["initialized"]["authMethods"]] == ["browser"]
    shown = verbose_in(summary["session"]["configOptions"])
    assert shown["type"] == "select" and shown["currentValue"] == "false"
    assert [value["value"] for value in shown["options"]] == ["true", "false"]
    (switched,) = summary["switched"]
    assert verbose_in(switched["configOptions"])["currentValue"] == "true"
    assert summary["prompted"] == {"stopReason": "end_turn"}
    tags = [update["sessionUpdate"] for update in summary["updates"]]
    assert "notice" not in tags and "compaction_update" not in tags
    (told,) = [u for u in summary["updates"] if u["sessionUpdate"] == "config_option_update"]
    assert verbose_in(told["configOptions"]) == {**shown, "currentValue": "false"}
    assert summary["agentExitCode"] == 0


def test_the_py_sdk_v1_client_gets_boolean_options_once_it_advertises_them(
    py_sdk_v1_path: Path, tmp_path: Path
) -> None:
    summary = gated_run(py_sdk_v1_path, tmp_path, "--boolean")
    assert summary["sdkErrors"] == []
    assert verbose_in(summary["session"]["configOptions"])["type"] == "boolean"
    (switched,) = summary["switched"]
    assert verbose_in(switched["configOptions"])["currentValue"] is True
    (told,) = [u for u in summary["updates"] if u["sessionUpdate"] == "config_option_update"]
    assert verbose_in(told["configOptions"])["currentValue"] is False
