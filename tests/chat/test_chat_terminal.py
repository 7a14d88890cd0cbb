"""`acp-codegen chat` in a real terminal (a pty, driven by pexpect): prompt, permission by key,
Ctrl-C cancelling a slow turn, Ctrl-C again quitting; with rich (live) and without (plain).
Synchronisation is on screen text only."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from acp_codegen.commands.chat.screens import STILL_WORKING

pexpect = pytest.importorskip("pexpect")

REPO = Path(__file__).resolve().parents[2]
AGENT = [sys.executable, str(REPO / "examples" / "demo_agent.py"), "--slow", "0.3"]
ODD = [sys.executable, str(Path(__file__).with_name("odd_agent.py"))]
# `python -c` with rich made unimportable: the plain fallback of an install without the extra.
# The prompt, and not the `> ` of a `-> Allow` in the live view's last frame, which rich draws
# once more as it stops: keys sent on that would reach the turn's key reader, not the prompt.
PROMPT = r"(?<!-)> "
WITHOUT_RICH = (
    "import sys; sys.modules['rich'] = None; from acp_codegen.commands.cli import main; main()"
)


def spawn(*python_args: str, agent: list[str] = AGENT) -> pexpect.spawn:
    child = pexpect.spawn(
        sys.executable,
        [*python_args, "chat", "--", *agent],
        cwd=str(REPO),
        dimensions=(40, 120),
        encoding="utf-8",
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8"},
    )
    child.expect("session open in")
    return child


def closed_cleanly(child: pexpect.spawn) -> None:
    """The chat said bye, exited 0 and printed no traceback."""
    child.expect("bye")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Traceback" not in (child.before or "")


def converse(child: pexpect.spawn, ended: str) -> None:
    """One approved turn, one cancelled, then quit; `ended` is how a stop reason is shown."""
    child.expect(PROMPT)
    child.sendline("hello brave world")
    child.expect(r"\[1\] Allow \(allow_once\)")
    child.send("1")
    child.expect(r"permission: Inspect the prompt\? -> Allow \(allow_once\)")
    child.expect(ended + "end_turn")
    child.expect(PROMPT)
    child.sendline("/help")
    child.expect("/quit")
    child.expect(PROMPT)
    child.sendline("/nonsense")
    child.expect("unknown command /nonsense")
    child.expect(PROMPT)
    child.sendline("/")
    child.expect("unknown command /;")
    child.expect(PROMPT)
    child.sendline("a slow turn to cancel")
    child.expect(r"\[1\] Allow")
    child.send("1")
    # Answered: the slow agent now has several steps (0.3 s each) to go.
    child.expect(r"-> Allow \(allow_once\)")
    child.sendintr()
    child.expect("cancelling the turn")
    child.expect(ended + "cancelled")
    child.expect(PROMPT)
    child.sendintr()
    closed_cleanly(child)


@pytest.mark.parametrize(
    ("python_args", "ended"),
    [
        pytest.param(["-m", "acp_codegen"], "turn ended: ", id="live-with-rich"),
        pytest.param(["-c", WITHOUT_RICH], r"\[turn ended: ", id="plain-without-rich"),
    ],
)
def test_a_conversation_in_a_terminal(python_args: list[str], ended: str) -> None:
    if python_args[0] == "-m":
        pytest.importorskip("rich")
    converse(spawn(*python_args), ended)


def test_without_rich_the_turn_is_written_as_it_happens() -> None:
    """The turn cannot end before the permission question is answered, so everything expected
    before the answer was written while the turn ran; the answer's chunks share one line."""
    child = spawn("-c", WITHOUT_RICH, agent=[*ODD, "stream"])
    child.expect(PROMPT)
    child.sendline("go")
    child.expect("agent: first second\r\n")  # streamed, and ended by the question below it
    child.expect(r"permission: Go on\?\r\n  \[1\] Yes \(allow_once\)")
    child.send("1")
    child.expect(r"permission: Go on\? -> Yes \(allow_once\)\r\n")
    child.expect("agent: third\r\n")
    child.expect(r"\[turn ended: end_turn\]")
    transcript = child.before or ""
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "first" not in transcript  # nothing written twice at the end
    assert "\x1b" not in transcript


