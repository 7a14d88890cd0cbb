"""Static checks: mypy --strict and ruff (project config) on the generator and on generated code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from acp_codegen.commands.cli import main
from conftest import FIXTURE_SCHEMAS, REPO, FixturePackages, GeneratedPackage

GENERATED = REPO / "generated"
COMMITTED = GENERATED / "acp_bindings"
needs_committed = pytest.mark.skipif(
    not COMMITTED.is_dir(), reason="generated/acp_bindings is absent"
)


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def mypy(paths: list[str], cache: Path, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return run("mypy", "--strict", "--cache-dir", str(cache), *paths, cwd=cwd)


@needs_committed
def test_mypy_strict_on_committed_generated(mypy_cache: Path) -> None:
    proc = mypy(["generated/acp_bindings"], mypy_cache)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@needs_committed
def test_ruff_on_committed_generated() -> None:
    proc = run("ruff", "check", "--no-cache", "generated")
    assert proc.returncode == 0, proc.stdout + proc.stderr


@needs_committed
def test_committed_generated_is_up_to_date(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`acp-codegen check` with the project's defaults: what CI runs."""
    monkeypatch.chdir(REPO)
    status = main(["check"])
    captured = capsys.readouterr()
    assert status == 0, captured.out[-4000:] + captured.err


def test_mypy_strict_on_generator(mypy_cache: Path) -> None:
    proc = mypy(["codegen/acp_codegen"], mypy_cache)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_on_generator() -> None:
    proc = run("ruff", "check", "--no-cache", "codegen", "templates")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict_on_generated_fixture_packages(
    tmp_path: Path,
    fixture_packages: FixturePackages,
    canonical: GeneratedPackage,
    mypy_cache: Path,
) -> None:
    """Every construct's output type-checks, not only the canonical schema's (one mypy run)."""
    packages = [fixture_packages[schema.stem] for schema in sorted(FIXTURE_SCHEMAS.glob("*.json"))]
    paths = [str(p.out / p.name) for p in [*packages, canonical]]
    proc = mypy(paths, mypy_cache, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
