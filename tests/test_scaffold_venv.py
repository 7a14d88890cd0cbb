"""A scaffolded project as its author uses it: a fresh venv, `pip install -e ".[test]"` from
the package index, its tests pass, and the installed console script serves turns over pipes.

One venv for the module. Installing needs the index (pydantic, pytest, setuptools for the
build): without one the module skips, saying so. Nothing else in the suite depends on it
(`-m "not network"` leaves it out)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from acp_codegen.commands.exits import EXIT_OK

pytestmark = pytest.mark.network

NAME, PACKAGE = "venv-agent", "venv_agent"
# What pip says when it cannot reach an index (as opposed to a broken project).
OFFLINE_SIGNS = (
    "NewConnectionError",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "ProxyError",
    "No matching distribution found",
    "Could not find a version that satisfies",
)


def run(argv: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        env={**os.environ, **env},
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the project folder, the bin folder of its venv with the project installed editable)."""
    root = tmp_path_factory.mktemp("scaffold-venv")
    made = run([sys.executable, "-m", "acp_codegen", "new", "agent", NAME, "-q"], root)
    assert made.returncode == EXIT_OK, made.stderr
    folder = root / NAME
    venv = folder / ".venv"
    created = run([sys.executable, "-m", "venv", str(venv)], folder)
    if created.returncode != 0:
        pytest.skip(f"cannot create a venv with pip: {created.stderr.strip()}")
    bin_dir = venv / "bin"
    pip = [str(bin_dir / "python"), "-m", "pip", "--disable-pip-version-check"]
    installed = run([*pip, "install", "-q", "-e", ".[test]"], folder)
    output = installed.stdout + installed.stderr
    if installed.returncode != 0 and any(sign in output for sign in OFFLINE_SIGNS):
        pytest.skip(f"pip cannot reach a package index: {output.strip()[-300:]}")
    assert installed.returncode == 0, output
    return folder, bin_dir


def test_its_tests_pass_in_a_fresh_venv(project: tuple[Path, Path]) -> None:
    folder, bin_dir = project
    proc = run([str(bin_dir / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"], folder)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "5 passed" in proc.stdout


def test_mypy_passes_after_the_documented_install(
    project: tuple[Path, Path], mypy_cache: Path
) -> None:
    """The README's `mypy src tests` after its `pip install -e ".[test]"`: the vendored
    bindings' remote transports import aiohttp (and yarl), which the test extra must bring.
    The command as written; its cache kept between runs (mypy checks it against the sources)."""
    folder, bin_dir = project
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert ".venv/bin/python -m mypy src tests" in readme
    proc = run(
        [str(bin_dir / "python"), "-m", "mypy", "src", "tests"],
        folder,
        MYPY_CACHE_DIR=str(mypy_cache),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_console_script_serves_turns_over_pipes(project: tuple[Path, Path]) -> None:
    """The project's tests again, against the installed console script instead of python -m."""
    folder, bin_dir = project
    script = bin_dir / NAME
    assert script.is_file()
    proc = run(
        [str(bin_dir / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        folder,
        AGENT_COMMAND=str(script),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "5 passed" in proc.stdout
    shown = run([str(script), "--help"], folder)
    assert shown.returncode == 0 and "--slow SECONDS" in shown.stdout


def test_chat_talks_to_it_as_its_readme_says(project: tuple[Path, Path]) -> None:
    """The README's chat line, run where the project is, with acp-codegen from elsewhere."""
    folder, _ = project
    line = f'acp-codegen chat --prompt "count these words" --approve -- .venv/bin/{NAME}'
    assert line in (folder / "README.md").read_text(encoding="utf-8")
    argv = [sys.executable, "-m", "acp_codegen", "chat", "--prompt", "count these words"]
    proc = run([*argv, "--approve", "--", f".venv/bin/{NAME}"], folder)
    assert proc.returncode == EXIT_OK, proc.stdout + proc.stderr
    assert "3 words" in proc.stdout and "[turn ended: end_turn]" in proc.stdout


def test_a_wheel_of_it_carries_the_bindings(project: tuple[Path, Path], tmp_path: Path) -> None:
    """A non-editable install gets the whole package, vendored bindings and py.typed markers."""
    folder, bin_dir = project
    pip = [str(bin_dir / "python"), "-m", "pip", "--disable-pip-version-check"]
    built = run([*pip, "wheel", "-q", "--no-deps", "-w", str(tmp_path), "."], folder)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in (
        f"{PACKAGE}/agent.py",
        f"{PACKAGE}/py.typed",
        f"{PACKAGE}/acp/__init__.py",
        f"{PACKAGE}/acp/py.typed",
        f"{PACKAGE}/acp/_runtime/rpc/connection.py",
    ):
        assert name in names, name
    assert not any(name.startswith("tests/") for name in names)
