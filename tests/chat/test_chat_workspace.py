"""chat's answers to a v1 agent's file and terminal requests: confined to --cwd."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from acp_codegen._bindings import RpcError
from acp_codegen.commands.chat.gate import Gate, Question
from acp_codegen.commands.chat.terminals import Terminals
from acp_codegen.commands.chat.workspace import Workspace


async def allow(path: Path, content: str, replaced: str | None) -> bool:
    return True


async def deny(path: Path, content: str, replaced: str | None) -> bool:
    return False


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    (root / "sub").mkdir(parents=True)
    (root / "notes.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("keep out", encoding="utf-8")
    (root / "escape").symlink_to(tmp_path / "secret.txt")
    (root / "up").symlink_to(tmp_path)
    (root / "inside").symlink_to("notes.txt")
    (root / "inside_by_name").symlink_to(root / "notes.txt")
    (root / "sub" / "back").symlink_to("../notes.txt")
    return root


def read(workspace: Workspace, path: str, line: int | None = None, limit: int | None = None) -> str:
    return asyncio.run(workspace.read_text(path, line, limit))


def refusal(workspace: Workspace, path: str) -> RpcError:
    with pytest.raises(RpcError) as caught:
        read(workspace, path)
    assert caught.value.code == -32602 and caught.value.data == {"path": path}
    return caught.value


def test_reads_inside_the_working_directory(tree: Path) -> None:
    workspace = Workspace(tree, allow)
    assert read(workspace, str(tree / "notes.txt")) == "one\ntwo\nthree\n"
    assert read(workspace, str(tree / "notes.txt"), line=2, limit=1) == "two\n"
    assert read(workspace, str(tree / "inside")) == "one\ntwo\nthree\n"  # a relative link inside
    assert read(workspace, str(tree / "sub" / "back")) == "one\ntwo\nthree\n"
    assert read(workspace, str(tree / "sub" / ".." / "notes.txt"), line=3) == "three\n"


def test_a_symlink_by_absolute_path_is_refused_even_when_it_points_inside(tree: Path) -> None:
    error = refusal(Workspace(tree, allow), str(tree / "inside_by_name"))
    assert "a symlink to an absolute path" in error.message


@pytest.mark.parametrize(
    "relative",
    ["escape", "up/secret.txt", "../secret.txt", "sub/../../secret.txt"],
)
def test_symlinks_and_dotdot_out_of_the_working_directory_are_refused(
    tree: Path, relative: str
) -> None:
    error = refusal(Workspace(tree, allow), str(tree / relative))
    assert "outside the working directory" in error.message or "absolute path" in error.message


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("notes.txt", "not an absolute path"),
        ("/work/notes.txt\0.png", "NUL"),
        ("/work/\udcff", "not valid text"),
    ],
)
def test_malformed_paths_are_refused(tree: Path, path: str, why: str) -> None:
    assert why in refusal(Workspace(tree, allow), path).message


def test_a_missing_file_is_not_found(tree: Path) -> None:
    with pytest.raises(RpcError) as caught:
        read(Workspace(tree, allow), str(tree / "nope.txt"))
    assert caught.value.code == -32002


def test_writes_are_asked_for_and_confined(tree: Path) -> None:
    asked: list[tuple[Path, str, str | None]] = []

    async def record(path: Path, content: str, replaced: str | None) -> bool:
        asked.append((path, content, replaced))
        return True

    async def main() -> None:
        workspace = Workspace(tree, record)
        await workspace.write_text(str(tree / "new" / "made.txt"), "hello")
        assert (tree / "new" / "made.txt").read_text(encoding="utf-8") == "hello"
        assert asked == [(tree.resolve() / "new" / "made.txt", "hello", None)]
        with pytest.raises(RpcError):
            await workspace.write_text(str(tree / "escape"), "overwritten")
        assert (tree.parent / "secret.txt").read_text(encoding="utf-8") == "keep out"
        assert len(asked) == 1  # a refused path is never even asked about
        with pytest.raises(RpcError) as denied:
            await Workspace(tree, deny).write_text(str(tree / "notes.txt"), "gone")
        assert "did not allow" in denied.value.message
        assert (tree / "notes.txt").read_text(encoding="utf-8").startswith("one")
        # What a write replaces is read as a read is (for the question's diff): through a
        # link inside, the file's text.
        await workspace.write_text(str(tree / "inside"), "one\n2\nthree\n")
        assert asked[-1][1:] == ("one\n2\nthree\n", "one\ntwo\nthree\n")

    asyncio.run(main())


async def run_anything(question: Question) -> bool:
    return True


RUN_ANYTHING = Gate(run_anything)


def test_terminals_run_in_the_working_directory_and_keep_their_output(tree: Path) -> None:
    async def main() -> None:
        terminals = Terminals(Workspace(tree, allow), RUN_ANYTHING)
        script = "import os; print(os.getcwd()); print('x' * 50)"
        terminal = await terminals.create(sys.executable, ["-c", script])
        assert await terminals.wait_for_exit(terminal) == {"exitCode": 0, "signal": None}
        output = terminals.output(terminal)
        assert output["output"].splitlines()[0] == str(tree.resolve())
        assert output["exitStatus"] == {"exitCode": 0, "signal": None}
        small = await terminals.create(
            sys.executable, ["-c", "print('é' * 20)"], output_byte_limit=9
        )
        await terminals.wait_for_exit(small)
        cut = terminals.output(small)
        assert cut["truncated"] is True and set(cut["output"]) <= {"é", "\n"}
        with pytest.raises(RpcError):
            await terminals.create(sys.executable, ["-c", "1"], cwd=str(tree.parent))
        await terminals.close()

    asyncio.run(main())


def test_a_killed_terminal_reports_its_signal_and_refusals_run_nothing(tree: Path) -> None:
    async def never(question: Question) -> bool:
        return False

    async def main() -> None:
        terminals = Terminals(Workspace(tree, allow), RUN_ANYTHING)
        sleeper = await terminals.create(sys.executable, ["-c", "import time; time.sleep(600)"])
        terminals.kill(sleeper)
        assert await terminals.wait_for_exit(sleeper) == {"exitCode": None, "signal": "SIGKILL"}
        await terminals.release(sleeper)
        with pytest.raises(RpcError):
            terminals.output(sleeper)
        with pytest.raises(RpcError) as denied:
            refusing = Terminals(Workspace(tree, allow), Gate(never))
            await refusing.create("touch", [str(tree / "ran")])
        assert "did not allow" in denied.value.message and not (tree / "ran").exists()

    asyncio.run(main())


def test_a_symlink_loop_an_overlong_path_and_a_deep_one_are_refused(tree: Path) -> None:
    (tree / "loop").symlink_to("loop")
    workspace = Workspace(tree, allow)
    assert "more than 40 symlinks" in refusal(workspace, str(tree / "loop")).message
    long_path = str(tree / ("x" * 5000))
    with pytest.raises(RpcError) as caught:
        read(workspace, long_path)
    assert caught.value.code == -32602 and "longer than 4096" in caught.value.message
    deep = tree.joinpath(*["d"] * 257)
    deep.mkdir(parents=True)
    (deep / "f").write_text("deep", encoding="utf-8")
    assert "more than 256 folders deep" in refusal(workspace, str(deep / "f")).message


def test_asked_reads_are_asked_before_the_path_is_looked_at(tree: Path) -> None:
    asked: list[Path] = []

    async def refuse_read(path: Path) -> bool:
        asked.append(path)
        return False

    workspace = Workspace(tree, allow, refuse_read)
    for name in ("notes.txt", "nope.txt", "escape"):
        with pytest.raises(RpcError) as caught:
            read(workspace, str(tree / name))
        assert caught.value.code == -32600 and "did not allow reading" in caught.value.message
    assert asked == [tree.resolve() / name for name in ("notes.txt", "nope.txt", "escape")]
