"""An agent under a production server: the example agent's `web_app` factory run by aiohttp's
own runner (`python -m aiohttp.web`, the command docs/remote.md gives), reached by our client
with its token; without ACP_TOKEN the factory refuses to build an unauthenticated app."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from tests.remote.agents import demo_turn, run
from tests.remote.processes import AIOHTTP_LISTENING, served_process

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TOKEN = "production-token-42"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def aiohttp_web(port: int) -> list[str]:
    return [sys.executable, "-m", "aiohttp.web", "-H", "127.0.0.1", "-P", str(port)]


def test_the_example_agent_runs_under_aiohttp_web() -> None:
    port = free_port()
    argv = [*aiohttp_web(port), "demo_agent:web_app", "--public", f"127.0.0.1:{port}"]
    with served_process(argv, token=TOKEN, cwd=str(EXAMPLES), banner=AIOHTTP_LISTENING) as url:
        run(demo_turn(url, {"Authorization": f"Bearer {TOKEN}"}))


def test_without_a_token_the_factory_refuses() -> None:
    argv = [*aiohttp_web(free_port()), "demo_agent:web_app"]
    proc = subprocess.run(
        argv,
        cwd=EXAMPLES,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode != 0
    assert "web_app needs a token, or insecure=True to run without one" in proc.stderr
