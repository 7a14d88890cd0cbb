"""Fixtures of the inspector tests: `acp-codegen inspect` run as a real process, and Debian's
Chromium driven by playwright (skipped with the reason when missing, a failure under CI)."""

from __future__ import annotations

import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest
from interop.sdk_cache import unavailable
from playwright.sync_api import ViewportSize

REPO = Path(__file__).resolve().parents[2]
DEMO = [sys.executable, str(REPO / "examples" / "demo_agent.py")]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
HANG_GUARD = 120.0  # only turns a hang into a failure; never a statement about speed
SCREENSHOTS_ENV = "ACP_INSPECT_SCREENSHOTS"  # set: the tests rewrite docs/inspect-*.png
VIEWPORT: Final = ViewportSize(width=1280, height=800)


@dataclass
class Inspector:
    process: subprocess.Popen[str]
    url: str

    @property
    def base(self) -> str:
        return self.url.split("/?", 1)[0]

    @property
    def token(self) -> str:
        return self.url.rsplit("token=", 1)[1]

    def interrupt(self) -> int:
        """Ctrl-C, as a terminal sends it; returns the exit code."""
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=HANG_GUARD)


def read_url(process: subprocess.Popen[str]) -> str:
    """The page's URL from the first line `inspect` prints, waiting at most HANG_GUARD."""
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(HANG_GUARD):
            process.kill()
            pytest.fail("inspect printed nothing")
    line = process.stdout.readline()
    if "serving on " not in line:
        process.kill()
        _, err = process.communicate(timeout=HANG_GUARD)
        pytest.fail(f"inspect did not start: {line!r} {err!r}")
    return line.split("serving on ", 1)[1].strip()


StartInspector = Callable[..., Inspector]


@pytest.fixture
def start_inspector() -> Iterator[StartInspector]:
    """Start `python -m acp_codegen inspect --no-open ARGS`; stopped with Ctrl-C afterwards."""
    started: list[Inspector] = []

    def start(*args: str, env: dict[str, str] | None = None) -> Inspector:
        process = subprocess.Popen(
            [sys.executable, "-m", "acp_codegen", "inspect", "--no-open", *args],
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
        )
        inspector = Inspector(process, read_url(process))
        started.append(inspector)
        return inspector

    yield start
    for inspector in started:
        if inspector.process.poll() is None:
            inspector.interrupt()


# Package scope, not session: playwright's sync API keeps an event loop running in this thread
# while it is open, and every later test that calls asyncio.run would fail.
@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        unavailable(f"{CHROMIUM} is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed (pip install -e '.[test]')")
    profile = tempfile.mkdtemp(prefix="acp-inspect-chromium-")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport=VIEWPORT,
            accept_downloads=True,
        )
        yield context
        context.close()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    from playwright.sync_api import expect

    expect.set_options(timeout=HANG_GUARD * 1000)
    opened = browser.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    opened.close()
    assert errors == [], f"the page's script failed: {errors}"


def screenshot(page: Any, name: str) -> None:
    """Write docs/<name>.png when SCREENSHOTS_ENV asks for it (the committed docs images)."""
    if os.environ.get(SCREENSHOTS_ENV):
        page.screenshot(path=str(REPO / "docs" / f"{name}.png"))
