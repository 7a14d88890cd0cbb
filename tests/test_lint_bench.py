"""The benchmarks are project code too: ruff and mypy --strict (project config) on bench/.

mypy needs the official SDK the bench compares against (the `bench` extra); without it that
check is skipped. The generated bindings are found through MYPYPATH, as the bench finds them."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

BENCH = REPO / "bench"


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )


def test_ruff_on_bench() -> None:
    proc = run("ruff", "check", "--no-cache", "bench")
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.skipif(importlib.util.find_spec("acp") is None, reason="bench extra not installed")
@pytest.mark.skipif(not (REPO / "generated" / "acp_bindings").is_dir(), reason="no bindings")
def test_mypy_strict_on_bench(mypy_cache: Path) -> None:
    env = {**os.environ, "MYPYPATH": str(REPO / "generated")}
    proc = run("mypy", "--strict", "--cache-dir", str(mypy_cache), "bench", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
