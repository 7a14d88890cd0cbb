"""A hostile v1 agent (reader_agent.py) asking `chat --prompt` for files under --cwd that are
no files, or lead outside: a named pipe (which would block whoever opens it), a unix socket,
a hard link to a file outside, and a folder swapped for a symlink to outside while it reads
through it. Each is refused with -32602 saying why; nothing outside is read or written."""

from __future__ import annotations

import ast
import contextlib
import os
import shutil
import socket
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.chat.test_chat_prompt import chat

READER = [sys.executable, str(Path(__file__).with_name("reader_agent.py"))]
RACE_READS = 1000


def ask(cwd: Path, *lines: str, approve: bool = False) -> str:
    """The agent's turn with one request per line, served under `cwd`; chat's stdout.
    (`chat` bounds the run: a read that blocks fails the test instead of hanging it.)"""
    flags = ["--approve"] if approve else []
    proc = chat("--prompt", "\n".join(lines), *flags, "--cwd", str(cwd), "--", *READER)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    """The working directory, and a folder outside it holding a secret (one filesystem)."""
    cwd, outside = tmp_path / "cwd", tmp_path / "outside"
    cwd.mkdir()
    outside.mkdir()
    (outside / "secret").write_text("OUTSIDE SECRET", encoding="utf-8")
    return cwd, outside


def test_a_named_pipe_is_refused_without_waiting_for_a_writer(places: tuple[Path, Path]) -> None:
    cwd, _ = places
    os.mkfifo(cwd / "pipe")
    out = ask(cwd, "read pipe", "write pipe over", approve=True)
    assert "read pipe refused (-32602): not a regular file (a named pipe)" in out
    assert "write pipe refused (-32602): not a regular file (a named pipe)" in out


@pytest.fixture
def short_cwd() -> Iterator[Path]:
    """A working directory with a short path: a unix socket's path must fit 107 bytes."""
    with tempfile.TemporaryDirectory(prefix="fs-") as folder:
        yield Path(folder)


def test_a_unix_socket_is_refused_as_what_it_is(short_cwd: Path) -> None:
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(short_cwd / "sock"))
        listening.listen()
        out = ask(short_cwd, "read sock", "write sock over", approve=True)
    assert "read sock refused (-32602): not a regular file (a socket)" in out
    assert "write sock refused (-32602): not a regular file (a socket)" in out


def test_a_hard_link_to_a_file_outside_is_neither_read_nor_written(
    places: tuple[Path, Path],
) -> None:
    cwd, outside = places
    os.link(outside / "secret", cwd / "notes")
    out = ask(cwd, "read notes", "write notes overwritten", approve=True)
    assert "read notes refused (-32602): a file with 2 hard links" in out
    assert "write notes refused (-32602): a file with 2 hard links" in out
    assert "OUTSIDE SECRET" not in out
    assert (outside / "secret").read_text(encoding="utf-8") == "OUTSIDE SECRET"


@contextlib.contextmanager
def swapping(cwd: Path, outside: Path) -> Iterator[None]:
    """A thread that keeps swapping folder `cwd/dir` for a symlink to `outside` and back."""
    (cwd / "dir").mkdir()
    (cwd / "dir" / "secret").write_text("inside", encoding="utf-8")
    (cwd / "link").symlink_to(outside)
    done, swapped = threading.Event(), threading.Event()
    failures: list[BaseException] = []

    def swap() -> None:
        folder, link, aside = cwd / "dir", cwd / "link", cwd / "aside"
        try:
            while not done.is_set():
                folder.rename(aside)
                put(link, folder)  # dir is now the symlink to outside
                folder.rename(link)
                put(aside, folder)  # and the folder again
                swapped.set()
        except BaseException as error:
            failures.append(error)
            swapped.set()

    def put(source: Path, target: Path) -> None:
        # A write may have made `target` while it was away (a new folder): clear that first.
        while True:
            try:
                source.rename(target)
                return
            except OSError:
                shutil.rmtree(target, ignore_errors=True)

    swapper = threading.Thread(target=swap)
    swapper.start()
    swapped.wait()  # the agent starts only once the swapping does
    try:
        yield
    finally:
        done.set()
        swapper.join()
    assert not failures, failures


def test_a_folder_swapped_for_a_symlink_never_yields_the_file_outside(
    places: tuple[Path, Path],
) -> None:
    """While the agent reads dir/secret, a thread keeps swapping `dir` for a symlink to the
    outside folder. Each read gives the inside file or is refused; none gives the outside one
    (before: 4-18 reads in 300 did)."""
    cwd, outside = places
    with swapping(cwd, outside):
        out = ask(cwd, f"race dir/secret {RACE_READS}")
    line = next(line for line in out.splitlines() if "race: " in line)
    assert f"race: {RACE_READS} reads" in line
    contents = ast.literal_eval(line.partition("contents ")[2])
    assert set(contents) <= {"inside"}, line
    assert "OUTSIDE SECRET" not in out


def test_a_folder_swapped_for_a_symlink_never_takes_a_write_outside(
    places: tuple[Path, Path],
) -> None:
    """The same swap while the agent writes dir/secret (allowed): every write lands inside or
    is refused; the outside file is never touched."""
    cwd, outside = places
    with swapping(cwd, outside):
        out = ask(cwd, f"write-race dir/secret {RACE_READS}", approve=True)
    assert f"write-race: {RACE_READS} writes" in out
    assert (outside / "secret").read_text(encoding="utf-8") == "OUTSIDE SECRET"
    assert os.listdir(outside) == ["secret"]


def test_a_symlinked_folder_inside_is_followed_and_one_leading_out_is_refused(
    places: tuple[Path, Path],
) -> None:
    cwd, outside = places
    (cwd / "real").mkdir()
    (cwd / "real" / "notes").write_text("inside notes", encoding="utf-8")
    (cwd / "alias").symlink_to("real")  # relative, inside: followed
    (cwd / "out").symlink_to(outside)  # absolute: refused
    (cwd / "up").symlink_to("../outside")  # relative, but leaves the folder: refused
    out = ask(cwd, "read alias/notes", "read out/secret", "read up/secret")
    assert "read alias/notes: inside notes" in out
    assert "read out/secret refused (-32602): 'out' is a symlink to an absolute path" in out
    assert "read up/secret refused (-32602): outside the working directory" in out
    assert "OUTSIDE SECRET" not in out
