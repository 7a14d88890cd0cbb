"""`acp-codegen inspect` on the command line: what it refuses, in one line with exit 2, and the
warning it gives before serving beyond this machine."""

from __future__ import annotations

import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from .conftest import DEMO, REPO, StartInspector


def inspect(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_codegen", "inspect", "--no-open", *args],
        cwd=REPO, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120,
        check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ((), "give the agent's command after --"),
        (("--trace", "t.jsonl", "--", "agent"), "either --trace FILE or an agent command"),
        (("--port", "70000", "--", "agent"), "--port 70000: not a port number"),
        (("--cwd", "/nonexistent", "--", "agent"), "--cwd /nonexistent: not a directory"),
        (("--trace", "/nonexistent.jsonl"), "--trace /nonexistent.jsonl: No such file"),
        (("--", "/nonexistent/agent"), "cannot start '/nonexistent/agent'"),
        (("--", "cat"), "cat is not an ACP agent"),
        (("--url", "ftp://x/"), "give an http://, https://, ws:// or wss:// URL"),
        (("--url", "http://x/", "--header", "no colon"), "write it as 'Name: value'"),
        (("--header", "A: b", "--", "agent"), "--header only applies with --url"),
        (("--url", "http://x/", "--", "agent"), "either --url or the agent's command"),
        (("--trace", "t.jsonl", "--url", "http://x/"), "either --trace FILE or an agent command"),
    ],
)
def test_refusals_are_one_line_and_exit_2(args: tuple[str, ...], said: str) -> None:
    proc = inspect(*args)
    assert proc.returncode == 2, proc.stderr
    assert said in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_a_port_in_use_is_refused(start_inspector: StartInspector, tmp_path: Path) -> None:
    running = start_inspector("--", *DEMO)
    port = running.base.rsplit(":", 1)[1]
    proc = inspect("--port", port, "--", *DEMO)
    assert proc.returncode == 2 and f"cannot listen on 127.0.0.1:{port}" in proc.stderr


def test_serving_beyond_loopback_warns(start_inspector: StartInspector) -> None:
    inspector = start_inspector("--host", "0.0.0.0", "--", *DEMO)
    assert inspector.url.startswith("http://0.0.0.0:")
    port = inspector.base.rsplit(":", 1)[1]
    for name in ("127.0.0.1", socket.gethostname()):  # a wildcard address: any of our names
        request = urllib.request.Request(
            f"http://{name}:{port}/api/view", headers={"Authorization": f"Bearer {inspector.token}"}
        )
        with urllib.request.urlopen(request, timeout=120) as response:
            assert response.status == 200
    assert inspector.interrupt() == 0
    assert inspector.process.stderr is not None
    assert "other machines can reach this page" in inspector.process.stderr.read()
