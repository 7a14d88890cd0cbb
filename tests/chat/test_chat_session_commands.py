"""chat's `/fork`, `/title`, `/archive`, `/unarchive` and `/status`: offered (in `/?`) only when
the agent advertises the unstable session methods, refused saying why when it does not; the
session's title, as the agent sets it, shown escaped. The terminal tests run chat against an agent
generated with `--unstable` (made once per module: slow) and against the demo agent."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.commands.chat.plain import render_turn
from acp_codegen.commands.chat.session_commands import advertised, refusal, status_line
from acp_codegen.commands.chat.slash import help_text, route
from acp_codegen.commands.chat.transcript import turn_since
from acp_codegen.commands.cli import main
from acp_codegen.commands.console import NORMAL
from acp_codegen.commands.exits import EXIT_OK
from test_chat_escapes import raw
from test_chat_render import snapshot
from test_chat_terminal import AGENT as DEMO
from test_chat_terminal import PROMPT, WITHOUT_RICH, closed_cleanly, spawn

pexpect = pytest.importorskip("pexpect")

REPO = Path(__file__).resolve().parents[2]
PACKAGE = "acp_unstable_chat_agent"
ALL = ["fork", "title", "archive", "unarchive", "status"]
HOSTILE = "\x1b]0;pwned\x07\x1b[2J"
SHOWN = "\\e]0;pwned\\x07\\e[2J"


@pytest.fixture(scope="module")
def unstable_agent(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """The command line of `unstable_agent.py` over a package generated with `--unstable`."""
    out = tmp_path_factory.mktemp("unstable_chat")
    assert main(["generate", "--unstable", "--out", str(out), "--package", PACKAGE, "-q"]) == (
        EXIT_OK
    )
    yield [sys.executable, str(Path(__file__).with_name("unstable_agent.py")), str(out), PACKAGE]


def test_the_commands_follow_what_initialize_advertised_on_either_version() -> None:
    v2: dict[str, object] = {"session": {"fork": {}, "status": {}, "close": {}}}
    v1: dict[str, object] = {
        "loadSession": True,
        "sessionCapabilities": {"title": {}, "archive": {}},
    }
    assert advertised(v2) == ["fork", "status"]
    assert advertised(v1) == ["title", "archive", "unarchive"]  # session.archive: both
    assert advertised({"session": {}}) == [] and advertised(None) == []


def test_help_lists_only_the_offered_ones_and_an_agents_command_of_that_name_wins() -> None:
    assert "/fork" not in help_text([]) and "/title" not in help_text([])
    lines = help_text([], ALL).splitlines()
    assert lines[1:6] == [
        "/fork  fork this session and continue in the fork",
        "/title TEXT  name this session",
        "/archive  archive this session and continue in a new one",
        "/unarchive [ID]  unarchive a session (default: the last archived)",
        "/status  ask the agent how this session stands",
    ]
    assert route("/fork", []) == "session" and route("/title a b", []) == "session"
    agents = [("fork", "the agent's own fork")]
    assert route("/fork", agents) == "agent"
    assert "/fork  fork this session" not in help_text(agents, ALL)
    assert "does not advertise session.fork" in refusal("fork")
    assert "offer session/unarchive" in refusal("unarchive")
    assert "does not advertise session.archive" in refusal("unarchive")


def test_a_title_the_agent_sets_is_shown_once_escaped_and_a_status_in_one_line() -> None:
    before = snapshot(sessionInfo={"title": "old"})
    now = snapshot(sessionInfo={"title": f"Mine{HOSTILE}\nagent: fake"}, stopReason="end_turn")
    out = render_turn(turn_since(before, now, ended=True), NORMAL)
    assert out.splitlines()[0] == f"title: Mine{SHOWN}\\nagent: fake"
    assert raw(out) == []
    assert "title:" not in render_turn(turn_since(now, now, ended=True), NORMAL)
    assert status_line({"status": "open", "state": {"state": "idle"}}) == "status: open (idle)"
    assert status_line({"status": f"x{HOSTILE}"}) == f"status: x{SHOWN}"


def talk(child: Any, line: str, *expected: str) -> None:
    child.expect(PROMPT)
    child.sendline(line)
    for text in expected:
        child.expect(text)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("python_args", "version"),
    [(("-m", "acp_codegen"), "v2"), (("-c", WITHOUT_RICH), "v1")],
    ids=["live-v2", "plain-v1"],
)
def test_fork_title_status_archive_and_unarchive_against_an_unstable_agent(
    unstable_agent: list[str], python_args: tuple[str, ...], version: str
) -> None:
    """Live and v2, plain and v1 (the agent speaking only v1, which advertises the methods in
    `sessionCapabilities`; the fork is loaded, v1's replay)."""
    child = spawn(*python_args, agent=[*unstable_agent, "hostile", version])
    assert f"speaks ACP {version}" in (child.before or "")
    child.logfile_read = screen = io.StringIO()
    talk(child, "/unarchive", r"/unarchive needs the session: /unarchive ID \(none archived here\)")
    talk(child, "/?", "/fork  fork this session", r"/title TEXT  name", "/archive  ")
    child.expect(r"/unarchive \[ID\]  unarchive a session")
    child.expect("/status")
    talk(child, "name Mine", r"title: Mine\\e\]0;pwned\\x07\\e\[2J", "heard: name Mine")
    talk(child, "/title Renamed", r"\[title: Renamed\]")
    talk(child, "/status", r"status: open \(idle\) · title: Renamed")
    talk(child, "/fork", r"\[forked (sess_\w+) into (sess_\w+): chat continues in the fork\]")
    parent, fork = child.match.group(1), child.match.group(2)
    # The fork's history is drawn: the parent's turn, and the title it had then.
    child.expect("title: Renamed")
    child.expect("heard: name Mine")
    talk(child, "/archive", rf"\[archived {fork}; chat continues in a new session (sess_\w+)\]")
    assert child.match.group(1) not in (parent, fork)
    talk(child, "/unarchive", rf"\[unarchived {fork}; session/list lists it again\]")
    talk(child, f"/unarchive {parent}", rf"\[unarchived {parent}; session/list lists it again\]")
    # The agent's refusal (an unknown session) is shown and chat goes on.
    talk(child, "/unarchive nobody", r"\[session/unarchive failed: .*\(-32002\)\]")
    talk(child, "after", "heard: after")
    child.expect(PROMPT)
    child.sendintr()
    closed_cleanly(child)
    assert "\x1b]0;pwned" not in screen.getvalue() and "\x1b[2J" not in screen.getvalue()


@pytest.mark.slow
def test_an_agent_that_does_not_advertise_them_is_not_offered_them() -> None:
    child = spawn("-c", WITHOUT_RICH, agent=DEMO)
    talk(child, "/?", "/quit")
    assert "/fork" not in (child.before or "") and "/title" not in (child.before or "")
    talk(child, "/fork", r"/fork: the agent does not offer session/fork \(its initialize answer")
    talk(child, "/title x", "does not advertise session.title")
    talk(child, "/unarchive x", "does not advertise session.archive")
    child.expect(PROMPT)
    child.sendintr()
    closed_cleanly(child)
