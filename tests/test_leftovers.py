"""A run killed while swapping a package folder in leaves hidden `.<pkg>.new-*`/`.<pkg>.old-*`
folders (and, between the two renames, no package folder). The next write restores or removes
them, says so, and touches nothing else. The leftover states are made by hand here."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from acp_codegen.commands.cli import main
from acp_codegen.write.manifest import MANIFEST
from conftest import FIXTURE_SCHEMAS, REPO
from write_checks import file_states, render_once

SOURCE = FIXTURE_SCHEMAS / "merge_annotation.json"
OLD = ".pkg.old-abc12_x9"
NEW = ".pkg.new-q1w2e3r4"


@pytest.fixture(autouse=True)
def _render_once(monkeypatch: pytest.MonkeyPatch) -> None:
    render_once(monkeypatch)


@pytest.fixture
def out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Path:
    """`out/pkg` generated once (the cwd is the tmp dir)."""
    shutil.copy(SOURCE, tmp_path / "schema.json")
    monkeypatch.chdir(tmp_path)
    assert generate() == 0
    capsys.readouterr()
    return tmp_path / "out"


GENERATE_ARGS = ["generate", "--schema", "schema.json", "--out", "out", "--package", "pkg"]


def generate() -> int:
    return main(GENERATE_ARGS)


def not_ours(out: Path) -> dict[str, Path]:
    """Folders beside the package that only look like leftovers: none may be touched."""
    folders = {
        "other package's": out / ".other.old-abc12_x9",
        "no manifest": out / ".pkg.old-zzzzzzzz",
        "other pattern": out / ".pkg.old-mine",
        "a file": out / ".pkg.new-aaaaaaaa",
    }
    shutil.copytree(out / "pkg", folders["other package's"])
    folders["no manifest"].mkdir()
    (folders["no manifest"] / "notes.txt").write_text("mine\n", encoding="utf-8")
    shutil.copytree(out / "pkg", folders["other pattern"])
    folders["a file"].write_text("a file, not a folder\n", encoding="utf-8")
    return folders


def test_a_backup_left_after_the_swap_is_removed_and_nothing_else(
    out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(out / "pkg", out / OLD)  # killed after the package was swapped in
    (out / ".pkg.new-emptyemp").mkdir()  # killed right after the stage was made
    others = not_ours(out)
    before = {name: file_states(path) for name, path in others.items() if path.is_dir()}
    pkg_before = file_states(out / "pkg")
    assert generate() == 0
    err = capsys.readouterr().err
    assert f"removed {OLD}" in err and "removed .pkg.new-emptyemp" in err
    assert not (out / OLD).exists() and not (out / ".pkg.new-emptyemp").exists()
    assert {name: file_states(path) for name, path in others.items() if path.is_dir()} == before
    assert others["a file"].read_text(encoding="utf-8") == "a file, not a folder\n"
    assert file_states(out / "pkg") == pkg_before  # already current: not rewritten


def test_killed_between_the_renames_the_previous_folder_is_put_back_first(
    out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The previous package held a file of the user's; the run was killed with the package
    # renamed away and the stage complete beside it.
    (out / "pkg" / "mine.py").write_text("x = 1\n", encoding="utf-8")
    shutil.copytree(out / "pkg", out / NEW, ignore=shutil.ignore_patterns("mine.py"))
    (out / "pkg").rename(out / OLD)
    assert generate() == 1  # the restored folder holds the user's file: refused as ever
    err = capsys.readouterr().err
    assert f"restored {Path('out') / 'pkg'} from {OLD}" in err
    assert f"removed {NEW}" in err
    assert (out / "pkg" / "mine.py").read_text(encoding="utf-8") == "x = 1\n"
    assert sorted(p.name for p in out.iterdir()) == ["pkg"]


def test_a_stage_of_a_first_run_is_removed_and_the_package_written(
    out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (out / "pkg").rename(out / NEW)
    (out / NEW / "models.py").unlink()  # killed while staging
    assert generate() == 0
    assert f"removed {NEW}" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["pkg"]
    assert (out / "pkg" / "models.py").is_file() and (out / "pkg" / MANIFEST).is_file()


def test_two_backups_and_no_package_are_left_for_the_user_to_choose(
    out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(out / "pkg", out / ".pkg.old-11111111")
    (out / "pkg").rename(out / OLD)
    assert generate() == 0
    assert "several earlier copies remain" in capsys.readouterr().err
    assert (out / OLD / MANIFEST).is_file() and (out / ".pkg.old-11111111" / MANIFEST).is_file()


def generate_killed(script: str) -> None:
    """`generate` in a child that `script` makes kill itself part-way (SIGKILL)."""
    killed = subprocess.run(
        [sys.executable, "-c", script, *GENERATE_ARGS],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        check=False,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()


KILLED_WHILE_STAGING = """
import os, signal, sys
from acp_codegen.write import writer
real = writer._write_file
def write_then_die(path, data):
    real(path, data)
    os.kill(os.getpid(), signal.SIGKILL)  # right after the first file the run writes itself
writer._write_file = write_then_die
from acp_codegen.commands.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_run_killed_while_staging_leaves_a_stage_the_next_run_removes(
    out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("models.py", "methods.py"):  # something to write, so a stage is made
        (out / "pkg" / name).unlink()
    generate_killed(KILLED_WHILE_STAGING)
    [stage] = [path for path in out.iterdir() if path.name.startswith(".pkg.new-")]
    staged = {path.name for path in stage.rglob("*") if path.is_file()}
    assert MANIFEST in staged and not {"models.py", "methods.py"} <= staged  # part-way
    assert generate() == 0
    assert f"removed {stage.name}" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["pkg"]
    assert (out / "pkg" / "models.py").is_file() and (out / "pkg" / "methods.py").is_file()


KILLED_CREATING_THE_MANIFEST = """
import os, signal, sys
from acp_codegen.write import writer
def create_then_die(path, data):
    open(path, "xb").close()
    os.kill(os.getpid(), signal.SIGKILL)  # the first file created, before a byte is in it
writer._write_file = create_then_die
from acp_codegen.commands.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_run_killed_as_it_creates_the_stages_manifest_leaves_nothing_behind(
    out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.rmtree(out / "pkg")  # a first run: the manifest is the first file staged
    generate_killed(KILLED_CREATING_THE_MANIFEST)
    [stage] = [path for path in out.iterdir() if path.name.startswith(".pkg.new-")]
    assert [path.stat().st_size for path in stage.iterdir()] == [0]
    assert not (stage / MANIFEST).exists()  # never a manifest that says nothing
    assert generate() == 0
    assert f"removed {stage.name}" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["pkg"]


def test_an_empty_manifest_alone_in_a_stage_is_an_earlier_releases_leftover(
    out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (out / NEW).mkdir()
    (out / NEW / MANIFEST).write_bytes(b"")
    assert generate() == 0
    assert f"removed {NEW}" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["pkg"]
