"""`acp-codegen chat --prompt` against official SDKs' v1 agents: the Python SDK 0.12.1's example
agent (from its source distribution), an agent written with the TypeScript SDK 2.4.0 behind its
router in v1 mode, and a Python SDK 0.12.1 agent that uses chat's files and terminals (which
chat confines to --cwd). The SDKs come from the interop cache (skipped without them, failing
when CI is set)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from interop.sdk_cache import PY_SDK_V1_VERSION, py_sdk, py_sdk_sources, ts_sdk

HERE = Path(__file__).resolve().parent
INTEROP = HERE.parent / "interop"
TS_V1_AGENT = INTEROP / "ts_v1_agent.mjs"
TOOLS_AGENT = INTEROP / "py_v1_tools_agent.py"


def chat(*args: str, cwd: Path, pythonpath: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = None
    if pythonpath is not None:  # the agent's SDK; chat itself needs nothing from it
        env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    return subprocess.run(
        [sys.executable, "-m", "acp_codegen", "chat", "--cwd", str(cwd), *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        env=env,
        check=False,
    )


def test_chat_runs_a_turn_with_the_python_sdks_v1_example_agent(tmp_path: Path) -> None:
    agent = py_sdk_sources() / "examples" / "agent.py"
    proc = chat(
        "--prompt", "hello there", "--approve", "--", sys.executable, str(agent),
        cwd=tmp_path, pythonpath=py_sdk(PY_SDK_V1_VERSION),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("[connected: example-agent speaks ACP v1]\n")
    assert "agent: Client sent:hello there\n" in proc.stdout
    assert proc.stdout.endswith("[turn ended: end_turn]\n")


def test_chat_runs_a_turn_with_a_ts_router_agent_in_v1_mode(tmp_path: Path) -> None:
    proc = chat(
        "--prompt", "three small words", "--approve", "--", "node", str(TS_V1_AGENT),
        str(ts_sdk()), cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith("[connected: ts-v1-agent speaks ACP v1]\n")
    assert "(thinking) Planning the answer." in out
    assert "permission: Look at the prompt -> Allow (allow_once)" in out
    assert "tool: Look at the prompt (read): completed" in out
    assert "plan:\n  [x] Ask to look\n  [x] Answer\n" in out
    assert "agent: three small words" in out
    assert out.endswith("[turn ended: end_turn]\n")


def test_without_approve_the_v1_permission_is_cancelled(tmp_path: Path) -> None:
    proc = chat(
        "--prompt", "hi", "--", "node", str(TS_V1_AGENT), str(ts_sdk()), cwd=tmp_path
    )  # fmt: skip
    assert "permission: Look at the prompt -> cancelled" in proc.stdout
    assert "tool: Look at the prompt (read): failed" in proc.stdout
    assert "agent:" not in proc.stdout


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "notes.txt").write_text("chat notes\n", encoding="utf-8")
    return root


def test_chat_serves_v1_files_and_terminals_inside_cwd(project: Path) -> None:
    proc = chat(
        "--prompt", "go", "--approve", "--", sys.executable, str(TOOLS_AGENT),
        cwd=project, pythonpath=py_sdk(PY_SDK_V1_VERSION),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    # chat's own lines (what it allowed) come between the agent's.
    assert "agent: read: chat notes\n" in out
    written = project.resolve() / "NOTES.txt"
    assert f"write 11 characters to {written}: allowed\n" in out
    # What was allowed is shown: the new file's diff.
    assert f"  diff: {written} (add +1 -0)\n  @@ -0,0 +1 @@\n  + CHAT NOTES\n" in out
    assert "wrote NOTES.txt\noutside refused\n" in out
    assert f"run {sys.executable} -c " in out and "ran in project\n" in out
    assert (project / "NOTES.txt").read_text(encoding="utf-8") == "CHAT NOTES\n"


def test_without_approve_chat_refuses_v1_writes_and_commands(project: Path) -> None:
    proc = chat(
        "--prompt", "go", "--", sys.executable, str(TOOLS_AGENT),
        cwd=project, pythonpath=py_sdk(PY_SDK_V1_VERSION),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "read: chat notes\n" in proc.stdout and "write refused:" in proc.stdout
    assert "run refused:" in proc.stdout
    assert "refused (no --approve)" in proc.stdout
    assert not (project / "NOTES.txt").exists()


def test_interactively_each_v1_write_and_command_is_asked_first(project: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    from test_chat_terminal import PROMPT, WITHOUT_RICH, closed_cleanly

    env = {
        "PATH": "/usr/bin:/bin",
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(py_sdk(PY_SDK_V1_VERSION)),
    }
    argv = ["-c", WITHOUT_RICH, "chat", "--cwd", str(project), "--"]
    child = pexpect.spawn(
        sys.executable,
        [*argv, sys.executable, str(TOOLS_AGENT)],
        dimensions=(40, 160),
        encoding="utf-8",
        timeout=120,
        env=env,
    )
    child.expect(r"\[connected: py-v1-tools-agent speaks ACP v1\] session open in")
    child.expect(PROMPT)
    child.sendline("go")
    # (pexpect's `.` matches a newline too: kept on the line, or it would run to the diff's.)
    child.expect(r"Allow the agent to write 11 characters to [^\n]*NOTES\.txt")
    child.expect(r"diff: [^\n]*NOTES\.txt \(add \+1 -0\)")  # what the write does, before the keys
    child.expect(r"\+ CHAT NOTES\r\n +\[1\] Allow")
    child.send("1")  # Allow
    child.expect("wrote NOTES.txt")
    child.expect("Allow the agent to run ")
    child.send("2")  # Reject
    child.expect("run refused")
    child.expect("end_turn")
    child.expect(PROMPT)
    child.sendeof()
    closed_cleanly(child)
    assert (project / "NOTES.txt").read_text(encoding="utf-8") == "CHAT NOTES\n"
