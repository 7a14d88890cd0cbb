"""Two runs writing one folder: the second waits for the first instead of taking its stage for
a killed run's leftover."""

from __future__ import annotations

import os
import stat
import tempfile
import threading
from pathlib import Path

import pytest
from acp_codegen.write.write_lock import folder_lock, lock_path
from acp_codegen.write.writer import write

GUARD_SECONDS = 60.0


def test_a_second_writer_waits_for_the_first_then_writes(tmp_path: Path) -> None:
    folder = tmp_path / "out" / "pkg"
    heard: list[str] = []
    waiting = threading.Event()

    def report(message: str) -> None:
        heard.append(message)
        waiting.set()

    second = threading.Thread(
        target=write, args=(folder, {"a.py": b"x = 1\n"}), kwargs={"report": report}, daemon=True
    )
    with folder_lock(folder, report=lambda message: None):  # the first run, mid-write
        second.start()
        assert waiting.wait(GUARD_SECONDS)
        assert not folder.exists()  # nothing written while the first run holds the folder
    second.join(GUARD_SECONDS)
    assert not second.is_alive()
    assert (folder / "a.py").read_bytes() == b"x = 1\n"
    assert heard == [f"waiting for another acp-codegen run that is writing {folder}"]


def test_the_lock_is_per_folder_and_outside_the_users_tree(tmp_path: Path) -> None:
    one, other = tmp_path / "a" / "pkg", tmp_path / "b" / "pkg"
    assert lock_path(one) != lock_path(other)
    assert lock_path(one) == lock_path(tmp_path / "a" / "." / "pkg")  # same folder, same lock
    assert tmp_path not in lock_path(one).parents
    with folder_lock(one, report=lambda message: None):
        heard: list[str] = []
        write(other, {"b.py": b"y = 2\n"}, report=heard.append)  # not blocked by `one`
        assert heard == [] and (other / "b.py").is_file()


@pytest.fixture
def lock_base(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary directory of the test's own, standing in for the shared one."""
    base = tmp_path / "shared-tmp"
    base.mkdir()
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(base))
    return base


def test_the_lock_lives_in_a_private_directory_and_is_removed_after(
    tmp_path: Path, lock_base: Path
) -> None:
    folder = tmp_path / "out" / "pkg"
    with folder_lock(folder, report=lambda message: None):
        path = lock_path(folder)
        assert path.parent == lock_base / f"acp-codegen-{os.getuid()}"
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not path.exists()
    for _ in range(3):
        write(folder, {"a.py": b"x = 1\n"}, report=lambda message: None)
    assert list(path.parent.iterdir()) == []  # no lock file piles up


def test_a_runtime_dir_is_preferred(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    assert lock_path(tmp_path / "pkg").parent == tmp_path / f"acp-codegen-{os.getuid()}"


@pytest.mark.parametrize("plant", ["dir-symlink", "open-dir", "file-symlink"])
def test_a_planted_lock_location_is_never_followed(
    tmp_path: Path, lock_base: Path, plant: str
) -> None:
    folder = tmp_path / "out" / "pkg"
    target = tmp_path / "victim"
    private = lock_base / f"acp-codegen-{os.getuid()}"
    if plant == "dir-symlink":
        target.mkdir()
        private.symlink_to(target)
    elif plant == "open-dir":
        private.mkdir()
        private.chmod(0o777)
    else:
        private.mkdir(mode=0o700)
        lock_path(folder).symlink_to(target)  # dangling: O_CREAT would create the target
    heard: list[str] = []
    write(folder, {"a.py": b"x = 1\n"}, report=heard.append)
    assert (folder / "a.py").read_bytes() == b"x = 1\n"  # the run still writes, unserialised
    assert any(message.startswith(f"not locking {folder}") for message in heard), heard
    if plant == "dir-symlink":
        assert list(target.iterdir()) == []
    elif plant == "open-dir":
        assert list(private.iterdir()) == []
    else:
        assert not target.exists()


def test_a_lock_file_a_killed_run_left_is_removed_by_the_next_run(
    tmp_path: Path, lock_base: Path
) -> None:
    left = lock_path(tmp_path / "killed" / "pkg")
    left.parent.mkdir(mode=0o700)
    left.write_bytes(b"")  # what a SIGKILLed run leaves: nobody holds it
    with folder_lock(tmp_path / "held" / "pkg", report=lambda message: None):
        held = lock_path(tmp_path / "held" / "pkg")
        write(tmp_path / "out" / "pkg", {"a.py": b"x = 1\n"}, report=lambda message: None)
        assert not left.exists()
        assert held.exists()  # a lock some run holds is never removed
    assert list(left.parent.iterdir()) == []
