"""The `acp-codegen` command line: generate, check, validate, defaults from pyproject.toml.

Runs on the small merge_annotation fixture in tmp dirs (cwd changed there, so paths shown by the
CLI are relative to the tmp dir and the expected fix command is exact).
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from acp_codegen import __version__
from acp_codegen.commands.cli import main
from acp_codegen.write.manifest import MANIFEST
from conftest import FIXTURE_SCHEMAS
from write_checks import file_states, render_once

SOURCE = FIXTURE_SCHEMAS / "merge_annotation.json"
FIX = "acp-codegen generate --schema schema.json --out out --package pkg"
ARGS = ["--schema", "schema.json", "--out", "out", "--package", "pkg"]


@pytest.fixture(autouse=True)
def _render_once(monkeypatch: pytest.MonkeyPatch) -> None:
    render_once(monkeypatch)


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A tmp dir (the cwd, no pyproject.toml above it) holding schema.json."""
    shutil.copy(SOURCE, tmp_path / "schema.json")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def generated(work: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["generate", *ARGS]) == 0
    capsys.readouterr()
    return work / "out"


def files_under(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_generate_then_check_is_clean(generated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (generated / "pkg" / "models.py").is_file()
    assert (generated / "pkg" / "__init__.py").is_file()
    assert main(["check", *ARGS]) == 0
    assert "up to date" in capsys.readouterr().out


def test_manifest_lists_exactly_the_written_files(generated: Path) -> None:
    manifest = json.loads((generated / "pkg" / MANIFEST).read_text(encoding="utf-8"))
    assert sorted(manifest["files"]) == sorted(files_under(generated / "pkg") - {MANIFEST})
    for rel, digest in manifest["files"].items():
        assert hashlib.sha256((generated / "pkg" / rel).read_bytes()).hexdigest() == digest
    assert not [p for p in generated.rglob(".tmp-*")]


def test_headers_quote_the_fix_command(generated: Path) -> None:
    text = (generated / "pkg" / "models.py").read_text(encoding="utf-8")
    assert FIX in text


def test_check_shows_a_diff_and_the_fix_command_for_an_edited_file(
    generated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = generated / "pkg" / "methods.py"
    original = path.read_text(encoding="utf-8")
    path.write_text(original + "EDITED = True\n", encoding="utf-8")
    assert main(["check", *ARGS]) == 1
    captured = capsys.readouterr()
    assert "--- a/pkg/methods.py" in captured.out
    assert "+++ b/pkg/methods.py" in captured.out
    assert "\n-EDITED = True\n" in captured.out
    assert "@@ " in captured.out
    assert f"Fix it with: {FIX}" in captured.err
    assert "1 changed" in captured.err
    assert path.read_text(encoding="utf-8").endswith("EDITED = True\n"), "check must not write"


def test_check_reports_a_deleted_file_as_missing(
    generated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (generated / "pkg" / "merge_rules.py").unlink()
    assert main(["check", *ARGS]) == 1
    captured = capsys.readouterr()
    assert "+++ b/pkg/merge_rules.py" in captured.out
    assert "1 missing" in captured.err
    assert f"Fix it with: {FIX}" in captured.err
    assert not (generated / "pkg" / "merge_rules.py").exists()


def test_check_reports_a_stray_file_in_the_package_as_extra(
    generated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (generated / "pkg" / "stray.py").write_text("x = 1\n", encoding="utf-8")
    assert main(["check", *ARGS]) == 1
    captured = capsys.readouterr()
    assert "--- a/pkg/stray.py" in captured.out
    assert "1 extra" in captured.err
    assert f"Fix it with: {FIX}" in captured.err


def test_check_on_a_missing_tree_reports_everything_missing(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", *ARGS]) == 1
    assert "missing" in capsys.readouterr().err
    assert not (work / "out").exists()


def test_files_outside_the_package_are_not_ours(
    generated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (generated / "README.md").write_text("mine\n", encoding="utf-8")
    (generated / "other_pkg").mkdir()
    (generated / "other_pkg" / "mod.py").write_text("y = 2\n", encoding="utf-8")
    assert main(["check", *ARGS]) == 0
    assert main(["generate", *ARGS]) == 0
    assert (generated / "README.md").read_text(encoding="utf-8") == "mine\n"
    assert (generated / "other_pkg" / "mod.py").read_text(encoding="utf-8") == "y = 2\n"


def test_second_generate_rewrites_nothing(
    generated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = file_states(generated)
    assert main(["generate", *ARGS]) == 0
    out = capsys.readouterr().out
    assert file_states(generated) == before
    assert re.search(r"\b0 file\(s\) changed, (\d+) unchanged", out), out
    assert f", {len(before)} unchanged" in out


def test_generate_restores_a_deleted_file(
    generated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = file_states(generated)
    (generated / "pkg" / "state.py").unlink()
    assert main(["generate", *ARGS]) == 0
    assert "1 file(s) changed" in capsys.readouterr().out
    assert {rel: data for rel, (data, _, _) in file_states(generated).items()} == {
        rel: data for rel, (data, _, _) in before.items()
    }


def test_generate_force_restores_the_tree(
    generated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {rel: data for rel, (data, _, _) in file_states(generated).items()}
    (generated / "pkg" / "methods.py").write_text("broken\n", encoding="utf-8")
    (generated / "pkg" / "state.py").unlink()
    (generated / "pkg" / "stray.py").write_text("x = 1\n", encoding="utf-8")
    assert main(["check", *ARGS]) == 1
    capsys.readouterr()
    assert main(["generate", *ARGS]) == 1  # an edited and a stray file: refused
    assert (generated / "pkg" / "stray.py").is_file()
    assert main(["generate", *ARGS, "--force"]) == 0
    assert "3 file(s) changed" in capsys.readouterr().out
    assert {rel: data for rel, (data, _, _) in file_states(generated).items()} == before
    assert main(["check", *ARGS]) == 0


def test_only_changed_files_are_rewritten(generated: Path) -> None:
    before = file_states(generated)
    (generated / "pkg" / "methods.py").write_text("broken\n", encoding="utf-8")
    assert main(["generate", *ARGS, "--force"]) == 0
    after = file_states(generated)
    rewritten = sorted(rel for rel in before if after[rel][1:] != before[rel][1:])
    assert rewritten == ["pkg/methods.py"]


def test_switching_package_reports_sensible_counts(
    generated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["generate", "--schema", "schema.json", "--out", "out", "--package", "other"]) == 0
    out = capsys.readouterr().out
    match = re.search(r"(-?\d+) file\(s\) changed, (-?\d+) unchanged", out)
    assert match, out
    assert int(match.group(2)) >= 0, out


def test_another_package_leaves_the_first_one_alone(
    generated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each package has its own manifest: a second `--package` adds, it does not replace."""
    before = file_states(generated / "pkg")
    args = ["--schema", "schema.json", "--out", "out", "--package", "other"]
    assert main(["generate", *args]) == 0
    assert main(["check", *args]) == 0
    assert main(["check", *ARGS]) == 0
    assert file_states(generated / "pkg") == before


@pytest.mark.parametrize("command", ["generate", "check", "validate"])
def test_subcommand_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert f"acp-codegen {command}" in out
    if command != "validate":
        for option in ("--schema", "--out", "--package"):
            assert option in out


def test_top_level_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for command in ("generate", "check", "validate"):
        assert command in out
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"acp-codegen {__version__}"


def test_no_subcommand_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([])
    assert info.value.code == 2
    assert "usage" in capsys.readouterr().err


def test_console_script(work: Path) -> None:
    exe = shutil.which("acp-codegen") or str(Path(sys.executable).parent / "acp-codegen")
    version = subprocess.run([exe, "--version"], capture_output=True, text=True, check=False)
    assert version.returncode == 0 and version.stdout.strip() == f"acp-codegen {__version__}"
    proc = subprocess.run(
        [exe, "validate", "schema.json"], cwd=work, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    bad = work / "bad.json"
    bad.write_text("{", encoding="utf-8")
    proc = subprocess.run(
        [exe, "validate", "bad.json"], cwd=work, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 2


# ------------------------------------------------------------------ defaults from pyproject.toml


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    (root / "schemas").mkdir(parents=True)
    (root / "sub" / "deeper").mkdir(parents=True)
    shutil.copy(SOURCE, root / "schemas" / "s.json")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n'
        '[tool.acp-codegen]\nschema = "schemas/s.json"\nout = "gen"\npackage = "mypkg"\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(root)
    return root


def test_defaults_come_from_pyproject(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate"]) == 0
    assert (project / "gen" / "mypkg" / "models.py").is_file()
    assert main(["check"]) == 0
    fix = "acp-codegen generate --schema schemas/s.json --out gen --package mypkg"
    assert fix in (project / "gen" / "mypkg" / "methods.py").read_text(encoding="utf-8")
    (project / "gen" / "mypkg" / "methods.py").write_text("x\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["check"]) == 1
    assert f"Fix it with: {fix}" in capsys.readouterr().err


def test_pyproject_paths_are_relative_to_its_folder(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(project / "sub" / "deeper")
    assert main(["generate"]) == 0
    assert (project / "gen" / "mypkg" / "models.py").is_file()
    assert not (project / "sub" / "deeper" / "gen").exists()
    (project / "gen" / "mypkg" / "methods.py").write_text("x\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["check"]) == 1
    assert (
        "Fix it with: acp-codegen generate --schema schemas/s.json --out gen --package mypkg"
        in capsys.readouterr().err
    )


def test_command_line_overrides_pyproject(project: Path) -> None:
    assert main(["generate", "--package", "override"]) == 0
    assert (project / "gen" / "override" / "models.py").is_file()
    assert not (project / "gen" / "mypkg").exists()


def test_builtin_defaults_without_a_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "schema").mkdir()
    shutil.copy(SOURCE, tmp_path / "schema" / "acp.schema.json")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["generate"]) == 0
    assert (tmp_path / "generated" / "acp_bindings" / "models.py").is_file()
    assert main(["check"]) == 0


def test_fix_command_is_runnable(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The printed fix command, run as printed (from the project root), repairs the tree."""
    assert main(["generate"]) == 0
    (project / "gen" / "mypkg" / "state.py").unlink()
    capsys.readouterr()
    assert main(["check"]) == 1
    line = next(x for x in capsys.readouterr().err.splitlines() if x.startswith("Fix it with: "))
    argv = shlex.split(line.removeprefix("Fix it with: "))
    assert argv[0] == "acp-codegen"
    assert main(argv[1:]) == 0
    assert main(["check"]) == 0


def test_a_tampered_manifest_cannot_reach_outside_the_output(
    generated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = generated.parent / "victim.txt"
    victim.write_text("keep me\n", encoding="utf-8")
    manifest = generated / "pkg" / MANIFEST
    data = json.loads(manifest.read_text(encoding="utf-8"))
    for rel in ("../../victim.txt", str(victim), "sub/../../../victim.txt"):
        data["files"][rel] = "0" * 64
    manifest.write_text(json.dumps(data), encoding="utf-8")
    assert main(["generate", *ARGS]) == 0
    assert victim.read_text(encoding="utf-8") == "keep me\n"
    assert main(["check", *ARGS]) == 0


def test_an_unreadable_manifest_is_not_fatal(
    generated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (generated / "pkg" / MANIFEST).write_text("{not json", encoding="utf-8")
    assert main(["check", *ARGS]) == 1  # the manifest itself differs
    assert main(["generate", *ARGS]) == 0
    assert main(["check", *ARGS]) == 0
