"""The official TypeScript SDK 2.4.0's unstable client API (`unstable_forkSession`,
`unstable_setSessionTitle`, ... : its unstable entries validate those methods with their own
schemas) against an agent made by `acp-codegen new agent --unstable`, as ACP v2 and as v1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .surface import SCAFFOLDED_AGENT, summary_of

pytestmark = pytest.mark.network  # installs the SDK from its registry once (then cached)

TS_UNSTABLE_CLIENT = Path(__file__).resolve().parent / "ts_unstable_client.mjs"


@pytest.fixture(scope="module")
def unstable_agent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project made by `acp-codegen new agent my-agent --unstable` (run from its source)."""
    root = tmp_path_factory.mktemp("scaffold-unstable")
    argv = [sys.executable, "-m", "acp_codegen", "new", "agent", "my-agent", "--unstable", "-q"]
    proc = subprocess.run(argv, cwd=root, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return root / "my-agent"


@pytest.mark.parametrize("version", [2, 1])
def test_the_ts_sdks_unstable_client_calls_are_served(
    version: int, ts_prefix: Path, unstable_agent: Path, tmp_path: Path
) -> None:
    argv = ["node", str(TS_UNSTABLE_CLIENT), str(version), str(ts_prefix), str(tmp_path)]
    summary = summary_of([*argv, "--", *SCAFFOLDED_AGENT], PYTHONPATH=str(unstable_agent / "src"))
    assert summary["sdkErrors"] == []
    assert summary["protocolVersion"] == version
    assert {"fork", "title", "archive", "status"} <= set(summary["capabilities"])
    parent, fork = summary["sessionId"], summary["fork"]["sessionId"]
    assert summary["titled"] == {"title": "Interop"}
    titles = {info["sessionId"]: info.get("title") for info in summary["listed"]["sessions"]}
    assert titles == {parent: "Interop", fork: "Interop (fork)"}  # the agent's fork hook
    assert summary["archived"] == {} and summary["unarchived"] == {}
    (archived,) = summary["onlyArchived"]["sessions"]
    assert archived["sessionId"] == fork and archived["archived"] is True
    assert summary["statusOpen"]["status"] == "open"
    assert summary["statusArchived"] == {"status": "saved"}
    assert summary["agentExitCode"] == 0
