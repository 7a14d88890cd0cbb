"""How the command line reads as a stranger types it: global options before the subcommand, a
typo reported in the subcommand's usage, help that says defaults and shows examples, Ctrl-C as
one line, and the shipped schema within reach without a clone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from acp_codegen.commands import sync
from acp_codegen.commands.cli import _parser, main, subcommands
from acp_codegen.paths import BUNDLED_SCHEMA
from cli_work import ARGS, enter_work


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return enter_work(tmp_path, monkeypatch)


def help_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as info:
        main([*argv, "--help"])
    assert info.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("option", ["-q", "--quiet"])
def test_quiet_before_the_subcommand(
    work: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    assert main([option, "generate", *ARGS]) == 0
    assert capsys.readouterr() == ("", "")


def test_verbose_before_the_subcommand(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-v", "generate", *ARGS]) == 0
    assert "reading schema.json\n" in capsys.readouterr().err


def test_a_mistyped_option_shows_the_subcommands_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["generate", "--schmea", "x.json"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: acp-codegen generate ")
    assert "acp-codegen generate: error: unrecognized arguments: --schmea x.json" in err


def test_every_subcommand_help_shows_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    for name in subcommands(_parser()):
        text = help_of(capsys, name)
        assert "example" in text and "  acp-codegen " in text, name


def test_every_help_wraps_its_prose_to_the_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Descriptions and notes are wrapped; only indented lines (examples, tables) and the usage
    line are as written, so no paragraph prints as one line past the terminal's edge."""
    monkeypatch.setenv("COLUMNS", "80")
    for name in ["", *subcommands(_parser())]:
        text = help_of(capsys, *name.split())
        prose = [line for line in text.splitlines() if line[:1] not in ("", " ")]
        long = [line for line in prose if len(line) > 80 and not line.startswith("usage:")]
        assert long == [], name
    examples = help_of(capsys, "chat")
    assert "\n  acp-codegen chat -- acp-codegen demo-agent --slow 0.3\n" in examples  # as written


def test_help_says_the_defaults_and_what_validate_takes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = " ".join(help_of(capsys, "generate").split())
    assert "else ./generated" in text and "else acp_bindings" in text
    text = " ".join(help_of(capsys, "validate").split())
    assert "PATH the schema file to check" in text


def test_vendor_takes_an_overlay(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    overlay = work / "overlay.json"
    overlay.write_text("not json", encoding="utf-8")
    argv = ["vendor", "--into", "v/acp", "--package", "v.acp", "--schema", "schema.json"]
    assert main([*argv, "--overlay", "overlay.json"]) == 2
    assert "overlay.json" in capsys.readouterr().err
    assert not (work / "v").exists()


def test_ctrl_c_is_one_line(
    work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args: object, **kwargs: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr("acp_codegen.commands.cli.apply", interrupted)
    assert main(["-q", "generate", *ARGS]) == 130
    out, err = capsys.readouterr()
    assert out == "" and err == "acp-codegen: interrupted\n"
    assert sync.apply is not interrupted
    assert not (work / "out").exists()


def test_schema_prints_and_writes_the_shipped_schema(
    work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = BUNDLED_SCHEMA.read_bytes()
    capsys.readouterr()
    assert main(["schema", "--write", "acp.json"]) == 0
    assert (work / "acp.json").read_bytes() == shipped
    assert json.loads(shipped)["$defs"]
    (work / "mine.json").write_text("mine", encoding="utf-8")
    assert main(["schema", "--write", "mine.json"]) == 2
    assert (work / "mine.json").read_text(encoding="utf-8") == "mine"
