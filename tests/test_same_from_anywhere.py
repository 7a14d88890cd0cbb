"""The same answer from any folder: the regenerate command in every header and in the manifest
names paths relative to the project root, never the current directory as typed, so `check`
and `vendor --check` agree from the project, a subfolder and outside it, and the files are the
same bytes whichever folder they were generated from.

Uses the small merge_annotation schema (in-process `main`, renders cached by input)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from acp_codegen.commands.cli import main
from acp_codegen.write.manifest import MANIFEST
from cli_work import SOURCE, cache_renders
from write_checks import file_states

PACKAGE = "myproj._vendor.acp"
TABLE = '[tool.acp-codegen]\nschema = "spec/schema.json"\nout = "gen"\npackage = "pkg"\n'


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`<tmp>/proj` with a schema under spec/ and an empty src/myproj; renders cached."""
    cache_renders(monkeypatch)
    root = tmp_path / "proj"
    (root / "spec").mkdir(parents=True)
    (root / "src" / "myproj").mkdir(parents=True)
    shutil.copy(SOURCE, root / "spec" / "schema.json")
    (tmp_path / "elsewhere").mkdir()
    return root


def run_in(folder: Path, monkeypatch: pytest.MonkeyPatch, *argv: str) -> int:
    monkeypatch.chdir(folder)
    return main([*argv, "-q"])


