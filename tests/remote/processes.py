"""An agent process serving `--http` on a free port: started, its URL read from the line it
prints when listening, stopped (SIGTERM, then SIGKILL) afterwards."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
from collections.abc import Iterator

LISTENING = re.compile(r"serving ACP on (http://\S+)")
AIOHTTP_LISTENING = re.compile(r"Running on (http://\S+)")  # python -m aiohttp.web, on stdout
START_GUARD = 120.0  # only turns a hang into a failure


@contextlib.contextmanager
def served_process(
    argv: list[str],
    *,
    token: str | None = None,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    banner: re.Pattern[str] = LISTENING,
    keep: dict[str, subprocess.Popen[str]] | None = None,
    name: str = "",
) -> Iterator[str]:
    """Run `argv` (which must include `--http HOST:0` or a port) and yield its URL, read from
    the line `banner` matches in its output (stdout and stderr together). `keep[name]` gets
    the process, for a test that kills it."""
    environment = {**os.environ, **(env or {})}
    environment.pop("ACP_TOKEN", None)
    if token is not None:
        environment["ACP_TOKEN"] = token
    environment["PYTHONUNBUFFERED"] = "1"  # the banner must come before the process waits
    process = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        env=environment,
        cwd=cwd,
    )
    if keep is not None:
        keep[name] = process
    try:
        yield _url_of(process, banner)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        assert process.stdout is not None
        process.stdout.close()


def _url_of(process: subprocess.Popen[str], banner: re.Pattern[str]) -> str:
    assert process.stdout is not None
    seen: list[str] = []
    for line in process.stdout:
        found = banner.search(line)
        if found:
            _drain_in_background(process)
            return found.group(1)
        seen.append(line)
    raise AssertionError(f"the agent exited before listening: {''.join(seen[-20:])}")


def _drain_in_background(process: subprocess.Popen[str]) -> None:
    """Keep reading its output so the agent never blocks on a full pipe."""
    import threading

    assert process.stdout is not None
    stream = process.stdout

    def drain() -> None:
        # served_process closes the pipe once the agent is stopped: reading ends there.
        with contextlib.suppress(ValueError, OSError):
            for _ in stream:
                pass

    threading.Thread(target=drain, daemon=True).start()
