"""The official Python SDK pre-release's remote transports against ours, both ways:

- its Streamable HTTP client (`acp.http.create_http_stream`) and its WebSocket client
  (`acp.ws.create_websocket_stream`) drive the example agent and a scaffolded agent, served
  with `--http`, through the
  session scenario (a permission allowed, a turn cancelled with its request withdrawn, list,
  close), bearer token on;
- our client runs a turn against an agent written with the SDK and served by the SDK's own
  server (`acp.http.asgi.create_asgi_app`, on uvicorn), over HTTP and over WebSocket.

Its transports need the `http` extra (httpx2, starlette, websockets) and an ASGI server, pinned
and installed into the test cache by sdk_cache.py. Skipped without the SDK or a package index
locally, failing in CI (sdk_cache.unavailable)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.remote.processes import served_process

from .surface import (
    DEMO_AGENT,
    DEMO_REPLY,
    SCAFFOLDED_AGENT,
    SCAFFOLDED_REPLY,
    assert_session_surface,
    our_client_turn,
    summary_of,
)
from .test_py_sdk import PY_AGENT, PY_CLIENT, summarised

pytestmark = pytest.mark.network  # installs the SDK and its http extra once (then cached)

TOKEN = "py-sdk-remote-token"


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    with served_process([*DEMO_AGENT, "--http", "127.0.0.1:0"], token=TOKEN) as url:
        yield url


def sdk_pythonpath(*folders: Path) -> str:
    return os.pathsep.join(str(folder) for folder in folders)


@pytest.fixture(scope="module")
def scaffolded_url(scaffolded: Path) -> Iterator[str]:
    argv = [*SCAFFOLDED_AGENT, "--http", "127.0.0.1:0"]
    with served_process(argv, token=TOKEN, env={"PYTHONPATH": str(scaffolded / "src")}) as url:
        yield url


def py_remote_summary(
    sdk: tuple[Path, Path], cwd: Path, url: str, transport: str
) -> dict[str, Any]:
    """py_sdk_client.py over `transport` ("http" or "ws") against the agent served at `url`."""
    url = url if transport == "http" else "ws" + url.removeprefix("http")
    argv = [sys.executable, str(PY_CLIENT), str(cwd), f"--{transport}", url, TOKEN]
    summary = summary_of(argv, PYTHONPATH=sdk_pythonpath(*sdk))
    summary["protocolVersion"] = summary["initialized"]["protocolVersion"]
    summary["agentName"] = summary["initialized"]["info"]["name"]
    summary["turns"] = [summarised(turn) for turn in summary["turns"]]
    return summary


@pytest.mark.parametrize("transport", ["http", "ws"])
def test_the_py_sdk_remote_clients_drive_the_example_agent(
    py_sdk_path: Path, py_sdk_http_path: Path, demo_url: str, transport: str, tmp_path: Path
) -> None:
    summary = py_remote_summary((py_sdk_path, py_sdk_http_path), tmp_path, demo_url, transport)
    assert summary["agentName"] == "acp-codegen-demo-agent"
    assert_session_surface(summary, tmp_path, reply=DEMO_REPLY)


@pytest.mark.parametrize("transport", ["http", "ws"])
def test_the_py_sdk_remote_clients_drive_a_scaffolded_agent(
    py_sdk_path: Path, py_sdk_http_path: Path, scaffolded_url: str, transport: str, tmp_path: Path
) -> None:
    sdk = (py_sdk_path, py_sdk_http_path)
    summary = py_remote_summary(sdk, tmp_path, scaffolded_url, transport)
    assert summary["agentName"] == "my-agent"
    assert_session_surface(summary, tmp_path, reply=SCAFFOLDED_REPLY)


@pytest.fixture(scope="module")
def py_sdk_served_url(py_sdk_path: Path, py_sdk_http_path: Path) -> Iterator[str]:
    argv = [sys.executable, str(PY_AGENT), "--serve", "127.0.0.1"]
    env = {"PYTHONPATH": sdk_pythonpath(py_sdk_path, py_sdk_http_path)}
    with served_process(argv, env=env) as url:
        yield url


@pytest.mark.parametrize("transport", ["http", "ws"])
def test_our_client_reaches_an_agent_served_by_the_py_sdk_server(
    py_sdk_served_url: str, transport: str, tmp_path: Path
) -> None:
    url = py_sdk_served_url
    our_client_turn(url if transport == "http" else "ws" + url.removeprefix("http"), tmp_path)