def contents(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def regenerate_line(folder: Path, module: str) -> str:
    """The header's regenerate command, its continuation lines (` \\`) joined back."""
    lines = (folder / module).read_text(encoding="utf-8").splitlines()[2:]
    words = [lines[0].strip("# ")]
    while words[-1].endswith(" \\"):
        words[-1] = words[-1][:-2]
        words.append(lines[len(words)].strip("# "))
    return " ".join(words)


def test_check_agrees_from_the_project_a_subfolder_and_outside(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "pyproject.toml").write_text(TABLE, encoding="utf-8")
    assert run_in(project, monkeypatch, "generate") == 0
    package = project / "gen" / "pkg"
    expected = "acp-codegen generate --schema spec/schema.json --out gen --package pkg"
    assert regenerate_line(package, "models.py") == expected
    assert f'"regenerate": "{expected}"' in (package / MANIFEST).read_text(encoding="utf-8")
    before = file_states(package)

    assert run_in(project / "src" / "myproj", monkeypatch, "check") == 0
    outside = project.parent / "elsewhere"
    absolute = ["--schema", str(project / "spec" / "schema.json"), "--out", str(project / "gen")]
    assert run_in(outside, monkeypatch, "check", *absolute, "--package", "pkg") == 0
    # a relative spelling from a subfolder, through `..`, is the same target too
    relative = ["--schema", "../../spec/schema.json", "--out", "../../gen", "--package", "pkg"]
    assert run_in(project / "src" / "myproj", monkeypatch, "check", *relative) == 0
    assert file_states(package) == before  # nothing was rewritten


def test_generate_from_any_folder_writes_the_same_bytes(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "pyproject.toml").write_text(TABLE, encoding="utf-8")
    package = project / "gen" / "pkg"
    assert run_in(project, monkeypatch, "generate") == 0
    first = contents(package)
    shutil.rmtree(package)
    absolute = ["--schema", str(project / "spec" / "schema.json"), "--out", str(project / "gen")]
    outside = project.parent / "elsewhere"
    assert run_in(outside, monkeypatch, "generate", *absolute, "--package", "pkg") == 0
    assert contents(package) == first
    shutil.rmtree(package)
    assert run_in(project / "src", monkeypatch, "generate") == 0
    assert contents(package) == first


@pytest.mark.parametrize("pyproject", ["[project]\nname = 'myproj'\n", None], ids=["plain", "none"])
def test_vendor_check_agrees_from_any_folder(
    project: Path, monkeypatch: pytest.MonkeyPatch, pyproject: str | None
) -> None:
    """A project whose pyproject.toml has no table (or none at all: the folder `--into` is
    named in is the root then) gets the same regenerate command from everywhere."""
    if pyproject is not None:
        (project / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    schema = ["--schema", str(project / "spec" / "schema.json"), "--package", PACKAGE]
    into = project / "src" / "myproj" / "_vendor" / "acp"
    into.parent.mkdir()
    holder = project if pyproject is not None else into.parent
    typed = into.relative_to(holder).as_posix()
    assert run_in(holder, monkeypatch, "vendor", "--into", typed, *schema) == 0
    line = regenerate_line(into, "models.py")
    assert line.startswith(f"acp-codegen vendor --into {typed} --package {PACKAGE} --schema ")
    first = contents(into)

    tries = [
        (project / "src", "myproj/_vendor/acp"),
        (project / "src" / "myproj" / "_vendor", "acp"),
        (project.parent / "elsewhere", str(into)),
    ]
    for cwd, spelled in tries:
        assert run_in(cwd, monkeypatch, "vendor", "--check", "--into", spelled, *schema) == 0, cwd
        assert regenerate_line(into, "models.py") == line
    assert contents(into) == first


def test_a_schema_outside_the_project_is_named_from_the_root(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sibling checkout's schema is `../...` from the root, however the cwd spelled it."""
    (project / "pyproject.toml").write_text("[project]\nname = 'myproj'\n", encoding="utf-8")
    shared = project.parent / "shared"
    shared.mkdir()
    shutil.copy(SOURCE, shared / "schema.json")
    into = ["--into", "src/myproj/_vendor/acp", "--package", PACKAGE]
    assert run_in(project, monkeypatch, "vendor", *into, "--schema", "../shared/schema.json") == 0
    line = regenerate_line(project / "src/myproj/_vendor/acp", "models.py")
    assert line.endswith("--schema ../shared/schema.json")
    from_src = ["--into", "myproj/_vendor/acp", "--package", PACKAGE]
    from_src += ["--schema", "../../shared/schema.json"]
    assert run_in(project / "src", monkeypatch, "vendor", "--check", *from_src) == 0


def test_a_broken_pyproject_above_the_output_is_not_ours_to_refuse(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding the root reads pyproject files above the output; one that is not TOML (some
    other tool's) only means no table there: vendoring from outside still works."""
    (project.parent / "pyproject.toml").write_text("not = [toml", encoding="utf-8")
    (project / "pyproject.toml").write_text("[project]\nname = 'myproj'\n", encoding="utf-8")
    into = project / "src" / "myproj" / "_vendor" / "acp"
    into.parent.mkdir()
    schema = ["--schema", str(project / "spec" / "schema.json"), "--package", PACKAGE]
    assert run_in(project, monkeypatch, "vendor", "--into", str(into), *schema) == 0
    line = regenerate_line(into, "models.py")
    assert line.startswith(f"acp-codegen vendor --into src/myproj/_vendor/acp --package {PACKAGE}")


def test_adding_a_pyproject_later_changes_no_header(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Vendored with no pyproject.toml anywhere, from the folder that later gets one: the
    command names `--into` from there (runnable there as written), from a subfolder it is the
    same, and the table added later leaves every file as it was."""
    schema = ["--schema", "spec/schema.json", "--package", PACKAGE]
    into = project / "src" / "myproj" / "_vendor" / "acp"
    assert run_in(project, monkeypatch, "vendor", "--into", "src/myproj/_vendor/acp", *schema) == 0
    line = regenerate_line(into, "models.py")
    assert line == (
        f"acp-codegen vendor --into src/myproj/_vendor/acp --package {PACKAGE} "
        "--schema spec/schema.json"
    )
    first = contents(into)
    from_src = ["--into", "myproj/_vendor/acp", "--schema", "../spec/schema.json"]
    assert run_in(project / "src", monkeypatch, "vendor", "--check", *from_src, "--package",
                  PACKAGE) == 0  # fmt: skip
    (project / "pyproject.toml").write_text(TABLE, encoding="utf-8")
    assert run_in(project, monkeypatch, "vendor", "--check", "--into", str(into), *schema) == 0
    assert run_in(project, monkeypatch, "vendor", "--into", str(into), *schema) == 0
    assert contents(into) == first
