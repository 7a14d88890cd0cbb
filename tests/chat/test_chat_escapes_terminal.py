"""The interactive chat in a real terminal (a pty, driven by pexpect) with the hostile agent of
`escape_agent.py`: on the live screen (rich) and the plain one, with `-v`, none of the agent's
escapes reaches the terminal. The live screen writes its own styling (CSI), never an OSC, so no
`ESC ]` may appear at all (the agent's OSC 52, 0 and 8, or a link rich made of its markup);
the plain screen writes no ESC at all, and no CR but the terminal's own before a newline."""

from __future__ import annotations

import re
import sys

import pytest
from test_chat_escapes import AGENT, SHOWN
from test_chat_terminal import PROMPT, REPO, WITHOUT_RICH

pexpect = pytest.importorskip("pexpect")

LIVE_FIELDS = [
    "[connected: evil",
    "permission: Question",  # the question's title and options, drawn in a panel
    "[1] Allow",
    "[2] Reject",
    "-> Allow",
    "thinking: thought",
    "tool: tool",
    "output",
    "diff: /w/file",
    "- old",
    "+ new",
    "diff: /w/asked",  # the diff in the question
    "answer",
    "/cmd",  # `/?` lists the agent's commands
]
PLAIN_FIELDS = [*LIVE_FIELDS[:5], "(thinking) thought", *LIVE_FIELDS[6:]]
V2_FIELDS = ["notice [warn", "terminal: cmd", "terminal", "cost 1 USD"]


def converse(python_args: list[str], version: str) -> str:
    """A turn answered by key, then `/?`, then Ctrl-D; everything the chat wrote."""
    child = pexpect.spawn(
        sys.executable,
        [*python_args, "chat", "-v", "--", *AGENT, version, "all"],
        cwd=str(REPO),
        dimensions=(50, 500),  # wide: no line of the agent's is folded
        encoding="utf-8",
        codec_errors="strict",  # what is not UTF-8 fails the test
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8"},
    )
    written: list[str] = []
    child.logfile_read = _Collect(written)
    child.expect("session open in")
    child.expect(PROMPT)
    child.sendline("go")
    child.expect(r"\[2\] Reject")
    child.send("1")
    child.expect("turn ended: end_turn")
    child.expect(PROMPT)
    child.sendline("/?")
    child.expect("this list")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    return "".join(written)


class _Collect:
    def __init__(self, into: list[str]) -> None:
        self._into = into

    def write(self, text: str) -> None:
        self._into.append(text)

    def flush(self) -> None:
        return None


def no_escape_of_the_agents(written: str) -> None:
    assert "Traceback" not in written
    assert "\x1b]" not in written  # no OSC: clipboard, title, link
    for char in "\x07\x08\x9b\u202e":
        assert char not in written, repr(char)


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_the_live_screen_shows_a_hostile_agent_escaped(version: str) -> None:
    pytest.importorskip("rich")
    written = converse(["-m", "acp_codegen"], version)
    no_escape_of_the_agents(written)
    for field in LIVE_FIELDS + (V2_FIELDS if version == "v2" else []):
        assert field + SHOWN in written, field
    for field in ("<- evil/", "stderr"):  # -v: the traffic and the agent's stderr
        assert field + SHOWN in written, field


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_the_plain_screen_shows_a_hostile_agent_escaped(version: str) -> None:
    written = converse(["-c", WITHOUT_RICH], version)
    no_escape_of_the_agents(written)
    assert "\x1b" not in written
    assert re.search("\r(?!\n)", written) is None
    for field in PLAIN_FIELDS + (V2_FIELDS if version == "v2" else []):
        assert field + SHOWN in written, field
    for field in ("<- evil/", "stderr"):
        assert field + SHOWN in written, field
