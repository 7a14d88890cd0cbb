"""Two agent processes behind HAProxy (Debian's package) with cookie-based session affinity,
the configuration docs/remote.md gives: the proxy inserts a cookie naming the backend on the
first answer, clients send it back (the TS SDK's cookie store, our client's jar), and every
later request of that connection goes to the same process."""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.interop.sdk_cache import unavailable
from tests.remote.processes import served_process

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


@contextlib.contextmanager
def behind_haproxy(token: str) -> Iterator[Cluster]:
    haproxy = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin")
    if haproxy is None:
        unavailable("haproxy is not installed (Debian: apt-get install haproxy)")
    # The proxy's socket is ours, listening before anything starts: no wait for readiness.
    with socket.socket() as listener, contextlib.ExitStack() as stack:
        listener.bind(("127.0.0.1", 0))
        listener.listen(512)
        port = listener.getsockname()[1]
        public = ["--public", f"127.0.0.1:{port}"]
        processes: dict[str, subprocess.Popen[str]] = {}
        addresses: dict[str, str] = {}
        for name in ("a", "b"):
            argv = [*DEMO, "--http", "127.0.0.1:0", *public]
            url = stack.enter_context(served_process(argv, token=token, keep=processes, name=name))
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
            proxy.wait(10)
