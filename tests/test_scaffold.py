"""`acp-codegen new agent`: the names it takes, what it refuses, what it writes, and that the
project it writes works on its own (its tests pass, mypy --strict, its bindings are current).

Installing the project into a fresh venv is in test_scaffold_venv.py (it needs an index)."""

from __future__ import annotations

import ast
import asyncio
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from acp_codegen.commands.cli import main
from acp_codegen.commands.exits import EXIT_OK, EXIT_USAGE
from acp_codegen.commands.scaffold import project as scaffold_project
from acp_codegen.emit.dcg import PYDANTIC_MINIMUM
from conftest import REPO

NAME, PACKAGE = "my-agent", "my_agent"


def tree(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def run(argv: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv,
        cwd=cwd,
        input="",  # a pipe closed at once: an agent started here sees its client leave
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, **env},
    )


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One project made by the command, shared by the tests that only read it."""
    root = tmp_path_factory.mktemp("scaffold")
    proc = run([sys.executable, "-m", "acp_codegen", "new", "agent", NAME, "-q"], root)
    assert proc.returncode == EXIT_OK, proc.stderr
    assert proc.stdout == ""  # --quiet
    return root / NAME


def test_the_project_layout(scaffolded: Path) -> None:
    files = tree(scaffolded)
    own = {name for name in files if not name.startswith(f"src/{PACKAGE}/acp/")}
    assert own == {
        ".gitignore",
        "README.md",
        "pyproject.toml",
        f"src/{PACKAGE}/__init__.py",
        f"src/{PACKAGE}/__main__.py",
        f"src/{PACKAGE}/agent.py",
        f"src/{PACKAGE}/py.typed",
        "tests/agent_client.py",
        "tests/test_agent.py",
    }
    assert f"src/{PACKAGE}/acp/.acp-codegen-manifest.json" in files
    assert f"src/{PACKAGE}/acp/_runtime/rpc/connection.py" in files


REMOTE_MODULES = {
    "http_server",
    "event_stream",
    "ws_server",
    "http_client",
    "ws_client",
    "remote_client",
}


def test_the_project_depends_on_pydantic_only(scaffolded: Path) -> None:
    config = tomllib.loads((scaffolded / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["project"]["name"] == NAME
    assert config["project"]["dependencies"] == [f"pydantic>={PYDANTIC_MINIMUM},<3"]
    assert config["project"]["scripts"] == {NAME: f"{PACKAGE}.__main__:main"}
    # aiohttp only for `--http` (the `http` extra), and for mypy: the project sets up
    # `[tool.mypy]` and its README runs it over the bindings, whose transports import aiohttp.
    assert config["project"]["optional-dependencies"] == {
        "http": ["aiohttp>=3.14,<4"],
        "test": ["pytest>=8", "mypy>=1.10", "aiohttp>=3.14,<4"],
    }
    assert "mypy" in config["tool"]
    imported: set[str] = set()
    for path in scaffolded.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
            if isinstance(node, ast.Import):
                names = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = {node.module.split(".")[0]}
            else:
                continue
            imported |= names
            # Only the remote transports need aiohttp: stdio works without it.
            assert "aiohttp" not in names or path.stem in REMOTE_MODULES, path
    assert "acp_codegen" not in imported and "acp_bindings" not in imported
    third_party = imported - set(sys.stdlib_module_names) - {PACKAGE, "agent_client"}
    # pydantic's own dependencies are fine: installing pydantic brings them.
    # aiohttp and its URL type (yarl, installed with it) only for the remote transports.
    allowed = {"pydantic", "pydantic_core", "typing_extensions", "pytest", "aiohttp", "yarl"}
    assert third_party <= allowed


def test_its_readme_uses_the_venv_by_path_never_activated(scaffolded: Path) -> None:
    """Activating the project's venv would hide the acp-codegen that `chat` runs from."""
    readme = (scaffolded / "README.md").read_text(encoding="utf-8")
    assert "activate" not in readme.replace("not activated", "").replace("activating it", "")
    assert '.venv/bin/pip install -e ".[test]"' in readme
    assert ".venv/bin/python -m pytest" in readme and ".venv/bin/python -m mypy" in readme
    assert f"acp-codegen chat -- .venv/bin/{NAME}" in readme


def test_the_agent_counts_one_word_in_the_singular(scaffolded: Path) -> None:
    agent = [sys.executable, "-m", PACKAGE]
    chat = [sys.executable, "-m", "acp_codegen", "chat", "--prompt", "hello", "--approve"]
    proc = run([*chat, "--", *agent], scaffolded, PYTHONPATH=str(scaffolded / "src"))
    assert proc.returncode == EXIT_OK, proc.stdout + proc.stderr
    assert "  | 1 word\n" in proc.stdout
    assert "agent: Your prompt has 1 word. That is all" in proc.stdout


