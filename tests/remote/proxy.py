"""Two agent processes behind HAProxy (Debian's package) with cookie-based session affinity,
the configuration docs/remote.md gives: the proxy inserts a cookie naming the backend on the
first answer, clients send it back (the TS SDK's cookie store, our client's jar), and every
later request of that connection goes to the same process."""

from __future__ import annotations

import contextlib
import re
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.interop.sdk_cache import unavailable
from tests.remote.processes import LISTENING, served_process

DEMO = [sys.executable, str(Path(__file__).resolve().parents[2] / "examples" / "demo_agent.py")]
AFFINITY_COOKIE = "ACP_AFFINITY"

CONFIG = """\
global
    maxconn 4096
defaults
    mode http
    option redispatch         # a dead backend's clients go to a live one on reconnecting
    retries 2
    timeout connect 5s
    timeout client 1h         # event streams are long
    timeout server 1h
    timeout tunnel 1h         # WebSocket
frontend acp
    bind fd@{listener}
    default_backend agents
backend agents
    balance roundrobin
    cookie {cookie} insert indirect nocache httponly
    server a {a} cookie a
    server b {b} cookie b
"""


@dataclass
class Cluster:
    url: str  # the proxy's
    backends: dict[str, subprocess.Popen[str]]  # cookie value -> agent process


@dataclass
class Backend:
    """How to start one agent process behind the proxy, which prints its URL (`banner`)."""

    argv: list[str]
    banner: re.Pattern[str] = LISTENING
    cwd: str | None = None


def demo_agent_serving(public: str) -> Backend:
    """The example agent's own server (`--http`), on a free port."""
    return Backend([*DEMO, "--http", "127.0.0.1:0", "--public", public])


@contextlib.contextmanager
def behind_haproxy(
    token: str, backend: Callable[[str], Backend] = demo_agent_serving
) -> Iterator[Cluster]:
    """The proxy in front of two processes `backend(public)` starts, where `public` is the
    proxy's HOST:PORT (the address the agents must accept in `Host`)."""
    haproxy = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin")
    if haproxy is None:
        unavailable("haproxy is not installed (Debian: apt-get install haproxy)")
    # The proxy's socket is ours, listening before anything starts: no wait for readiness.
    with socket.socket() as listener, contextlib.ExitStack() as stack:
        listener.bind(("127.0.0.1", 0))
        listener.listen(512)
        port = listener.getsockname()[1]
        processes: dict[str, subprocess.Popen[str]] = {}
        addresses: dict[str, str] = {}
        for name in ("a", "b"):
            started = backend(f"127.0.0.1:{port}")
            served = served_process(
                started.argv,
                token=token,
                keep=processes,
                name=name,
                banner=started.banner,
                cwd=started.cwd,
            )
            url = stack.enter_context(served)
            addresses[name] = url.removeprefix("http://").rstrip("/")
        config = CONFIG.format(
            listener=listener.fileno(), cookie=AFFINITY_COOKIE, a=addresses["a"], b=addresses["b"]
        )
        proxy = subprocess.Popen(
            [haproxy, "-db", "-f", "/dev/stdin"],
            stdin=subprocess.PIPE,
            pass_fds=[listener.fileno()],
            text=True,
        )
        assert proxy.stdin is not None
        proxy.stdin.write(config)
        proxy.stdin.close()
        try:
            yield Cluster(f"http://127.0.0.1:{port}/", processes)
        finally:
            proxy.send_signal(signal.SIGTERM)
            try:  # a loaded machine may take a while to schedule its exit: that is no failure
                proxy.wait(60)
            except subprocess.TimeoutExpired:
                proxy.kill()
                proxy.wait()
