"""The fast tier (`-m "not slow"`) stays fast: a test module that drives something heavy is in
the slow tier, by where it lives or by its own mark (tests/conftest.py says how)."""

from __future__ import annotations

import pytest
from conftest import SLOW_FIXTURES, TESTS, is_slow_path

# What a module's source says when it does something that takes seconds: a terminal
# driven by pexpect, a browser, an official SDK installed and run, a fresh venv (a package
# installed into it), another interpreter claimed by pyproject.
HEAVY = {
    "pexpect.spawn(": "drives a real terminal",
    "sync_playwright": "drives a browser",
    "ts_sdk(": "runs the TypeScript SDK",
    "py_sdk(": "runs the Python SDK",
    '"venv"': "makes a venv",
    "pythons.py": "runs every claimed Python",
}


def heavy_but_fast() -> list[str]:
    """Each test module outside the slow tier that does a HEAVY thing, with what it does."""
    found: list[str] = []
    for path in sorted(TESTS.rglob("test_*.py")):
        if "golden" in path.relative_to(TESTS).parts:
            continue
        source = path.read_text(encoding="utf-8")
        if is_slow_path(path) or "mark.slow" in source:
            continue
        name = path.relative_to(TESTS).as_posix()
        found += [f"{name} {why}" for sign, why in HEAVY.items() if sign in source]
    return found


def test_every_module_that_does_something_heavy_is_in_the_slow_tier() -> None:
    assert heavy_but_fast() == []


def test_the_slow_mark_is_registered_and_marks_are_strict(pytestconfig: pytest.Config) -> None:
    assert any(line.startswith("slow:") for line in pytestconfig.getini("markers"))
    assert "--strict-markers" in pytestconfig.getini("addopts")


def test_slow_by_folder_by_file_and_by_fixture_only() -> None:
    assert is_slow_path(TESTS / "interop" / "test_py_sdk.py")  # a folder
    assert is_slow_path(TESTS / "chat" / "test_chat_terminal.py")  # a file
    assert not is_slow_path(TESTS / "chat" / "test_chat_render.py")
    assert not is_slow_path(TESTS / "runtime" / "test_framing.py")
    assert not is_slow_path(TESTS.parent / "bench" / "run.py")
    assert {"browser", "page", "ts_prefix", "py_sdk_path"} <= SLOW_FIXTURES


def test_this_module_is_in_the_fast_tier(request: pytest.FixtureRequest) -> None:
    assert request.node.get_closest_marker("slow") is None
