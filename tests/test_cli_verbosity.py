"""`--quiet` and `--verbose` on every command: quiet keeps errors and what the command is for
(a diff, a report), verbose adds the steps on stderr and never changes stdout."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from acp_codegen.commands.cli import _parser, main
from cli_work import ARGS, SOURCE, enter_work


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return enter_work(tmp_path, monkeypatch)


def count_files(work: Path) -> int:
    """Files the generator writes: those its manifest lists, and the manifest itself."""
    manifest = work / "out" / "pkg" / ".acp-codegen-manifest.json"
    return len(json.loads(manifest.read_text())["files"]) + 1


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_generate_quiet_prints_nothing_normal_prints_the_result_and_notes(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "generate", "-q", *ARGS) == (0, "", "")
    others = count_files(work) - 1
    (work / "out" / "pkg" / "methods.py").unlink()
    code, out, err = run(capsys, "generate", *ARGS)
    assert code == 0
    assert out == f"out/pkg: 1 file(s) changed, {others} unchanged (1 written, 0 removed)\n"
    assert err.startswith("note: schema.json: ")  # this fixture's schema always gets notes


def test_generate_verbose_lists_each_file_and_the_steps(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "generate", "--verbose", *ARGS)
    assert code == 0 and out.startswith(f"out/pkg: {count_files(work)} file(s) changed")
    assert "schema: schema.json (from --schema)\n" in err
    assert "reading schema.json\n" in err
    assert "fingerprint: no match" in err
    assert "  written   out/pkg/models.py\n" in err
    assert "generate: " in err.splitlines()[-1]  # the time taken, last
    (work / "out" / "pkg" / "methods.py").unlink()
    code, out_again, err = run(capsys, "generate", "-v", *ARGS)
    assert "  written   out/pkg/methods.py\n" in err
    assert "  unchanged out/pkg/models.py\n" in err
    others = count_files(work) - 1
    assert out_again == f"out/pkg: 1 file(s) changed, {others} unchanged (1 written, 0 removed)\n"
    code, _, err = run(capsys, "generate", "-v", *ARGS)
    assert (
        f"fingerprint: matches the manifest and all {count_files(work)} file(s); nothing to render"
        in err
    )
    assert "reading schema.json" not in err  # skipped: the schema was hashed, not parsed


def test_check_quiet_still_prints_the_diff(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "generate", *ARGS)[0] == 0
    assert run(capsys, "check", "-q", *ARGS) == (0, "", "")
    methods = work / "out" / "pkg" / "methods.py"
    methods.write_text(methods.read_text(encoding="utf-8") + "# mine\n", encoding="utf-8")
    code, out, err = run(capsys, "check", "-q", *ARGS)
    assert code == 1
    assert "-# mine\n" in out and out.startswith("--- a/pkg/methods.py")
    assert "note:" not in err and "out/pkg is out of date" in err


def test_verbose_never_changes_stdout(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", *ARGS]) == 0
    (work / "out" / "pkg" / "state.py").unlink()
    capsys.readouterr()
    normal = run(capsys, "check", *ARGS)
    verbose = run(capsys, "check", "-v", *ARGS)
    assert normal[:2] == verbose[:2] and normal[0] == 1
    assert len(verbose[2]) > len(normal[2])


def test_validate_levels(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "validate", "-q", "schema.json") == (0, "", "")
    assert run(capsys, "validate", "schema.json")[:2] == (0, "schema.json: ok\n")
    code, out, err = run(capsys, "validate", "-v", "schema.json")
    assert (code, out) == (0, "schema.json: ok\n")
    assert "schema: schema.json" in err and "note: " in err
    (work / "broken.json").write_text("{", encoding="utf-8")
    code, out, err = run(capsys, "validate", "-q", "broken.json")
    assert (code, out) == (2, "")
    assert err.startswith("error: broken.json#/: not valid JSON")  # errors survive --quiet


def test_vendor_levels(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    vendor = ["vendor", "--schema", "schema.json", "--into", "v", "--package", "a.b"]
    code, out, err = run(capsys, *vendor, "-q")
    assert (code, out, err) == (0, "", "")  # no note about the import path, no result line
    code, out, err = run(capsys, *vendor)
    assert "note: v does not end in a/b" in err and out.startswith("v: 0 file(s) changed")
    code, out, err = run(capsys, *vendor, "--check", "-v")
    assert code == 0 and out == "v: up to date\n" and "fingerprint: matches" in err


def test_verbose_says_where_the_schema_comes_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = enter_work(tmp_path, monkeypatch)
    (project / "pyproject.toml").write_text(
        '[tool.acp-codegen]\nschema = "schema.json"\n', encoding="utf-8"
    )
    code, _, err = run(capsys, "check", "-v")
    assert code == 1
    assert f"schema: {project / 'schema.json'} (from [tool.acp-codegen] in " in err


def test_diff_quiet_keeps_the_report_verbose_adds_steps(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    normal = run(capsys, "diff", str(SOURCE), "schema.json")
    quiet = run(capsys, "diff", "-q", str(SOURCE), "schema.json")
    code, out, err = run(capsys, "diff", "-v", str(SOURCE), "schema.json")
    assert normal == quiet and normal[1].startswith("no changes")
    assert (code, out) == normal[:2]
    assert f"old: {SOURCE}\nnew: schema.json\n" in err


def test_quiet_and_verbose_together_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["check", "-q", "-v"])
    assert info.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_every_command_takes_quiet_and_verbose() -> None:
    parser = _parser()
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert {"generate", "check", "validate", "vendor", "diff"} <= set(sub.choices)
    leaves = list(_leaf_commands(parser, "acp-codegen"))
    assert "acp-codegen new agent" in {name for name, _ in leaves}
    for name, command in leaves:
        text = command.format_help()
        assert "--quiet" in text and "--verbose" in text, name


def _leaf_commands(
    parser: argparse.ArgumentParser, name: str
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every command that runs (`new agent`, not the `new` group that only chooses one)."""
    groups = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not groups:
        yield name, parser
    for group in groups:
        for child, command in group.choices.items():
            yield from _leaf_commands(command, f"{name} {child}")


