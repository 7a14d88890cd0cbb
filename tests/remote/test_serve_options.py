"""`--http` on the example agent and a scaffolded one (`--public`, `--insecure`, ACP_TOKEN,
the limits on detached sessions): what each refuses, in one line and exit 2, before anything
listens; that a refused address becomes served once a token or `--insecure` says so; and that
`--max-detached-sessions` reaches the served agent."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from tests.remote.agents import AllowingClient, RpcError, demo_turn, run
from tests.remote.processes import served_process

DEMO = [sys.executable, str(Path(__file__).resolve().parents[2] / "examples" / "demo_agent.py")]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--http", "0.0.0.0:0"], "refusing to listen on 0.0.0.0"),
        (["--http", "nonsense"], "'nonsense' is not HOST:PORT"),
        (["--http", "127.0.0.1:0", "--public", "x"], "'x' is not HOST:PORT"),
        (["--insecure"], "--insecure and --public only apply with --http"),
        (["--public", "proxy:443"], "--insecure and --public only apply with --http"),
        (["--max-detached-bytes", "5"], "the limits on detached sessions only apply with --http"),
        (
            ["--http", "127.0.0.1:0", "--max-detached-sessions", "0"],
            "RemoteLimits.max_detached_sessions must be positive",
        ),
        (["--http", "127.0.0.1:0", "--detached-session-idle", "soon"], "invalid float value"),
    ],
)
def test_refused_before_listening(args: list[str], said: str) -> None:
    proc = subprocess.run(
        [*DEMO, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 2, proc.stderr
    assert said in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("how", [{"token": "t0ken"}, {"insecure": True}])
def test_any_address_is_served_with_a_token_or_insecure(how: dict[str, object]) -> None:
    token = how.get("token")
    argv = [*DEMO, "--http", "0.0.0.0:0", *(["--insecure"] if how.get("insecure") else [])]
    with served_process(argv, token=None if token is None else str(token)) as url:
        local = url.replace("0.0.0.0", "127.0.0.1")
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        run(demo_turn(local, headers))


def test_max_detached_sessions_reaches_the_served_agent() -> None:
    async def departed(url: str) -> str:
        client = AllowingClient()
        remote = await client.connect(url)
        try:
            await client.lifecycle.initialize()
            return (await client.lifecycle.new_session(cwd="/tmp")).session_id
        finally:
            await remote.close()

    async def listed(client: AllowingClient) -> list[str]:
        page = await client.lifecycle.list_sessions()
        return [info["sessionId"] for info in page["sessions"]]

    async def scenario(url: str) -> None:
        first, second = await departed(url), await departed(url)
        client = AllowingClient()
        remote = await client.connect(url)
        try:
            await client.lifecycle.initialize()
            # The agent detaches a session in a task once its connection ended: look again
            # until the second one is (the run's guard bounds it).
            while await listed(client) != [second]:
                await asyncio.sleep(0.01)
            with pytest.raises(RpcError, match="Session expired"):
                await client.lifecycle.resume_session(first, "/tmp")
        finally:
            await remote.close()

    with served_process([*DEMO, "--http", "127.0.0.1:0", "--max-detached-sessions", "1"]) as url:
        run(scenario(url))
