"""Two runs writing one folder: the second waits for the first instead of taking its stage for
a killed run's leftover."""

from __future__ import annotations

import threading
from pathlib import Path

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
