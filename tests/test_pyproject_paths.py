"""A cloned project's pyproject.toml cannot send `generate` (or the pre-commit hook's `check`)
outside the project: each path in `[tool.acp-codegen]` must stay inside the folder holding that
file once `..`, `~` and symlinks are resolved. One that leads elsewhere is refused with exit 2,
naming the file and the key, before anything is read or written; the same path typed by the
user on the command line is theirs to choose and works as ever.

Each project here is what an attacker would commit: a crafted pyproject.toml, maybe a symlink.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from acp_codegen.commands.cli import main
from acp_codegen.commands.exits import EXIT_OK, EXIT_USAGE
from cli_work import SOURCE


def tree(folder: Path) -> list[str]:
    """Every path under `folder`, so a test can say nothing appeared anywhere."""
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder standing for the user's machine: a home folder (HOME points there, so `~`
    never reaches the real one), a schema outside the project, and the cloned project."""
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    shutil.copy(SOURCE, tmp_path / "outside.json")
    (tmp_path / "clone" / "schemas").mkdir(parents=True)
    shutil.copy(SOURCE, tmp_path / "clone" / "schemas" / "s.json")
    monkeypatch.chdir(tmp_path / "clone")
    return tmp_path


def clone_with(machine: Path, table: str) -> Path:
    project = machine / "clone"
    (project / "pyproject.toml").write_text(
        f'[project]\nname = "x"\n\n[tool.acp-codegen]\npackage = "pkg"\n{table}\n',
        encoding="utf-8",
    )
    return project


def symlink(name: str, target: str) -> Callable[[Path], None]:
    def make(machine: Path) -> None:
        (machine / "clone" / name).symlink_to(machine / target, target_is_directory=True)

    return make


def absolute(machine: Path) -> str:
    return str(machine / "elsewhere")


# (case, the table's out line, what else the clone commits)
OUTS: list[tuple[str, Callable[[Path], str], Callable[[Path], None] | None]] = [
    ("parent", lambda m: 'out = "../elsewhere"', None),
    ("dots inside", lambda m: 'out = "gen/../../elsewhere"', None),
    ("home", lambda m: 'out = "~/elsewhere"', None),
    ("absolute", lambda m: f"out = {absolute(m)!r}", None),
    ("symlinked folder", lambda m: 'out = "gen"', symlink("gen", "home")),
    ("symlinked default", lambda m: "", symlink("generated", "home")),
]


@pytest.mark.parametrize("command", ["generate", "check"])
@pytest.mark.parametrize(("case", "line", "extra"), OUTS, ids=[case for case, _, _ in OUTS])
def test_an_out_leading_outside_the_project_is_refused(
    machine: Path,
    capsys: pytest.CaptureFixture[str],
    command: str,
    case: str,
    line: Callable[[Path], str],
    extra: Callable[[Path], None] | None,
) -> None:
    project = clone_with(machine, f'schema = "schemas/s.json"\n{line(machine)}')
    if extra is not None:
        extra(machine)
    before = tree(machine)
    assert main([command]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert f"{project / 'pyproject.toml'}: [tool.acp-codegen] out = " in err, err
    assert "leads outside the project" in err and "--out PATH" in err
    assert tree(machine) == before  # nothing written, here or anywhere


@pytest.mark.parametrize("key", ["schema", "v1-schema"])
@pytest.mark.parametrize("value", ["../outside.json", "~/../outside.json", "ABSOLUTE"])
def test_a_schema_outside_the_project_is_not_read(
    machine: Path, capsys: pytest.CaptureFixture[str], key: str, value: str
) -> None:
    """Its text would land in the generated files and in messages: a clone's hook could read
    any file the user can."""
    value = str(machine / "outside.json") if value == "ABSOLUTE" else value
    table = f"{key} = {value!r}" + ('\nschema = "schemas/s.json"' if key == "v1-schema" else "")
    project = clone_with(machine, table)
    os.chmod(machine / "outside.json", 0)  # reading it would fail loudly, not refuse
    before = tree(machine)
    try:
        assert main(["check"]) == EXIT_USAGE
    finally:
        os.chmod(machine / "outside.json", 0o644)
    err = capsys.readouterr().err
    assert f"{project / 'pyproject.toml'}: [tool.acp-codegen] {key} = " in err, err
    assert f"--{key} PATH" in err and "Permission" not in err
    assert tree(machine) == before


def test_the_same_paths_given_on_the_command_line_are_the_users_choice(machine: Path) -> None:
    clone_with(machine, 'schema = "../outside.json"\nout = "../elsewhere"')
    argv = ["generate", "--schema", "../outside.json", "--out", "../elsewhere"]
    assert main(argv) == EXIT_OK
    assert (machine / "elsewhere" / "pkg" / "models.py").is_file()


def test_a_message_shows_control_characters_escaped(
    machine: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clone_with(machine, 'schema = "schemas/s.json"\nout = "../\\u001b]0;pwned\\u0007x"')
    assert main(["generate"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err
    assert "\\x1b]0;pwned\\x07x" in err


def test_paths_inside_the_project_work_however_they_are_written(machine: Path) -> None:
    project = clone_with(machine, 'schema = "./schemas/../schemas/s.json"\nout = "a/../gen"')
    (project / "linked").symlink_to(project / "schemas", target_is_directory=True)
    assert main(["generate"]) == EXIT_OK
    assert (project / "gen" / "pkg" / "models.py").is_file()
    clone_with(machine, 'schema = "linked/s.json"\nout = "gen"')
    assert main(["check"]) == EXIT_OK


def test_a_symlink_loop_is_refused_not_a_traceback(
    machine: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = clone_with(machine, 'schema = "schemas/s.json"\nout = "loop/x"')
    (project / "loop").symlink_to(project / "loop")
    assert main(["generate"]) == EXIT_USAGE
    assert "[tool.acp-codegen] out = 'loop/x'" in capsys.readouterr().err


def test_vendor_does_not_read_a_schema_from_outside_either(
    machine: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clone_with(machine, 'schema = "../outside.json"')
    assert main(["vendor", "--into", "src/x/acp", "--package", "x.acp"]) == EXIT_USAGE
    assert "[tool.acp-codegen] schema = '../outside.json'" in capsys.readouterr().err
    assert not (machine / "clone" / "src").exists()
