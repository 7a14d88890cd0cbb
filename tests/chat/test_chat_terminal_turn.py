"""`acp-codegen chat` in a real terminal while a turn runs: typing refused out loud, wrong keys
at a permission question answered with the right ones, a silent agent shown to be still at
work, notices, the permission answer drawn after what came before it, and an agent's failure
explained from its stderr. Synchronisation is on screen text only (the odd agent's `stream
FIFO` waits for the test, not for time)."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from test_chat_terminal import AGENT, ODD, PROMPT, WITHOUT_RICH, closed_cleanly, spawn

pexpect = pytest.importorskip("pexpect")

LIVE, PLAIN = ["-m", "acp_codegen"], ["-c", WITHOUT_RICH]
BOTH = pytest.mark.parametrize(
    "python_args", [pytest.param(LIVE, id="live"), pytest.param(PLAIN, id="plain")]
)


def live_available(python_args: list[str]) -> None:
    if python_args is LIVE:
        pytest.importorskip("rich")


def quit_cleanly(child: pexpect.spawn) -> None:
    child.expect(PROMPT)
    child.sendeof()
    closed_cleanly(child)


def paused_turn(python_args: list[str], fifo: Path) -> pexpect.spawn:
    """A chat whose turn has streamed `first second` and waits until `go_on(fifo)`."""
    live_available(python_args)
    os.mkfifo(fifo)
    child = spawn(*python_args, agent=[*ODD, "stream", str(fifo)])
    child.expect(PROMPT)
    child.sendline("go")
    child.expect("first second")
    return child


def go_on(fifo: Path) -> None:
    with fifo.open("w") as lines:
        lines.write("go on\n")


@BOTH
def test_typing_during_a_turn_is_refused_out_loud_and_never_sent(
    python_args: list[str], tmp_path: Path
) -> None:
    fifo = tmp_path / "go-on"
    child = paused_turn(python_args, fifo)
    seen = io.StringIO()
    child.logfile_read = seen
    child.sendline("typed too early")
    child.expect("the agent is still working: what you type now is not sent")
    go_on(fifo)
    child.expect("end_turn")
    child.expect(PROMPT)
    # The early line was not kept for later: the next prompt line is empty, no turn starts.
    child.sendline("/?")
    child.expect(r"/\?")
    assert "typed too early" not in seen.getvalue()  # never echoed, never sent
    quit_cleanly(child)


@BOTH
def test_a_wrong_key_at_a_permission_question_says_which_keys_answer(
    python_args: list[str],
) -> None:
    live_available(python_args)
    child = spawn(*python_args, agent=[*ODD, "stream"])
    child.expect(PROMPT)
    child.sendline("go")
    child.expect(r"\[1\] Yes")
    child.send("x")
    child.expect(r"'x' is not an answer: press 1 \(Ctrl-C cancels\)")
    child.send("1\r")  # a key with Enter after it (or pasted with its newline) answers too
    child.expect(r"Go on\? -> Yes")
    child.expect("end_turn")
    quit_cleanly(child)


@BOTH
def test_a_silent_agent_is_shown_to_be_still_working(
    python_args: list[str], tmp_path: Path
) -> None:
    fifo = tmp_path / "go-on"
    child = paused_turn(python_args, fifo)
    child.expect(r"the agent is (still )?working(;| \()")
    go_on(fifo)
    child.expect("end_turn")
    quit_cleanly(child)


@BOTH
def test_a_notice_is_shown(python_args: list[str]) -> None:
    live_available(python_args)
    child = spawn(*python_args, agent=[*ODD, "notice"])
    child.expect(PROMPT)
    child.sendline("hi")
    child.expect(r"notice \[warning\]: Quota low: 2 requests left today")
    child.expect("end_turn")
    quit_cleanly(child)


@BOTH
def test_an_agent_exception_is_explained_by_its_stderr(python_args: list[str]) -> None:
    live_available(python_args)
    child = spawn(*python_args, agent=[*ODD, "raise"])
    child.expect(PROMPT)
    child.sendline("hi")
    child.expect("_internal_error")
    child.expect("raise-agent failed the turn; its stderr ends:")
    child.expect("RuntimeError: the model server went away")
    quit_cleanly(child)


def test_live_the_permission_answer_is_drawn_after_the_thought_and_plan_before_it() -> None:
    """Rich draws the turn in place; a line printed while it is live goes above it. The answer
    belongs below the thinking and plan that led to the question: the last frame (the turn as
    it stays on screen) has them in that order."""
    pytest.importorskip("rich")
    child = spawn(*LIVE, agent=AGENT)
    seen = io.StringIO()
    child.logfile_read = seen
    child.expect(PROMPT)
    child.sendline("hello brave world")
    child.expect(r"\[1\] Allow")
    child.send("1")
    child.expect("turn ended: end_turn")
    shown = seen.getvalue()
    assert shown.rindex("thinking: Reading the prompt") < shown.rindex(
        "Inspect the prompt? -> Allow"
    )
    quit_cleanly(child)
