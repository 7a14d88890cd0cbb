"""The official TypeScript SDK (@agentclientprotocol/sdk 2.4.0, its v2 API) against our code:
its client drives the example agent and a scaffolded agent through the session surface, and our
generated Client drives an agent written with its agent API. The SDK validates everything it
receives with its own schemas (always on), so a message of ours it does not accept fails here.

The SDK is installed once into a cache outside the repository (sdk_cache.py); without node, npm
or the registry these tests skip, saying why, except in CI (CI=true), where they fail."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from .surface import (
    DEMO_AGENT,
    DEMO_REPLY,
    SCAFFOLDED_AGENT,
    SCAFFOLDED_REPLY,
    assert_session_surface,
    our_client_turn,
    summary_of,
)

pytestmark = pytest.mark.network  # installs the SDK from its registry once (then cached)

HERE = Path(__file__).resolve().parent
SUBAGENT_AGENT = [sys.executable, str(HERE / "subagent_cancel_agent.py")]
TS_CLIENT, TS_AGENT = HERE / "ts_client.mjs", HERE / "ts_agent.mjs"


def ts_client(ts_prefix: Path, cwd: Path, agent: list[str]) -> list[str]:
    return ["node", str(TS_CLIENT), str(ts_prefix), str(cwd), "--", *agent]


def test_the_ts_client_drives_the_example_agent(ts_prefix: Path, tmp_path: Path) -> None:
    summary = summary_of(ts_client(ts_prefix, tmp_path, DEMO_AGENT))
    assert summary["agentName"] == "acp-codegen-demo-agent"
    assert_session_surface(summary, tmp_path, reply=DEMO_REPLY)
    # The example agent titles the session with its first prompt.
    assert summary["listed"]["sessions"][0]["title"] == "count these four words"


def test_the_ts_client_drives_a_scaffolded_agent(
    ts_prefix: Path, scaffolded: Path, tmp_path: Path
) -> None:
    argv = ts_client(ts_prefix, tmp_path, SCAFFOLDED_AGENT)
    summary = summary_of(argv, PYTHONPATH=str(scaffolded / "src"))
    assert summary["agentName"] == "my-agent"
    assert_session_surface(summary, tmp_path, reply=SCAFFOLDED_REPLY)


def test_our_client_drives_an_agent_written_with_the_ts_sdk(
    ts_prefix: Path, tmp_path: Path
) -> None:
    our_client_turn(["node", str(TS_AGENT), str(ts_prefix)], tmp_path)


def test_the_ts_client_of_2_4_0_takes_the_replay_complete_of_a_resume(
    ts_prefix: Path, tmp_path: Path
) -> None:
    """Our agent ends a `replayFrom` replay with `replay_complete` (upstream after 2.4.0); the
    2.4.0 SDK, which predates it, reads it through its open update union without complaint."""
    argv = ["node", str(HERE / "ts_resume_client.mjs"), str(ts_prefix), str(tmp_path)]
    summary = summary_of([*argv, "--", *DEMO_AGENT])
    assert summary["sdkErrors"] == []
    assert summary["resumed"] == {}
    assert summary["updates"][-1] == "replay_complete"
    assert summary["updates"].count("replay_complete") == 1
    assert summary["agentExitCode"] == 0


def test_the_ts_client_of_2_4_0_cancels_a_child_sessions_work_alone(
    ts_prefix: Path, tmp_path: Path
) -> None:
    """The 2.4.0 SDK names a child session (a subagent that offers `cancel`) in
    `session/cancel`: the child's work ends `cancelled`, its parent's goes on and ends on its
    own, saying how the child's ended."""
    argv = ["node", str(HERE / "ts_subagent_client.mjs"), str(ts_prefix), str(tmp_path)]
    summary = summary_of([*argv, "--", *SUBAGENT_AGENT])
    assert summary["sdkErrors"] == []
    updates = [tuple(update) for update in summary["updates"]]
    assert ("parent", "subagent_update", summary["childId"]) in updates
    child = [(tag, detail) for whose, tag, detail in updates if whose == "child"]
    assert child[0] == ("state_update", "running ")
    assert child[-1] == ("state_update", "idle cancelled")
    assert updates[-2:] == [
        ("parent", "agent_message", "the helper ended: cancelled"),
        ("parent", "state_update", "idle end_turn"),
    ]
    assert summary["agentExitCode"] == 0