def test_the_vendored_bindings_are_current_for_the_vendor_command(scaffolded: Path) -> None:
    readme = (scaffolded / "README.md").read_text(encoding="utf-8")
    command = f"acp-codegen vendor --into src/{PACKAGE}/acp --package {PACKAGE}.acp"
    assert f"{command} --check" in readme
    argv = [sys.executable, "-m", "acp_codegen", *command.split()[1:]]
    checked = run([*argv, "--check"], scaffolded)
    assert checked.returncode == EXIT_OK, checked.stdout + checked.stderr
    assert checked.stdout.strip() == f"src/{PACKAGE}/acp: up to date"
    # Regenerating later goes through the writer: nothing changes, nothing is refused.
    again = run([*argv], scaffolded)
    assert again.returncode == EXIT_OK, again.stderr
    assert "(0 written, 0 removed)" in again.stdout


def test_the_projects_own_tests_pass(scaffolded: Path) -> None:
    """Full turn, refused permission and cancelled turn over pipes (not installed: src on the
    path, this interpreter's pydantic and pytest)."""
    proc = run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        scaffolded,
        PYTHONPATH=str(scaffolded / "src"),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "5 passed" in proc.stdout


def test_the_authors_code_passes_mypy_strict_and_ruff(scaffolded: Path, mypy_cache: Path) -> None:
    mypy = run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(mypy_cache), "src", "tests"],
        scaffolded,
    )
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr
    ruff = [sys.executable, "-m", "ruff"]
    lint = run([*ruff, "check", "--no-cache", "."], scaffolded)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    formatted = run([*ruff, "format", "--check", "--no-cache", "."], scaffolded)
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr


def test_the_agent_documents_slow_and_logs_to_stderr_only(scaffolded: Path) -> None:
    src = str(scaffolded / "src")
    shown = run([sys.executable, "-m", PACKAGE, "--help"], scaffolded, PYTHONPATH=src)
    assert shown.returncode == 0 and "--slow SECONDS" in shown.stdout
    # stdin closed at once: the agent starts, logs nothing to stdout, and exits cleanly.
    served = run(
        [sys.executable, "-m", PACKAGE, "--log-level", "DEBUG"], scaffolded, PYTHONPATH=src
    )
    assert served.returncode == 0, served.stderr
    assert served.stdout == ""
    bad = run([sys.executable, "-m", PACKAGE, "--slow", "-1"], scaffolded, PYTHONPATH=src)
    assert bad.returncode == 2 and "--slow" in bad.stderr and "Traceback" not in bad.stderr


def test_scaffolding_is_deterministic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new", "agent", NAME, "--dir", "one", "-q"]) == EXIT_OK
    assert main(["new", "agent", NAME, "--dir", "two", "-q"]) == EXIT_OK
    assert tree(tmp_path / "one") == tree(tmp_path / "two")
    seeded = run(
        [sys.executable, "-m", "acp_codegen", "new", "agent", NAME, "--dir", "three", "-q"],
        tmp_path,
        PYTHONHASHSEED="12345",
    )
    assert seeded.returncode == EXIT_OK, seeded.stderr
    assert tree(tmp_path / "three") == tree(tmp_path / "one")


def test_next_steps_are_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new", "agent", NAME]) == EXIT_OK
    out = capsys.readouterr().out
    for step in (
        f"cd {NAME}",
        "python3 -m venv .venv",
        '.venv/bin/pip install -e ".[test]"',
        ".venv/bin/python -m pytest",
        f"acp-codegen chat -- .venv/bin/{NAME}",
    ):
        assert step in out
    # Activating the project's venv would hide the acp-codegen the chat step runs.
    assert "activate" not in out


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("1agent", "not a Python identifier"),
        ("class", "keyword"),
        ("my.agent", "letters, digits"),
        ("my agent", "letters, digits"),
        ("-agent", "letters, digits"),
        ("agent-", "letters, digits"),
        ("ägent", "letters, digits"),
        ("", "letters, digits"),
        ("json", "would shadow"),
        ("asyncio", "would shadow"),
        ("pydantic", "would shadow"),
        ("acp", "would shadow"),
        ("pytest", "would shadow"),
        ("acp-codegen", "would shadow"),
        ("acp_bindings", "would shadow"),
        ("typing-extensions", "would shadow"),
    ],
)
def test_names_that_cannot_be_a_package_are_refused(
    name: str,
    why: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new", "agent", "--", name]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith("error: NAME ") and why in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_a_folder_with_files_is_refused_and_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / NAME).mkdir()
    (tmp_path / NAME / "notes.txt").write_text("mine", encoding="utf-8")
    assert main(["new", "agent", NAME]) == EXIT_USAGE
    assert "exists and is not an empty folder" in capsys.readouterr().err
    assert tree(tmp_path) == {f"{NAME}/notes.txt": b"mine"}
    assert sorted(path.name for path in tmp_path.iterdir()) == [NAME]


def test_a_file_in_the_way_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "taken").write_text("mine", encoding="utf-8")
    assert main(["new", "agent", NAME, "--dir", "taken"]) == EXIT_USAGE
    assert main(["new", "agent", NAME, "--dir", "taken/below"]) == EXIT_USAGE
    assert capsys.readouterr().err.count("error: --dir") == 2
    assert tree(tmp_path) == {"taken": b"mine"}


