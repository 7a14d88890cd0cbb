"""A remote agent reads only what the user offered: `chat --url` started from a home folder
holding `.ssh/id_rsa` (no --cwd) asks before each read, so with `--prompt` the read is refused
unless `--approve`; with --cwd given the folder is offered and reads are answered. inspect
--url asks on the page. The agent is the hostile reader_agent.py served with `--http`."""

from __future__ import annotations

import asyncio
import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from acp_codegen.commands.chat.remote import RemoteTarget
from acp_codegen.commands.inspect.live import LiveInspector

from tests.chat.test_chat_prompt import HANG_GUARD, chat
from tests.remote.processes import served_process
from tests.remote.test_inspect_reattach import Changes

READER = [sys.executable, str(Path(__file__).parents[1] / "chat" / "reader_agent.py")]
TOKEN = "remote-reads-token-2468"
BEARER = f"Authorization: Bearer {TOKEN}"
KEY = "-----BEGIN FAKE PRIVATE KEY-----"
QUESTION = r"Allow the agent to read \S+(id_rsa|notes)\?\r\n"  # the question, not its answer


@pytest.fixture(scope="module")
def reader_url() -> Iterator[str]:
    with served_process([*READER, "--http", "127.0.0.1:0"], token=TOKEN) as url:
        yield url


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A folder like $HOME, chat started from it: a key in .ssh, and a file whose name would
    steer the terminal."""
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "id_rsa").write_text(KEY, encoding="utf-8")
    (tmp_path / ".ssh" / "\x1b[2Jx").write_text("odd", encoding="utf-8")
    return tmp_path.resolve()


def remote_chat(url: str, home: Path, *args: str) -> str:
    proc = chat(*args, "--url", url, "--header", BEARER, cwd=home)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_chat_url_without_cwd_asks_before_a_read_and_prompt_refuses_it(
    reader_url: str, home: Path
) -> None:
    out = remote_chat(reader_url, home, "--prompt", "read .ssh/id_rsa")
    assert f"read {home}/.ssh/id_rsa: refused (no --approve)\n" in out
    assert "read .ssh/id_rsa refused (-32600): the user did not allow reading" in out
    assert KEY not in out


def test_a_refused_remote_agent_learns_nothing_of_what_is_there(
    reader_url: str, home: Path
) -> None:
    """Asked before anything is looked at: a missing file, a named pipe and a symlink out are
    all refused alike (no probing for which files exist)."""
    os.mkfifo(home / "pipe")
    (home / "out").symlink_to("/etc/hostname")
    out = remote_chat(reader_url, home, "--prompt", "read nothing\nread pipe\nread out")
    for name in ("nothing", "pipe", "out"):
        assert f"read {name} refused (-32600): the user did not allow reading" in out
    assert "/etc/hostname" not in out


def test_chat_url_with_approve_reads_and_says_so(reader_url: str, home: Path) -> None:
    out = remote_chat(reader_url, home, "--prompt", "read .ssh/id_rsa", "--approve")
    assert f"read {home}/.ssh/id_rsa: allowed\n" in out
    assert f"read .ssh/id_rsa: {KEY}" in out


def test_chat_url_with_cwd_given_reads_that_folder_without_asking(
    reader_url: str, home: Path
) -> None:
    out = remote_chat(reader_url, home, "--prompt", "read .ssh/id_rsa", "--cwd", str(home))
    assert f"read .ssh/id_rsa: {KEY}" in out
    assert ": allowed" not in out and "refused" not in out


def test_the_questions_show_the_path_escaped(reader_url: str, home: Path) -> None:
    out = remote_chat(reader_url, home, "--prompt", "read .ssh/\x1b[2Jx\nwrite \x1b[2Jy z")
    assert f"read {home}/.ssh/\\e[2Jx: refused (no --approve)\n" in out
    assert f"write 1 characters to {home}/\\e[2Jy: refused (no --approve)\n" in out


def test_interactively_chat_url_asks_each_read_with_the_path(reader_url: str, home: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    from tests.chat.test_chat_terminal import PROMPT, WITHOUT_RICH, closed_cleanly

    argv = ["-c", WITHOUT_RICH, "chat", "--url", reader_url, "--header", BEARER]
    env = {"PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8"}
    child = pexpect.spawn(
        sys.executable, argv, cwd=str(home), dimensions=(40, 200), encoding="utf-8",
        timeout=HANG_GUARD, env=env,
    )  # fmt: skip
    child.logfile_read = seen = io.StringIO()
    child.expect(PROMPT)
    child.sendline("read .ssh/id_rsa")
    child.expect_exact(f"Allow the agent to read {home}/.ssh/id_rsa?")
    child.send("2")  # Reject
    child.expect("the user did not allow reading")
    child.expect(PROMPT)
    child.sendeof()
    closed_cleanly(child)
    assert KEY not in seen.getvalue()


def test_reads_asked_at_once_are_asked_one_after_the_other(reader_url: str, home: Path) -> None:
    """The agent sends two reads together: the second question waits for the first answer
    (before: it replaced the first on screen, which then waited for ever)."""
    pexpect = pytest.importorskip("pexpect")
    from tests.chat.test_chat_terminal import PROMPT, WITHOUT_RICH, closed_cleanly

    (home / "notes").write_text("notes", encoding="utf-8")
    argv = ["-c", WITHOUT_RICH, "chat", "--url", reader_url, "--header", BEARER]
    env = {"PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8"}
    child = pexpect.spawn(
        sys.executable, argv, cwd=str(home), dimensions=(40, 200), encoding="utf-8",
        timeout=HANG_GUARD, env=env,
    )  # fmt: skip
    child.logfile_read = seen = io.StringIO()
    child.expect(PROMPT)
    child.sendline("read-all .ssh/id_rsa notes")
    child.expect(QUESTION)
    first = child.match.group(1)
    child.send("2" if first == "id_rsa" else "1")
    child.expect(QUESTION)
    second = child.match.group(1)
    assert {first, second} == {"id_rsa", "notes"}
    child.send("2" if second == "id_rsa" else "1")
    child.expect("read .ssh/id_rsa refused .*the user did not allow reading")
    child.expect(PROMPT)
    child.sendeof()
    closed_cleanly(child)
    assert "read notes: notes" in seen.getvalue() and KEY not in seen.getvalue()


def test_inspect_url_asks_on_the_page_before_a_read(reader_url: str, home: Path) -> None:
    async def scenario() -> list[str]:
        changes = Changes()
        target = RemoteTarget(reader_url, {"Authorization": f"Bearer {TOKEN}"})
        inspector = LiveInspector(target, cwd=home, trace=None, changed=changes)
        await inspector.start()
        try:
            inspector.prompt("read .ssh/id_rsa")
            await changes.until(lambda: inspector.view()["permission"] is not None)
            asked = inspector.view()["permission"]
            inspector.answer(asked["id"], "reject")
            await changes.until(lambda: not inspector.running)
            said = [str(m) for m in inspector.view()["session"]["messages"]]
            return [asked["title"], *said]
        finally:
            await inspector.stop()

    title, *said = asyncio.run(asyncio.wait_for(scenario(), HANG_GUARD))
    assert title == f"The agent asks to read {home}/.ssh/id_rsa"
    assert any("the user did not allow reading" in text for text in said)
    assert not any(KEY in text for text in said)
