"""The bearer token of `chat --url` comes from `ACP_TOKEN`, as the server reads it: nothing
secret on the command line (which every local user can read in /proc/PID/cmdline), and the
token never shown in what chat prints or records (`-v`, `--trace`, error messages)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.chat.test_chat_prompt import DEMO, REPO
from tests.remote.processes import served_process

TOKEN = "env-token-7c1d0f4e9a"


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    with served_process([*DEMO, "--http", "127.0.0.1:0"], token=TOKEN) as url:
        yield url


def chat(*args: str, token: str | None) -> tuple[list[str], subprocess.CompletedProcess[str]]:
    """`python -m acp_codegen chat ARGS` with `ACP_TOKEN` set to `token` (None: unset); the
    argv it ran with, and what it did."""
    argv = [sys.executable, "-m", "acp_codegen", "chat", *args]
    env = {key: value for key, value in os.environ.items() if key != "ACP_TOKEN"}
    if token is not None:
        env["ACP_TOKEN"] = token
    proc = subprocess.run(
        argv,
        cwd=REPO,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
        env=env,
    )
    return argv, proc


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_the_token_from_the_environment_reaches_the_agent_and_is_shown_nowhere(
    demo_url: str, scheme: str, tmp_path: Path
) -> None:
    trace = tmp_path / "chat.trace.jsonl"
    url = scheme + demo_url.removeprefix("http")
    argv, proc = chat(
        "-v", "--prompt", "hello", "--approve", "--trace", str(trace), "--url", url, token=TOKEN
    )
    assert proc.returncode == 0, proc.stderr
    assert "agent: hello\n" in proc.stdout
    assert TOKEN not in " ".join(argv)  # what /proc/PID/cmdline shows every local user
    assert TOKEN not in proc.stdout + proc.stderr
    recorded = trace.read_text()
    assert '"method":"initialize"' in recorded and TOKEN not in recorded


def test_an_explicit_authorization_header_wins_over_the_environment(demo_url: str) -> None:
    _, proc = chat(
        "--prompt", "hi", "--url", demo_url, "--header", "Authorization: Bearer nope", token=TOKEN
    )
    assert proc.returncode == 2
    assert "HTTP 403" in proc.stderr and "Traceback" not in proc.stderr


def test_without_the_token_the_refusal_says_where_to_put_it(demo_url: str) -> None:
    _, proc = chat("--prompt", "hi", "--url", demo_url, token=None)
    assert proc.returncode == 2
    assert "HTTP 401" in proc.stderr and "set ACP_TOKEN" in proc.stderr


def test_a_token_with_a_line_break_is_refused_without_quoting_it(demo_url: str) -> None:
    _, proc = chat("--prompt", "hi", "--url", demo_url, token="half\r\nX-Injected: yes")
    assert proc.returncode == 2
    assert "$ACP_TOKEN holds a control character" in proc.stderr
    assert "half" not in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_a_token_in_the_url_is_not_repeated_in_errors(scheme: str) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"{scheme}://user:pw-secret@127.0.0.1:{port}/acp?token=query-secret"
    _, proc = chat("--prompt", "hi", "--url", url, token=None)
    assert proc.returncode == 2
    assert f"cannot reach {scheme}://127.0.0.1:{port}/acp" in proc.stderr
    assert "secret" not in proc.stderr and "Traceback" not in proc.stderr


def test_a_bad_header_is_refused_without_quoting_its_value() -> None:
    _, proc = chat(
        "--prompt", "hi", "--url", "http://x/", "--header", "Authorization: a\rb-secret", token=None
    )
    assert proc.returncode == 2
    assert "write it as 'Name: value'" in proc.stderr and "secret" not in proc.stderr


def test_an_agent_chat_starts_does_not_inherit_the_token() -> None:
    """The token is for the agent at --url: a local agent (and every command it asks chat to
    run, which gets chat's environment) never sees it. This one only prints what it got."""
    tell = "import os, sys; print('seen:', os.environ.get('ACP_TOKEN', 'nothing'), file=sys.stderr)"
    _, proc = chat("-v", "--prompt", "hi", "--", sys.executable, "-c", tell, token=TOKEN)
    assert "seen: nothing" in proc.stderr  # -v passes the agent's stderr through
    assert TOKEN not in proc.stderr + proc.stdout
