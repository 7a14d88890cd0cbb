"""A hostile v1 agent's `terminal/create` through `acp-codegen chat`: a command that looks
harmless but hides a second program in an environment variable is refused before anyone is
asked, `--approve` included, unless `--allow-env` lets the variable through; the question shows
every variable the agent sets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from command_attacks import ATTACKS, Attack

ESCAPED = "\x1b]52;c;aGk=\x07"  # OSC 52: would set the clipboard if printed raw


def chat(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_codegen", "chat", "--cwd", str(project), *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )


def refusal_data(stdout: str) -> object:
    """The error data the agent was answered with (it says it on a `data:` line)."""
    line = next(line for line in stdout.splitlines() if line.startswith("data: "))
    return json.loads(line.removeprefix("data: "))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_variable_that_runs_another_program_is_refused_even_with_approve(
    project: Path, tmp_path: Path, attack: str
) -> None:
    hidden: Attack = ATTACKS[attack](project, tmp_path / "ran")
    proc = chat(project, "--prompt", "go", "--approve", "--", *hidden.agent())
    assert proc.returncode == 0, proc.stderr
    assert not hidden.marker.exists()
    assert "agent: refused: -32602\n" in proc.stdout
    assert refusal_data(proc.stdout) == {"env": hidden.names}
    # Nothing was asked (nor approved); chat says what it refused and how to allow it.
    assert ": allowed" not in proc.stdout
    told = next(line for line in proc.stdout.splitlines() if line.startswith("refused to run"))
    for name in hidden.names:
        assert f"--allow-env {name}" in told

    # Let through by name: asked (here approved), shown, and run: the test can fail.
    allowing = [f"--allow-env={name}" for name in hidden.allow]
    proc = chat(project, "--prompt", "go", "--approve", *allowing, "--", *hidden.agent())
    assert proc.returncode == 0, proc.stderr
    assert hidden.marker.exists()
    assert "agent: ran: exit" in proc.stdout
    for name in hidden.names:
        assert f"  env: {name}=" in proc.stdout
    assert proc.stdout.count("[let through by --allow-env]") == len(hidden.names)


def test_allowed_variables_still_need_approve(project: Path, tmp_path: Path) -> None:
    hidden = ATTACKS["bash-env"](project, tmp_path / "ran")
    proc = chat(project, "--prompt", "go", "--allow-env", "BASH_ENV", "--", *hidden.agent())
    assert "run bash -c true in " in proc.stdout and ": refused (no --approve)" in proc.stdout
    assert "agent: refused: -32600\n" in proc.stdout
    assert not hidden.marker.exists()


def test_the_question_shows_every_variable(project: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    env = {"FOO": "bar", "SPACED": "a b", "CLIP": ESCAPED, "LONG": "x" * 5000, "PAGER": "cat"}
    params = {
        "command": sys.executable,
        "args": ["-c", f"open({str(marker)!r}, 'w')"],
        "env": [{"name": name, "value": value} for name, value in env.items()],
    }
    agent = [sys.executable, str(Path(__file__).with_name("command_agent.py")), json.dumps(params)]
    proc = chat(project, "--prompt", "go", "--allow-env", "PAGER=cat", "--", *agent)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert ": refused (no --approve)\n" in out and not marker.exists()
    assert f"  command: {sys.executable} -c " in out
    assert f"  program: {sys.executable}" in out
    assert f"  in: {project.resolve()}\n" in out
    assert "  env: FOO=bar\n" in out
    assert "  env: SPACED='a b'\n" in out
    assert "  env: CLIP='\\e]52;c;aGk=\\x07'\n" in out and "\x1b" not in out
    assert "  env: LONG=" + "x" * 300 + "... (5000 characters, the first 300 shown)\n" in out
    assert "  env: PAGER=cat  [let through by --allow-env]\n" in out


def test_a_value_allowed_is_that_value_only(project: Path) -> None:
    params = {"command": "true", "env": [{"name": "PAGER", "value": "sh -c 'touch x'"}]}
    agent = [sys.executable, str(Path(__file__).with_name("command_agent.py")), json.dumps(params)]
    proc = chat(project, "--prompt", "go", "--approve", "--allow-env", "PAGER=cat", "--", *agent)
    assert refusal_data(proc.stdout) == {"env": ["PAGER"]}


@pytest.mark.parametrize("screen", ["live", "plain"])
def test_interactively_the_question_shows_the_variables_and_a_rejection_runs_nothing(
    project: Path, tmp_path: Path, screen: str
) -> None:
    pexpect = pytest.importorskip("pexpect")
    from test_chat_terminal import PROMPT, WITHOUT_RICH

    marker = tmp_path / "ran"
    params = {
        "command": sys.executable,
        "args": ["-c", f"open({str(marker)!r}, 'w')"],
        "env": [{"name": "FOO", "value": "bar"}, {"name": "CLIP", "value": ESCAPED}],
    }
    agent = [sys.executable, str(Path(__file__).with_name("command_agent.py")), json.dumps(params)]
    python = ["-m", "acp_codegen"] if screen == "live" else ["-c", WITHOUT_RICH]
    child = pexpect.spawn(
        sys.executable,
        [*python, "chat", "--cwd", str(project), "--", *agent],
        dimensions=(40, 160),
        encoding="utf-8",
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8"},
    )
    child.expect("session open in")
    child.expect(PROMPT)
    child.sendline("go")
    child.expect("Allow the agent to run ")
    child.expect("env: FOO=bar")
    child.expect(r"env: CLIP='\\e\]52;c;aGk=\\x07'")
    child.expect(r"\[2\] Reject")
    child.send("2")
    child.expect("refused: -32600")
    child.expect("end_turn")
    # Ctrl-C quits once the turn is over; if it still finishes, the first one cancels it.
    child.sendintr()
    if child.expect(["bye", "cancelling the turn"]) == 1:
        child.sendintr()
        child.expect("bye")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and not marker.exists()


@pytest.mark.parametrize("tool", ["chat", "inspect"])
@pytest.mark.parametrize("entry", ["A B", "=cat", "PA\x1bTH"])
def test_a_malformed_allow_env_is_a_usage_error(project: Path, tool: str, entry: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "acp_codegen", tool, "--allow-env", entry, "--", "true"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2
    assert "not an environment variable name" in proc.stderr
