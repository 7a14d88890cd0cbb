"""The official Python SDK pre-release's remote clients against our agents served with
`--http`. Its WebSocket client (`acp.ws`, which needs the `websockets` package) drives the
example agent through the session scenario with a bearer token. Its Streamable HTTP client
(`acp.http`) needs `httpx2[http2]` and is not run here (docs/remote.md, Interoperability).

Skipped without the SDK or a package index locally, failing in CI (sdk_cache.unavailable)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.remote.processes import served_process

from .sdk_cache import cache_root, cached_install, run_install
from .surface import DEMO_AGENT, DEMO_REPLY, assert_session_surface, summary_of
from .test_py_sdk import PY_CLIENT, summarised

pytestmark = pytest.mark.network  # installs the SDK and websockets once (then cached)

WEBSOCKETS_VERSION = "17.4"
TOKEN = "py-sdk-remote-token"


@pytest.fixture(scope="session")
def py_websockets() -> Path:
    """A folder to put on PYTHONPATH holding `websockets` (what `acp.ws` needs)."""

    def installed(folder: Path) -> bool:
        return (folder / f"websockets-{WEBSOCKETS_VERSION}.dist-info").is_dir()

    def install(folder: Path) -> str | None:
        pip = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        spec = f"websockets=={WEBSOCKETS_VERSION}"
        return run_install([*pip, "--no-deps", "--target", str(folder), spec])

    return cached_install(
        cache_root() / "pip" / f"websockets-{WEBSOCKETS_VERSION}", installed, install
    )


@pytest.fixture(scope="module")
def demo_ws_url() -> Iterator[str]:
    with served_process([*DEMO_AGENT, "--http", "127.0.0.1:0"], token=TOKEN) as url:
        yield "ws" + url.removeprefix("http")


def test_the_py_sdk_websocket_client_drives_the_example_agent(
    py_sdk_path: Path, py_websockets: Path, demo_ws_url: str, tmp_path: Path
) -> None:
    pythonpath = os.pathsep.join(str(path) for path in (py_sdk_path, py_websockets))
    argv = [sys.executable, str(PY_CLIENT), str(tmp_path), "--ws", demo_ws_url, TOKEN]
    summary = summary_of(argv, PYTHONPATH=pythonpath)
    summary["protocolVersion"] = summary["initialized"]["protocolVersion"]
    summary["agentName"] = summary["initialized"]["info"]["name"]
    summary["turns"] = [summarised(turn) for turn in summary["turns"]]
    assert summary["agentName"] == "acp-codegen-demo-agent"
    assert_session_surface(summary, tmp_path, reply=DEMO_REPLY)
