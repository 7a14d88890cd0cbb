"""The command's entry point: `main`'s exit code, with the collector frozen for a fast exit."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from acp_codegen.commands import cli
from acp_codegen.commands.exits import EXIT_DIFFERS, EXIT_OK
from conftest import FIXTURE_SCHEMAS


@pytest.fixture
def unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()  # this test process goes on


def test_console_main_returns_mains_code_and_freezes(
    monkeypatch: pytest.MonkeyPatch, unfrozen: None
) -> None:
    monkeypatch.setattr(cli, "main", lambda: 3)
    before = gc.get_freeze_count()
    assert cli.console_main() == 3
    assert gc.get_freeze_count() > before


def test_python_m_generates_and_exits_with_the_commands_codes(tmp_path: Path) -> None:
    schema = FIXTURE_SCHEMAS / "tagged_union.json"
    args = ["--schema", str(schema), "--out", str(tmp_path), "--package", "pkg"]
    run = [sys.executable, "-m", "acp_codegen"]
    generated = subprocess.run([*run, "generate", *args], capture_output=True, text=True)
    assert generated.returncode == EXIT_OK, generated.stderr
    assert (tmp_path / "pkg" / "models.py").read_text(encoding="utf-8").startswith("# Generated")
    (tmp_path / "pkg" / "models.py").write_text("changed\n", encoding="utf-8")
    checked = subprocess.run([*run, "check", *args], capture_output=True, text=True)
    assert checked.returncode == EXIT_DIFFERS, checked.stderr
