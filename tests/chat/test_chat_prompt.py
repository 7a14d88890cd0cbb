"""`acp-codegen chat --prompt`: one turn against real agent processes, printed as plain text,
the exit code following the stop reason; failures are one line, never a traceback."""

from __future__ import annotations

import json
import os
import re
import selectors
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEMO = [sys.executable, str(REPO / "examples" / "demo_agent.py")]
ODD = [sys.executable, str(Path(__file__).with_name("odd_agent.py"))]
HANG_GUARD = 120.0  # only turns a hang into a failure; never a statement about speed


# The commands a README line names (`acp-codegen`) are the ones installed beside this Python,
# whether or not its environment is activated.
ON_PATH = {
    **os.environ,
    "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
}


def chat(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    """`python -m acp_codegen chat ARGS` with stdin not a terminal and stdout a pipe."""
    return subprocess.run(
        [sys.executable, "-m", "acp_codegen", "chat", *args],
        cwd=cwd,
        env=ON_PATH,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )


def test_approved_turn_prints_the_conversation_and_exits_0() -> None:
    proc = chat("--prompt", "hello there", "--approve", "--", *DEMO)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "permission: Inspect the prompt? -> Allow (allow_once)" in out
    assert "(thinking) Reading the prompt. Planning one tool call." in out
    assert "plan:\n  [x] Inspect the prompt\n  [x] Answer\n" in out
    # Written as it happens: the output streams under the status it came with.
    assert (
        "tool: Inspect the prompt (read): in_progress\n"
        "  | 11 characters, 2 words\n"
        "tool: Inspect the prompt (read): completed\n"
    ) in out
    assert "agent: hello there\n" in out
    assert out.endswith("[turn ended: end_turn]\n")
    assert "\x1b[" not in out  # no colours on a pipe
    assert "Traceback" not in proc.stderr


def read_until(proc: subprocess.Popen[bytes], marker: bytes) -> bytes:
    """Read `proc`'s stdout until `marker` has come (a hang fails the test, killing `proc`)."""
    assert proc.stdout is not None
    seen = b""
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        while marker not in seen:
            if not selector.select(HANG_GUARD):
                proc.kill()
                raise AssertionError(f"no {marker!r} on stdout, only {seen!r}")
            data = os.read(proc.stdout.fileno(), 4096)
            assert data, f"stdout ended before {marker!r}: {seen!r}"
            seen += data
    return seen


def finish(proc: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """`proc`'s remaining stdout and stderr once it exits (a hang kills it and fails the test)."""
    try:
        return proc.communicate(timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError(f"{proc.args!r} did not exit") from None


def interruptible() -> None:
    """In the child: Ctrl-C raises KeyboardInterrupt even when the test runs where SIGINT is
    ignored (a background job of a script), as it does in a terminal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_through_a_pipe_the_answer_is_written_as_it_streams(tmp_path: Path) -> None:
    """The agent streams `first second`, then waits for a line on a named pipe: the text must
    reach stdout (a pipe) before the test writes that line, so while the turn runs."""
    fifo = tmp_path / "go-on"
    os.mkfifo(fifo)
    proc = subprocess.Popen(
        [sys.executable, "-m", "acp_codegen", "chat", "--prompt", "go", "--", *ODD, "stream",
         str(fifo)],
        cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    with proc:
        seen = read_until(proc, b"agent: first second")
        with fifo.open("w") as go_on:
            go_on.write("go on\n")
        rest, errors = finish(proc)
    assert proc.returncode == 0, errors
    # Appended to the same line, each piece once, no control codes.
    assert seen + rest == (
        b"[connected: stream-agent speaks ACP v2]\n"
        b"agent: first second third\n[turn ended: end_turn]\n"
    )


def test_ctrl_c_during_the_turn_exits_130_like_every_other_command(tmp_path: Path) -> None:
    fifo = tmp_path / "never"  # the agent waits on it for ever: only Ctrl-C ends the turn
    os.mkfifo(fifo)
    proc = subprocess.Popen(
        [sys.executable, "-m", "acp_codegen", "chat", "--prompt", "go", "--", *ODD, "stream",
         str(fifo)],
        cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=interruptible,
    )  # fmt: skip
    with proc:
        read_until(proc, b"agent: first second")
        proc.send_signal(signal.SIGINT)
        _, errors = finish(proc)
    assert proc.returncode == 130, errors
    assert b"interrupted" in errors and b"Traceback" not in errors


def test_the_demo_agent_counts_one_in_the_singular() -> None:
    proc = chat("--prompt", "a", "--approve", "--", *DEMO)
    assert proc.returncode == 0, proc.stderr
    assert "  | 1 character, 1 word\n" in proc.stdout


def test_without_approve_the_permission_is_cancelled_and_the_exit_code_follows() -> None:
    proc = chat("--prompt", "hello there", "--", *DEMO)
    assert "permission: Inspect the prompt? -> cancelled" in proc.stdout
    assert "tool: Inspect the prompt (read): failed" in proc.stdout
    assert "[turn ended: refusal]" in proc.stdout  # what the demo agent decides
    assert proc.returncode == 1, proc.stderr


def test_quiet_prints_only_the_answer() -> None:
    proc = chat("-q", "--prompt", "just this", "--approve", "--", *DEMO)
    assert (proc.returncode, proc.stdout) == (0, "just this\n")


def test_trace_writes_json_lines_of_the_traffic(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    proc = chat("--prompt", "hi", "--approve", "--trace", str(trace), "--", *DEMO)
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    sent = [r["message"].get("method") for r in records if r["dir"] == "send"]
    received = [r["message"].get("method") for r in records if r["dir"] == "recv"]
    assert sent[:3] == ["initialize", "session/new", "session/prompt"]
    assert "session/request_permission" in received and "session/update" in received


def test_an_unwritable_trace_file_is_a_usage_error(tmp_path: Path) -> None:
    trace = tmp_path / "missing-folder" / "trace.jsonl"
    proc = chat("--prompt", "hi", "--trace", str(trace), "--", *DEMO)
    assert proc.returncode == 2
    assert proc.stderr == f"error: --trace {trace}: No such file or directory\n"


def test_cwd_is_the_session_directory(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    chat("--prompt", "hi", "--cwd", str(tmp_path), "--trace", str(trace), "--", *DEMO)
    new = next(
        json.loads(line)["message"]
        for line in trace.read_text().splitlines()
        if json.loads(line)["message"].get("method") == "session/new"
    )
    assert new["params"]["cwd"] == str(tmp_path.resolve())


def test_verbose_shows_method_names_on_stderr() -> None:
    proc = chat("-v", "--prompt", "hi", "--approve", "--", *DEMO)
    assert "-> session/prompt" in proc.stderr
    assert "<- session/request_permission" in proc.stderr


def test_missing_agent_command_is_a_usage_error(tmp_path: Path) -> None:
    proc = chat("--prompt", "hi", "--", str(tmp_path / "no-such-agent"))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"error: cannot start {str(tmp_path / 'no-such-agent')!r}: No such file or directory"
    ]


def test_no_agent_command_at_all_is_a_usage_error() -> None:
    proc = chat("--prompt", "hi")
    assert proc.returncode == 2
    assert "give the agent's command after --" in proc.stderr


def test_no_terminal_and_no_prompt_is_a_usage_error() -> None:
    proc = chat("--", *DEMO)
    assert proc.returncode == 2
    assert "pass --prompt TEXT" in proc.stderr


def test_an_agent_that_prints_garbage_is_one_line_and_exit_2() -> None:
    proc = chat("--prompt", "hi", "--", sys.executable, "-c", "print('hello, not json')")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "not JSON-RPC on stdout during initialize: 'hello, not json'" in proc.stderr


def test_an_agent_that_dies_at_start_quotes_its_stderr() -> None:
    script = "import sys; print('cannot load model', file=sys.stderr); sys.exit(3)"
    proc = chat("--prompt", "hi", "--", sys.executable, "-c", script)
    assert proc.returncode == 2
    assert "stopped during initialize (exit code 3; last stderr line: cannot load model)" in (
        proc.stderr
    )


def test_an_agent_dying_mid_turn_exits_1_after_showing_what_it_said() -> None:
    proc = chat("--prompt", "hi", "--", *ODD, "die")
    assert proc.returncode == 1
    assert "agent: partial" in proc.stdout
    assert proc.stderr.strip().splitlines() == [
        "error: die-agent stopped during the turn (exit code 5; last stderr line: giving up now)"
    ]


def test_an_agent_writing_garbage_mid_turn_exits_1_and_is_stopped() -> None:
    proc = chat("--prompt", "hi", "--", *ODD, "garbage")
    assert proc.returncode == 1
    assert "agent: partial" in proc.stdout
    assert proc.stderr.strip().splitlines() == [
        "error: garbage-agent wrote something that is not JSON-RPC on stdout during the turn: "
        "'this is not json'"
    ]


def test_readme_chat_commands_work_as_written(tmp_path: Path) -> None:
    """Each `acp-codegen chat --prompt` line of the README's chat section exits as its comment
    says (0 when it says nothing)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Talk to an agent: acp-codegen chat", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("acp-codegen chat --prompt")]
    lines += [line for line in section.splitlines() if line.startswith("acp-codegen chat -q")]
    assert len(lines) == 3
    for line in lines:
        command, _, comment = line.partition("#")
        expected = re.match(r"\s*exit (\d)", comment)
        words = shlex.split(command)[2:]
        swap = {"python": sys.executable, "/tmp/chat.jsonl": str(tmp_path / "chat.jsonl")}
        words = [swap.get(word, word) for word in words]
        proc = chat(*words)
        assert proc.returncode == (int(expected.group(1)) if expected else 0), (line, proc.stderr)


def test_a_command_that_echoes_its_input_is_not_an_acp_agent() -> None:
    """`cat` sends our initialize back: one line saying so, not a JSON-RPC error code."""
    proc = chat("--prompt", "hi", "--", "cat")
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "error: cat is not an ACP agent: it sends back what it is sent instead of answering "
        "initialize"
    ]


def test_a_command_that_exits_without_a_word_is_not_an_acp_agent() -> None:
    proc = chat("--prompt", "hi", "--", "true")
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "error: true is not an ACP agent: it exited (code 0) without answering initialize"
    ]


def test_help_tells_the_keys_the_commands_and_the_chat_extra() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "acp_codegen", "chat", "--help"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    for needed in ("Ctrl-C", "Ctrl-D", "/?", "/quit", "[chat] extra"):
        assert needed in proc.stdout, needed


def test_verbose_traffic_lines_never_cut_into_streamed_text() -> None:
    """stdout and stderr on one pipe, as on a terminal: each traffic line is a line of its own."""
    proc = subprocess.run(
        [sys.executable, "-m", "acp_codegen", "chat", "-v", "--prompt", "hello there",
         "--approve", "--", *DEMO],
        cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout
    assert "-> session/prompt\n" in proc.stdout
    cut = [line for line in proc.stdout.splitlines() if re.search(r".(->|<-) [a-z_]+[/ #]", line)]
    assert cut == []


def test_an_agent_exception_is_explained_by_its_last_stderr_lines() -> None:
    proc = chat("--prompt", "hi", "--", *ODD, "raise")
    assert proc.returncode == 1
    assert proc.stdout.endswith("[turn ended: _internal_error]\n")
    lines = proc.stderr.splitlines()
    assert lines[0] == "raise-agent failed the turn; its stderr ends:"
    assert lines[-1] == "RuntimeError: the model server went away"


def test_a_notice_is_written_in_its_place() -> None:
    proc = chat("--prompt", "hi", "--", *ODD, "notice")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (
        "[connected: notice-agent speaks ACP v2]\n"
        "notice [warning]: Quota low: 2 requests left today\nagent: noted\n[turn ended: end_turn]\n"
    )


def test_prompt_suggestions_and_models_are_shown_after_the_turn_escaped() -> None:
    """chat advertises prompt suggestions (the agent sends them only then) and notes the latest
    list after the turn, then the session's models with the current one; the agent's text
    cannot fake chat's lines or reach the terminal raw."""
    proc = chat("--prompt", "hi", "--", *ODD, "suggests")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (
        "[connected: suggests-agent speaks ACP v2]\nagent: ok\n[turn ended: end_turn]\n"
        "the agent suggests:\n  1) run the tests\n  2) fix it\\n[turn ended: end_turn]\n"
        "models: Pro\\e]52;c;aGk=\\x07 (pro) (current), Flash (flash)\n"
    )


@pytest.mark.slow
def test_an_agent_naming_v2_with_a_v1_body_is_driven_on_v1() -> None:
    """fast-agent's answer (version 2, v1's body): chat speaks v1 to it and the turn runs, where
    it used to fail at `session/new` with the agent's -32602 (no v1 `mcpServers` sent); with
    `--verbose` the warning names the agent's fault."""
    agent = [sys.executable, str(Path(__file__).with_name("v1_body_agent.py"))]
    proc = chat("--prompt", "hi", "--verbose", "--", *agent)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "agent: hello from a v1 body\n" in proc.stdout
    assert proc.stdout.endswith("[turn ended: end_turn]\n")
    shown = proc.stdout + proc.stderr
    assert "answered protocol version 2, but its body is not a version 2 answer" in shown
    assert "Traceback" not in proc.stderr