def test_an_empty_folder_is_filled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "here").mkdir()
    assert main(["new", "agent", NAME, "--dir", "here", "-q"]) == EXIT_OK
    assert (tmp_path / "here" / "src" / PACKAGE / "agent.py").is_file()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["here"]


def test_a_failure_part_way_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bindings are written last: failing there means the project files were already
    staged, and they must go too (and the parent folders this run created)."""

    def full_disk(folder: Path, files: dict[str, bytes]) -> None:
        (folder.parent / "half-written").write_bytes(b"x")
        raise OSError(28, "No space left on device")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(scaffold_project, "write", full_disk)
    assert main(["new", "agent", NAME, "--dir", "deep/er/agent"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "No space left on device" in err and "nothing was written" in err
    assert list(tmp_path.iterdir()) == []


def test_the_readme_of_acp_codegen_shows_the_commands_that_were_tested() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "acp-codegen new agent NAME [--dir DIR]" in readme
    for line in (
        "acp-codegen new agent my-agent",
        "cd my-agent",
        '.venv/bin/pip install -e ".[test]"',
        ".venv/bin/python -m pytest",
        "acp-codegen chat -- .venv/bin/my-agent",
    ):
        assert line in readme, line


def test_the_agent_negotiates_the_protocol_version_as_upstream_specifies(scaffolded: Path) -> None:
    """Requested 0, 1, 2, 3 and a v1-shaped `initialize`, on the wire of the scaffolded agent."""
    from conformance.negotiation import answers, check

    src = str(scaffolded / "src")
    start = (
        f"import sys, runpy; sys.path.insert(0, {src!r}); "
        f"runpy.run_module({PACKAGE!r}, run_name='__main__')"
    )
    check(answers([sys.executable, "-c", start]))


@pytest.mark.slow
def test_the_agent_keeps_its_sessions_in_the_store_it_is_given(
    scaffolded: Path, tmp_path: Path
) -> None:
    """`--session-store sqlite:///...`: a session opened by one run of the agent is listed and
    replayed by the next; a bad URL is a usage error."""
    sys.path.insert(0, str(REPO / "generated"))
    import acp_bindings as acp

    store = f"sqlite:///{tmp_path / 'sessions.db'}"
    argv = [sys.executable, "-m", PACKAGE, "--session-store", store]
    env = {**os.environ, "PYTHONPATH": str(scaffolded / "src")}

    class Allowing(acp.Client):
        async def on_permission(self, session: object, request: object) -> dict[str, str]:
            return {"outcome": "selected", "optionId": "allow"}

    async def main() -> tuple[list[str], object, object]:
        client = Allowing()
        async with await client.spawn(argv, env=env, stderr=subprocess.DEVNULL):
            await client.lifecycle.initialize()
            session = await client.lifecycle.new_session(cwd=str(tmp_path))
            await session.run_turn([{"type": "text", "text": "one two"}])
            before = session.snapshot()["messages"]
        client = Allowing()
        async with await client.spawn(argv, env=env, stderr=subprocess.DEVNULL):
            await client.lifecycle.initialize()
            listed = await client.lifecycle.list_sessions()
            resumed = await client.lifecycle.resume_session(
                session.session_id, str(tmp_path), replayFrom={"type": "start"}
            )
            after = resumed.snapshot()["messages"]
        return [info["sessionId"] for info in listed["sessions"]], before, after

    listed, before, after = asyncio.run(asyncio.wait_for(main(), 120))
    assert len(listed) == 1 and before == after and before
    bad = run([*argv[:-1], "mysql://x"], scaffolded, PYTHONPATH=str(scaffolded / "src"))
    assert bad.returncode == 2 and "--session-store" in bad.stderr
    assert "sqlite:///PATH" in bad.stderr and "Traceback" not in bad.stderr
