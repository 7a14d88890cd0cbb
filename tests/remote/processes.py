"""An agent process serving `--http` on a free port: started, its URL read from the line it
prints when listening, stopped (SIGTERM, then SIGKILL) afterwards."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
from collections.abc import Iterator

LISTENING = re.compile(r"serving ACP on (http://\S+)")
START_GUARD = 60.0  # only turns a hang into a failure


@contextlib.contextmanager
def served_process(
    argv: list[str], *, token: str | None = None, env: dict[str, str] | None = None
) -> Iterator[str]:
    """Run `argv` (which must include `--http HOST:0` or a port) and yield its URL."""
    environment = {**os.environ, **(env or {})}
    environment.pop("ACP_TOKEN", None)
    if token is not None:
        environment["ACP_TOKEN"] = token
    process = subprocess.Popen(
        argv, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=environment
    )
    try:
        yield _url_of(process)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        assert process.stderr is not None
        process.stderr.close()


def _url_of(process: subprocess.Popen[str]) -> str:
    assert process.stderr is not None
    seen: list[str] = []
    for line in process.stderr:
        found = LISTENING.search(line)
        if found:
            _drain_in_background(process)
            return found.group(1)
        seen.append(line)
    raise AssertionError(f"the agent exited before listening: {''.join(seen[-20:])}")


def _drain_in_background(process: subprocess.Popen[str]) -> None:
    """Keep reading stderr so the agent never blocks on a full pipe."""
    import threading

    assert process.stderr is not None
    stream = process.stderr
    threading.Thread(target=lambda: [None for _ in stream], daemon=True).start()
