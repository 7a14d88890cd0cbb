"""The official TypeScript SDK 2.4.0's v1 client (its unstable entry, whose v1 schemas have
child sessions) against an agent generated with `--unstable` that announces a subagent: told of
the child and its traffic in v1's shape when it advertised `clientCapabilities.subagents`, and
of nothing of the child when it did not; its zod schemas refuse none of it."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.commands.cli import main
from acp_codegen.commands.exits import EXIT_OK
from conftest import REPO
from test_unstable_package import working_in

from .surface import summary_of

pytestmark = pytest.mark.network  # installs the SDK from its registry once (then cached)

HERE = Path(__file__).resolve().parent
CLIENT = HERE / "ts_v1_subagents_client.mjs"
AGENT = HERE / "v1_subagent_agent.py"
PACKAGE = "acp_ts_v1_subagents_pkg"
CHILD_TAGS = {"subagent_update", "session_message", "session_message_chunk"}


@pytest.fixture(scope="module")
def unstable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The folder holding the project's schemas generated with `--unstable`."""
    out = tmp_path_factory.mktemp("ts_v1_subagents")
    with working_in(REPO):
        args = ["generate", "--unstable", "--out", str(out), "--package", PACKAGE, "-q"]
        assert main(args) == EXIT_OK
    yield out


def run_client(follow: bool, ts_prefix: Path, unstable: Path, cwd: Path) -> dict[str, Any]:
    agent = [sys.executable, str(AGENT), str(unstable), PACKAGE]
    argv = ["node", str(CLIENT), "yes" if follow else "no", str(ts_prefix), str(cwd)]
    summary = summary_of([*argv, "--", *agent])
    assert summary["sdkErrors"] == []
    assert summary["protocolVersion"] == 1
    assert summary["answer"] == {"stopReason": "end_turn"}
    assert summary["agentExitCode"] == 0
    return summary


def test_a_ts_v1_client_that_follows_children_gets_them_in_v1s_shape(
    ts_prefix: Path, unstable: Path, tmp_path: Path
) -> None:
    summary = run_client(True, ts_prefix, unstable, tmp_path)
    parent = summary["sessionId"]
    updates = summary["updates"]
    (announce,) = [u for u in updates if u["update"]["sessionUpdate"] == "subagent_update"][:1]
    child = announce["update"]["sessionId"]
    assert announce == {
        "sessionId": parent,
        "update": {
            "sessionUpdate": "subagent_update",
            "sessionId": child,
            "title": "Helper",
            "description": "counts files",
        },
    }
    first_naming_child = min(i for i, u in enumerate(updates) if child in json.dumps(u))
    assert updates[first_naming_child] == announce  # announced before anything names it
    mirrored = [u["update"] for u in updates if u["update"]["sessionUpdate"] == "subagent_update"]
    assert mirrored[-1]["state"] == {"state": "idle", "stopReason": "end_turn"}
    on_child = [u["update"] for u in updates if u["sessionId"] == child]
    said = "".join(
        u["content"]["text"] for u in on_child if u["sessionUpdate"] == "agent_message_chunk"
    )
    assert said == "two files"
    messages = [u["update"] for u in updates if u["update"]["sessionUpdate"] == "session_message"]
    assert {(m["senderSessionId"], m["recipientSessionId"]) for m in messages} == {
        (parent, child),
        (child, parent),
    }


def test_a_ts_v1_client_that_does_not_follow_children_is_told_nothing_of_them(
    ts_prefix: Path, unstable: Path, tmp_path: Path
) -> None:
    summary = run_client(False, ts_prefix, unstable, tmp_path)
    parent = summary["sessionId"]
    updates = summary["updates"]
    assert {u["sessionId"] for u in updates} == {parent}
    assert not [u for u in updates if u["update"]["sessionUpdate"] in CHILD_TAGS]
    said = [u["update"]["content"]["text"] for u in updates if "content" in u["update"]]
    assert said == ["done"]