def test_without_rich_a_demo_turn_is_written_in_order_each_thing_once() -> None:
    child = spawn("-c", WITHOUT_RICH)
    child.expect(PROMPT)
    child.sendline("hello brave world")
    # All of this comes before the permission question, which holds the turn up.
    child.expect(r"\(thinking\) Reading the prompt\. Planning one tool call\.\r\n")
    child.expect(r"plan:\r\n  \[>\] Inspect the prompt\r\n  \[ \] Answer\r\n")
    child.expect(r"tool: Inspect the prompt \(read\): pending\r\n")
    child.expect(r"press a key to answer \(Ctrl-C cancels the turn\)\r\n")
    child.send("1")
    child.expect(r"\[turn ended: end_turn\]\r\n")
    # A machine slow enough to keep the agent silent for seconds adds a line saying so.
    written = (child.before or "").replace("\r\n", "\n").replace(STILL_WORKING + "\n", "")
    assert written == (
        "permission: Inspect the prompt? -> Allow (allow_once)\n"
        "tool: Inspect the prompt (read): in_progress\n"
        "  | 17 characters, 3 words\n"
        "tool: Inspect the prompt (read): completed\n"
        "plan:\n  [x] Inspect the prompt\n  [>] Answer\n"
        "agent: hello brave world\n"
        "plan:\n  [x] Inspect the prompt\n  [x] Answer\n"
        "usage: context 17/200000\n"
    )
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_ctrl_d_when_idle_quits_and_stops_the_agent() -> None:
    child = spawn("-m", "acp_codegen")
    child.expect(PROMPT)
    child.sendeof()
    closed_cleanly(child)


def test_a_second_ctrl_c_during_a_turn_quits() -> None:
    child = spawn("-m", "acp_codegen")
    child.expect(PROMPT)
    child.sendline("never answered")
    child.expect(r"\[1\] Allow")
    child.sendintr()
    child.expect("cancelling the turn")
    child.sendintr()
    closed_cleanly(child)


def test_agent_commands_are_listed_and_sent_and_win_over_chats_own_names() -> None:
    """The agent lists `/echo` and `/help`: `/help` goes to the agent, `/?` still shows chat's
    list (the agent's commands, then chat's own under the names still free)."""
    child = spawn("-m", "acp_codegen", agent=[*ODD, "commands"])
    child.expect(PROMPT)
    child.sendline("/help")
    child.expect("you sent: /help")
    child.expect(PROMPT)
    child.sendline("/?")
    child.expect("/echo  repeat the text")
    child.expect("/help  the agent's own help")
    child.expect(r"/\?  this list")
    child.expect(r"/quit, /exit, Ctrl-D  stop the agent and leave")
    child.expect(r"\(/help: the agent's command wins; /\? is always this list\)")
    child.expect(PROMPT)
    child.sendline("/echo one two")
    child.expect("you sent: /echo one two")
    child.expect(PROMPT)
    child.sendline("/quit")
    closed_cleanly(child)


def test_commands_listed_only_in_the_session_new_answer_are_listed_too() -> None:
    """The agent lists `/deploy` in its `session/new` answer and sends no update: `/?` shows
    it (chat read the snapshot, which folded the answer) and `/deploy` goes to the agent."""
    child = spawn("-m", "acp_codegen", agent=[*ODD, "answered"])
    child.expect(PROMPT)
    child.sendline("/?")
    child.expect("/deploy  ship the build")
    child.expect(PROMPT)
    child.sendline("/deploy now")
    child.expect("you sent: /deploy now")
    child.expect(PROMPT)
    child.sendline("/quit")
    closed_cleanly(child)


def test_models_are_under_the_help_and_suggestions_follow_the_turn() -> None:
    """`/?` shows the session's models (current marked); after a turn chat lists the agent's
    prompt suggestions, escaped."""
    child = spawn("-m", "acp_codegen", agent=[*ODD, "suggests"])
    child.expect(PROMPT)
    child.sendline("/?")
    child.expect(r"models: Pro\\e\]52;c;aGk=\\x07 \(pro\) \(current\), Flash \(flash\)")
    child.expect(PROMPT)
    child.sendline("hi")
    child.expect("the agent suggests:")
    child.expect(r"1\) run the tests")
    child.expect(r"2\) fix it\\n\[turn ended: end_turn\]")
    child.expect(PROMPT)
    child.sendline("/quit")
    closed_cleanly(child)


def test_an_agent_dying_mid_turn_ends_the_chat_with_one_line() -> None:
    child = spawn("-m", "acp_codegen", agent=[*ODD, "die"])
    child.expect(PROMPT)
    child.sendline("hi")
    # On a terminal the `error:` label is painted red (as every acp-codegen error is).
    child.expect(r"error:(\x1b\[0m)? die-agent stopped during the turn")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    assert "Traceback" not in (child.before or "")


def test_ctrl_d_at_a_permission_question_quits() -> None:
    child = spawn("-m", "acp_codegen")
    child.expect(PROMPT)
    child.sendline("hi")
    child.expect(r"\[1\] Allow")
    child.sendcontrol("d")
    closed_cleanly(child)
