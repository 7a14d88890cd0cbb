"""`acp-codegen chat --url URL [--header 'K: V']`: the same one-turn chat against the example
agent served with `--http` (a real process, bearer token on), over Streamable HTTP and over
WebSocket; a missing token, an unreachable URL and bad options are one line and a usage exit."""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.chat.test_chat_prompt import DEMO, chat
from tests.remote.processes import served_process

TOKEN = "chat-url-token-5678"
BEARER = f"Authorization: Bearer {TOKEN}"


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    with served_process([*DEMO, "--http", "127.0.0.1:0"], token=TOKEN) as url:
        yield url


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_an_approved_turn_over_the_network(demo_url: str, scheme: str) -> None:
    url = scheme + demo_url.removeprefix("http")
    proc = chat("--prompt", "hello there", "--approve", "--url", url, "--header", BEARER)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "permission: Inspect the prompt? -> Allow (allow_once)" in out
    assert "agent: hello there\n" in out
    assert out.endswith("[turn ended: end_turn]\n")
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_a_missing_token_is_one_line_that_says_what_to_send(demo_url: str, scheme: str) -> None:
    proc = chat("--prompt", "hello", "--url", scheme + demo_url.removeprefix("http"))
    assert proc.returncode == 2
    assert "HTTP 401" in proc.stderr and "Traceback" not in proc.stderr
    assert "'Authorization: Bearer ...' header" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_a_websocket_with_a_wrong_token_is_one_line(demo_url: str) -> None:
    url = "ws" + demo_url.removeprefix("http")
    proc = chat("--prompt", "hi", "--url", url, "--header", "Authorization: Bearer nope")
    assert proc.returncode == 2
    assert "HTTP 403" in proc.stderr and "Traceback" not in proc.stderr


def test_nobody_listening_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = chat("--prompt", "hi", "--url", f"http://127.0.0.1:{port}/")
    assert proc.returncode == 2
    assert f"cannot reach http://127.0.0.1:{port}/" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--url", "ftp://x/"], "give an http://, https://, ws:// or wss:// URL"),
        (["--url", "http://x/", "--header", "no colon"], "write it as 'Name: value'"),
        (["--header", "A: b", "--", sys.executable], "--header only applies with --url"),
        (["--url", "http://x/", "--", sys.executable], "either --url or the agent's command"),
    ],
)
def test_bad_options_are_usage_errors(args: list[str], said: str) -> None:
    proc = chat("--prompt", "hi", *args)
    assert proc.returncode == 2
    assert said in proc.stderr