def test_notes_are_printed_on_every_run_and_kept_in_the_manifest(
    work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, first = run(capsys, "generate", *ARGS)
    assert code == 0 and first.startswith("note: schema.json: ")
    manifest = work / "out" / "pkg" / ".acp-codegen-manifest.json"
    kept = json.loads(manifest.read_text(encoding="utf-8"))["notes"]
    assert kept and all(note.startswith("{schema}: ") for note in kept)
    for command in ("generate", "check"):  # rendering is skipped: the notes come from the manifest
        assert run(capsys, command, *ARGS) == (0, run_output(command, work), first)
        assert run(capsys, command, "-q", *ARGS) == (0, "", "")
    before = manifest.read_bytes()
    (work / "sub").mkdir()
    monkeypatch.chdir(work / "sub")
    argv = ["generate", "--schema", "../schema.json", "--out", "../out", "--package", "pkg"]
    code, _, elsewhere = run(capsys, *argv)
    outside = (work / "schema.json").resolve().as_posix()  # shown absolute: outside the cwd
    assert code == 0 and elsewhere == first.replace("note: schema.json: ", f"note: {outside}: ")
    assert manifest.read_bytes() == before  # the same from any folder


def run_output(command: str, work: Path) -> str:
    if command == "check":
        return "out/pkg: up to date\n"
    return f"out/pkg: 0 file(s) changed, {count_files(work)} unchanged (0 written, 0 removed)\n"


def test_validate_prints_notes_without_verbose(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "validate", "schema.json")
    assert (code, out) == (0, "schema.json: ok\n") and err.startswith("note: schema.json: ")
