"""A hostile agent (`escape_agent.py`, v2 and v1) puts terminal escapes in every piece of text
chat shows: `chat --prompt` (with and without `-v`), its error lines, and `inspect`'s, write
none of them raw. What reaches stdout and stderr is UTF-8 with no ESC, C1, CR, BEL, backspace
or direction override of the agent's; each escape is there in its visible form."""

from __future__ import annotations

import io
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import cast

import pytest
from acp_codegen.commands.console import NORMAL

REPO = Path(__file__).resolve().parents[2]
AGENT = [sys.executable, str(Path(__file__).with_name("escape_agent.py"))]
# What the agent's escapes look like once shown: every one of them, in order.
SHOWN = (
    "\\e]52;c;ZXZpbA==\\x07|\\e]0;pwned-title\\x07|\\e]8;;http://evil.example\\x07click"
    "\\e]8;;\\x07|\\r\\e[2K|\\x9b2K|\\x07|\\x08|\\u202e|[link=http://evil.example/m]m[/link]|"
)
# Each piece of text the agent sent, by the word it starts with.
V1_FIELDS = [
    "[connected: evil",  # the agent's name from initialize
    "permission: Question",  # the permission question's title
    "-> Allow",  # the option picked
    "(thinking) thought",
    "  [ ] step",  # a plan entry
    "tool: tool",  # a tool call's title
    "  | output",  # its output
    "diff: /w/file",  # a diff's file name
    "- old",  # its lines
    "+ new",
    "diff: /w/asked",  # the diff in the permission question
    "agent: answer",
]
V2_FIELDS = [
    *V1_FIELDS,
    "notice [warn",  # a notice's severity, title and description
    ": note",
    ": detail",
    "terminal: cmd",  # a terminal's command and output
    "  | terminal",
    "cost 1 USD",  # usage
]
VERBOSE_FIELDS = ["<- evil/", "stderr"]  # a method name in the traffic, the agent's stderr


def raw(text: str) -> list[str]:
    """The characters of `text` that would steer a terminal (a lone surrogate too: it cannot
    have come from UTF-8, so it is listed if the bytes were decoded leniently)."""
    return [
        char
        for char in text
        if (ord(char) < 0x20 and char not in "\n\t")
        or 0x7F <= ord(char) <= 0x9F
        or unicodedata.category(char) in ("Cf", "Cs", "Zl", "Zp")
    ]


def chat(*args: str) -> tuple[int, str, str]:
    """`chat ARGS` on pipes: its exit code, stdout and stderr (UTF-8, or the test fails)."""
    proc = subprocess.run(
        [sys.executable, "-m", "acp_codegen", *args],
        cwd=REPO,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    return proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")


@pytest.mark.parametrize("verbose", [False, True], ids=["plain", "verbose"])
@pytest.mark.parametrize("version", ["v2", "v1"])
def test_prompt_shows_every_field_of_a_hostile_agent_escaped(version: str, verbose: bool) -> None:
    flags = ["-v", "--approve"] if verbose else ["--approve"]
    code, out, err = chat("chat", *flags, "--prompt", "go", "--", *AGENT, version, "all")
    assert code == 0, err
    assert "Traceback" not in err
    assert raw(out) == [] and raw(err) == []
    for field in V2_FIELDS if version == "v2" else V1_FIELDS:
        assert field + SHOWN in out, field
    for field in VERBOSE_FIELDS if verbose else []:
        assert field + SHOWN in err, field
    assert "\\ud800" in out  # the lone surrogate, named


def test_one_line_things_stay_on_their_line() -> None:
    """A newline in a title, an id, a kind, a status or a stop reason is shown `\\n`: the line
    after it, reading `[turn ended: end_turn]`, is never a line of its own."""
    code, out, err = chat("chat", "-v", "--prompt", "go", "--", *AGENT, "v2", "lines")
    assert code == 1, err  # the turn ended with the agent's made-up stop reason
    assert raw(out) == [] and raw(err) == []
    assert "[turn ended: end_turn]" not in out.splitlines()
    fake = "\\n[turn ended: end_turn]\\n"
    for shown in (
        "[link name" + SHOWN + fake + ": file:///" + fake + "]",  # a resource link
        "[kind" + SHOWN + fake + "]",  # a content block of a type chat does not know
        "tool: id" + fake + " (kind" + fake + "): status" + fake,
        "[status" + fake + "] step",  # a plan entry's status
        "terminal: term" + fake,
        "  exit: SIG" + SHOWN + fake,  # the signal that ended a terminal's command
        "[turn ended: stop" + SHOWN + fake + "]",
    ):
        assert shown in out, shown
    assert "<- result #id" + SHOWN + fake in err  # -v: ids of responses
    assert "<- error #id" + SHOWN + fake in err


@pytest.mark.parametrize("version", ["v2", "v1"])
@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("error", "error: the turn failed: broken"),  # a JSON-RPC error's message
        ("die", "last stderr line: RuntimeError: stderr"),  # exit mid-turn, quoting stderr
        ("fail", "\nRuntimeError: stderr"),  # `_internal_error`: the end of its stderr
        ("init-die", "stopped during initialize (exit code 3; last stderr line: init"),
    ],
)
def test_error_lines_quoting_a_hostile_agent_are_escaped(
    mode: str, said: str, version: str
) -> None:
    code, out, err = chat("chat", "--prompt", "go", "--", *AGENT, version, mode)
    assert code != 0
    assert raw(out) == [] and raw(err) == []
    assert said + SHOWN in err
    if mode != "init-die":
        assert "[connected: evil" + SHOWN in out


