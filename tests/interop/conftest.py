"""Fixtures of the interop tests: the SDKs and real agents (installed once, cached) and a
scaffolded agent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .agent_cache import claude_agent, fast_agent
from .sdk_cache import PY_SDK_V1_VERSION, py_sdk, py_sdk_http_extra, ts_sdk


@pytest.fixture(scope="session")
def ts_prefix() -> Path:
    """The npm prefix that holds @agentclientprotocol/sdk at the pinned version."""
    return ts_sdk()


@pytest.fixture(scope="session")
def py_sdk_path() -> Path:
    """The folder to put on PYTHONPATH for the Python SDK pre-release."""
    return py_sdk()


@pytest.fixture(scope="session")
def py_sdk_http_path(py_sdk_path: Path) -> Path:
    """The folder to put on PYTHONPATH beside `py_sdk_path` for the pre-release's remote
    transports (`acp.http`, `acp.ws`) and the ASGI server its HTTP server runs on."""
    return py_sdk_http_extra()


@pytest.fixture(scope="session")
def py_sdk_v1_path() -> Path:
    """The folder to put on PYTHONPATH for the Python SDK's last v1 release."""
    return py_sdk(PY_SDK_V1_VERSION)


@pytest.fixture(scope="session")
def scaffolded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project made by `acp-codegen new agent my-agent`, run from its source (PYTHONPATH=src,
    as tests/test_scaffold.py runs it)."""
    root = tmp_path_factory.mktemp("scaffold")
    argv = [sys.executable, "-m", "acp_codegen", "new", "agent", "my-agent", "-q"]
    proc = subprocess.run(argv, cwd=root, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return root / "my-agent"


@pytest.fixture(scope="session")
def fast_agent_argv() -> list[str]:
    """fast-agent at the pinned version as an ACP agent on stdio, answering each prompt with its
    own text (`--model passthrough`: no model service), with no update check (no network)."""
    return [*fast_agent(), "--no-update-check", "acp", "--model", "passthrough"]


@pytest.fixture(scope="session")
def claude_agent_argv() -> list[str]:
    """claude-agent-acp at the pinned version (a v2 agent)."""
    return claude_agent()
