"""The official TypeScript SDK 2.4.0's unstable API (`unstable_forkSession`,
`unstable_setSessionTitle`, ... : its unstable entries validate those methods with their own
schemas) against our code: its client against an agent made by `acp-codegen new agent
--unstable`, as ACP v2 and as v1; our client made with `--unstable` against its agent."""

from __future__ import annotations

import asyncio
import importlib
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .surface import HANG_GUARD, SCAFFOLDED_AGENT, summary_of

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


TS_UNSTABLE_AGENT = Path(__file__).resolve().parent / "ts_unstable_agent.mjs"


def test_our_unstable_client_calls_an_agent_written_with_the_ts_sdk(
    ts_prefix: Path, unstable_agent: Path, tmp_path: Path
) -> None:
    """The typed calls and handlers of bindings made with `--unstable` (the new agent's
    vendored `my_agent.acp`) against the SDK's agent API serving the unstable methods."""
    bindings = import_bindings(unstable_agent / "src")
    models = bindings.models
    statuses: list[Any] = []

    class Client(bindings.Client):  # type: ignore[misc,name-defined]
        async def auth_status_update(self, *, params: Any) -> None:
            statuses.append(params)

    async def scenario() -> dict[str, Any]:
        client = Client()
        process = await client.spawn(["node", str(TS_UNSTABLE_AGENT), str(ts_prefix)])
        try:
            await client.lifecycle.initialize()
            session = await client.lifecycle.new_session(cwd=str(tmp_path))
            agent = client.agent
            named = models.SetSessionTitleRequest(session_id=session.session_id, title=" Named ")
            return {
                "capabilities": client.lifecycle.agent_capabilities,
                "session": session,
                "fork": await agent.session_fork(
                    models.ForkSessionRequest(session_id=session.session_id, cwd=str(tmp_path))
                ),
                "titled": await agent.session_set_title(named),
                "status": await agent.session_status(
                    models.SessionStatusRequest(session_id=session.session_id)
                ),
                "archived": await agent.session_archive(
                    models.ArchiveSessionRequest(session_id=session.session_id)
                ),
                "providers": await agent.providers_list(models.ListProvidersRequest()),
                "auth": await agent.auth_status(models.AuthStatusRequest()),
            }
        finally:
            assert await process.close() in (0, None)

    seen = asyncio.run(asyncio.wait_for(scenario(), HANG_GUARD))
    assert {"fork", "title", "archive", "status"} <= set(seen["capabilities"]["session"])
    assert seen["fork"].session_id == "ts_session_2"
    assert seen["titled"] == models.SetSessionTitleResponse(title="Named")
    info = seen["session"].snapshot()["sessionInfo"]
    assert info is not None and info["title"] == "Named"  # the session_info_update, folded
    assert seen["status"].status == "open"
    assert isinstance(seen["archived"], models.ArchiveSessionResponse)
    (provider,) = seen["providers"].providers
    assert provider.provider_id == "main" and provider.required is True
    assert provider.current is not None and provider.current.api_type == "anthropic"
    assert seen["auth"].state == "authenticated"
    (status,) = statuses  # auth/status_update reached the typed handler
    assert status.state == "authenticated" and status.accounts[0].label == "Interop"


def import_bindings(src: Path) -> ModuleType:
    """`my_agent.acp` from a new agent's source folder (its package, imported here)."""
    sys.path.insert(0, str(src))
    try:
        importlib.invalidate_caches()
        return importlib.import_module("my_agent.acp")
    finally:
        sys.path.remove(str(src))
