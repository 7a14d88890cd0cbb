"""The official TypeScript SDK 2.4.0's remote transports against our remote transports, both
ways: its HTTP (+SSE) and WebSocket clients drive the example agent served with `--http`
through the session scenario (a turn with a permission request, a cancelled turn, list and
close), with a bearer token on; and our client reaches an agent served by its `AcpServer`.

Skipped without node or the SDK locally, failing in CI (sdk_cache.unavailable)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.remote.processes import served_process
from tests.remote.proxy import behind_haproxy

from .sdk_cache import ts_ws
from .surface import (
    DEMO_REPLY,
    HANG_GUARD,
    SCAFFOLDED_AGENT,
    SCAFFOLDED_REPLY,
    assert_session_surface,
    our_client_turn,
)

pytestmark = pytest.mark.network  # installs the SDK from its registry once (then cached)

HERE = Path(__file__).resolve().parent
TS_REMOTE_CLIENT = HERE / "ts_remote_client.mjs"
DEMO = [sys.executable, str(HERE.parents[1] / "examples" / "demo_agent.py")]
TOKEN = "interop-token-1234"


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    with served_process([*DEMO, "--http", "127.0.0.1:0"], token=TOKEN) as url:
        yield url


@pytest.fixture(scope="module")
def scaffolded_url(scaffolded: Path) -> Iterator[str]:
    argv = [*SCAFFOLDED_AGENT, "--http", "127.0.0.1:0"]
    with served_process(argv, token=TOKEN, env={"PYTHONPATH": str(scaffolded / "src")}) as url:
        yield url


def ts_remote_summary(ts_prefix: Path, cwd: Path, url: str, transport: str) -> dict[str, object]:
    argv = ["node", "--experimental-websocket", "--no-warnings", str(TS_REMOTE_CLIENT)]
    argv += [str(ts_prefix), str(cwd), url, transport, TOKEN]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=HANG_GUARD, check=False)
    assert proc.returncode == 0, proc.stderr
    import json

    summary: dict[str, object] = json.loads(proc.stdout.splitlines()[-1])
    return summary


@pytest.mark.parametrize("transport", ["http", "ws"])
def test_the_ts_remote_client_drives_the_example_agent(
    ts_prefix: Path, tmp_path: Path, demo_url: str, transport: str
) -> None:
    url = demo_url if transport == "http" else "ws" + demo_url.removeprefix("http")
    summary = ts_remote_summary(ts_prefix, tmp_path, url, transport)
    summary["agentExitCode"] = 0  # the agent keeps serving other connections: no exit here
    assert summary["agentName"] == "acp-codegen-demo-agent"
    assert_session_surface(summary, tmp_path, reply=DEMO_REPLY)


@pytest.mark.parametrize("transport", ["http", "ws"])
def test_the_ts_remote_client_drives_a_scaffolded_agent(
    ts_prefix: Path, tmp_path: Path, scaffolded_url: str, transport: str
) -> None:
    url = scaffolded_url if transport == "http" else "ws" + scaffolded_url.removeprefix("http")
    summary = ts_remote_summary(ts_prefix, tmp_path, url, transport)
    summary["agentExitCode"] = 0
    assert summary["agentName"] == "my-agent"
    assert_session_surface(summary, tmp_path, reply=SCAFFOLDED_REPLY)


@pytest.mark.parametrize("transport", ["http", "ws"])
def test_a_wrong_token_is_refused(
    ts_prefix: Path, tmp_path: Path, demo_url: str, transport: str
) -> None:
    url = demo_url if transport == "http" else "ws" + demo_url.removeprefix("http")
    argv = ["node", "--experimental-websocket", "--no-warnings", str(TS_REMOTE_CLIENT)]
    argv += [str(ts_prefix), str(tmp_path), url, transport, "not-the-token"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=HANG_GUARD, check=False)
    assert proc.returncode != 0
    if transport == "http":
        assert "ACP initialize failed: 403 Forbidden: wrong token" in proc.stderr


@pytest.fixture(scope="session")
def ws_prefix() -> Path:
    """An npm prefix holding `ws`, which the TS SDK's WebSocket server side needs."""
    return ts_ws()


@pytest.mark.parametrize("transport", ["http", "ws"])
def test_our_client_reaches_an_agent_served_by_the_ts_server(
    ts_prefix: Path, ws_prefix: Path, tmp_path: Path, transport: str
) -> None:
    argv = ["node", str(HERE / "ts_remote_agent.mjs"), str(ts_prefix), str(ws_prefix)]
    with served_process(argv) as url:
        our_client_turn(url if transport == "http" else "ws" + url.removeprefix("http"), tmp_path)


def test_the_ts_http_client_stays_on_one_process_behind_haproxy(
    ts_prefix: Path, tmp_path: Path
) -> None:
    """Two processes, round robin: without the affinity cookie (kept by the SDK's cookie
    store) half of the scenario's requests would reach the process that does not know the
    connection, and fail with 404."""
    with behind_haproxy(TOKEN) as cluster:
        summary = ts_remote_summary(ts_prefix, tmp_path, cluster.url, "http")
    summary["agentExitCode"] = 0
    assert_session_surface(summary, tmp_path, reply=DEMO_REPLY)
