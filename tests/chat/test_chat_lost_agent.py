"""`chat --url` in a real terminal when the served agent goes away for good: chat says the
connection was lost and that it reconnects; a prompt typed then is not drawn as a turn the agent
works on, and when chat gives up it says the prompt was not sent, never that a turn ended (the
session's stop reason is still the previous turn's). Synchronisation is on screen text only."""

from __future__ import annotations

import subprocess
import sys

import pytest
from test_chat_terminal import PROMPT, REPO, WITHOUT_RICH

from tests.remote.processes import served_process

pexpect = pytest.importorskip("pexpect")
pytestmark = pytest.mark.slow

DEMO = [sys.executable, str(REPO / "examples" / "demo_agent.py")]
PLAIN = WITHOUT_RICH.replace("main()", "sys.exit(main())")  # its exit code is chat's


@pytest.mark.parametrize(
    "python_args",
    [
        pytest.param(["-m", "acp_codegen"], id="live"),
        pytest.param(["-c", PLAIN], id="plain"),
    ],
)
def test_a_prompt_for_an_agent_gone_for_good_is_said_not_sent(python_args: list[str]) -> None:
    if python_args[0] == "-m":
        pytest.importorskip("rich")
    kept: dict[str, subprocess.Popen[str]] = {}
    with served_process([*DEMO, "--http", "127.0.0.1:0"], keep=kept) as url:
        child = pexpect.spawn(
            sys.executable,
            [*python_args, "chat", "--url", url],
            cwd=str(REPO),
            dimensions=(40, 120),
            encoding="utf-8",
            timeout=120,
            env={"PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8"},
        )
        child.expect("session open in")
        child.expect(PROMPT)
        child.sendline("first words")
        child.expect(r"\[1\] Allow \(allow_once\)")
        child.send("1")
        child.expect("turn ended: end_turn")
        child.expect(PROMPT)
        kept[""].terminate()
        kept[""].wait(120)
        child.expect(r"\[lost .*: reconnecting\]")
        child.sendline("never delivered")
        child.expect(r"gave up after \d+ attempts .*the prompt was not sent")
        after_the_drop = (child.before or "") + str(child.after)
        child.expect(pexpect.EOF)
        rest = child.before or ""
        child.close()
    assert child.exitstatus == 1, after_the_drop + rest
    assert "turn ended" not in after_the_drop
    assert "the agent is working" not in after_the_drop
    assert "not connected: the prompt waits" in after_the_drop