def test_inspect_quotes_a_hostile_agent_escaped() -> None:
    pytest.importorskip("aiohttp")
    code, out, err = chat("inspect", "--no-open", "--", *AGENT, "v2", "init-die")
    assert code == 2
    assert raw(out) == [] and raw(err) == []
    assert "last stderr line: init" + SHOWN in err


def test_the_live_view_reads_no_markup_in_an_agents_question() -> None:
    """Rich reads a string as markup: the question's title, once given to rich as one, made
    the agent's `[link=...]` a real (hidden) link. Now it is drawn as the agent wrote it."""
    rich_console = pytest.importorskip("rich.console")
    from acp_codegen._bindings import models
    from acp_codegen.commands.chat.live import render
    from acp_codegen.commands.chat.screens import asking
    from acp_codegen.commands.chat.transcript import Turn

    title = "[link=http://evil.example]Read a file?[/link] [bold]yes[/bold]"
    option = models.PermissionOption(
        option_id="ok", name="[link=http://x]Allow[/link]", kind="allow_once"
    )
    request = models.RequestPermissionRequest(session_id="s", title=title, options=[option])
    console = rich_console.Console(file=io.StringIO(), width=200, force_terminal=True)
    console.print(render(Turn(), asking(request), NORMAL))
    drawn = cast(io.StringIO, console.file).getvalue()
    assert "\x1b]8" not in drawn  # no link
    assert title in drawn and "[link=http://x]Allow[/link]" in drawn


def test_what_python_itself_writes_is_escaped() -> None:
    """Python's last-resort log handler (asyncio's and aiohttp's records) and its traceback of
    an uncaught exception write escaped text: both may quote the agent."""
    script = (
        "import logging; from acp_codegen.commands.chat.unhandled import "
        "escape_unhandled_output; escape_unhandled_output(); "
        "EVIL = '\\x1b]0;pwned\\x07\\r\\ud800'; "
        "logging.getLogger('asyncio').error('task failed: %s', EVIL); raise ValueError(EVIL)"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120)
    err = proc.stderr.decode("utf-8")
    assert proc.returncode == 1 and raw(err) == []
    assert "task failed: \\e]0;pwned\\x07\\r\\ud800" in err
    assert "ValueError: \\e]0;pwned\\x07\\r\\ud800" in err


def test_the_agents_stderr_is_shown_a_line_at_a_time_and_a_line_without_end_in_pieces() -> None:
    """With -v the agent's stderr comes through a pipe: each line handed to the screen (which
    escapes it) without its Windows line end; a line that never ends in bounded pieces."""
    import asyncio
    import os

    from acp_codegen.commands.chat.agent_stderr import LINE_CHARS, AgentStderr

    async def shown_lines() -> list[str]:
        lines: list[str] = []
        stderr = AgentStderr(lines.append)
        write_end = stderr.target()
        assert isinstance(write_end, int)
        os.write(write_end, b"first\r\n" + b"y" * (LINE_CHARS + 10) + b"\x1b]0;t\x07")
        stderr.spawned()  # the only writer gone: what is left is read to its end
        stderr.close()
        return lines

    assert asyncio.run(shown_lines()) == ["first", "y" * LINE_CHARS, "y" * 10 + "\x1b]0;t\x07"]
