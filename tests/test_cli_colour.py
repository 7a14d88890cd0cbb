"""Colour only on a terminal: never in a pipe, never with NO_COLOR, always with FORCE_COLOR."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from acp_codegen.commands.cli import main
from acp_codegen.commands.console import NORMAL, Console, wants_colour
from cli_work import ARGS, enter_work, plain_env

ESC = "\x1b["


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("environ", "tty", "expected"),
    [
        ({}, True, True),
        ({}, False, False),
        ({"NO_COLOR": "1"}, True, False),
        ({"NO_COLOR": ""}, True, True),  # no-color.org: only a non-empty value counts
        ({"FORCE_COLOR": "1"}, False, True),
        ({"FORCE_COLOR": "0"}, False, False),
        ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False, False),  # NO_COLOR wins
        ({"TERM": "dumb"}, True, False),
    ],
)
def test_when_to_colour(environ: dict[str, str], tty: bool, expected: bool) -> None:
    stream = Terminal() if tty else io.StringIO()
    assert wants_colour(stream, environ) is expected


def test_a_terminal_gets_coloured_errors_and_diffs() -> None:
    out, err = Terminal(), Terminal()
    console = Console(NORMAL, out=out, err=err, environ={})
    console.error("boom")
    console.diff("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n same\n")
    assert err.getvalue() == f"{ESC}31merror:{ESC}0m boom\n"
    lines = out.getvalue().splitlines()
    assert lines[3] == f"{ESC}31m-old{ESC}0m" and lines[4] == f"{ESC}32m+new{ESC}0m"
    assert lines[5] == " same"


def test_a_pipe_gets_plain_text() -> None:
    out, err = io.StringIO(), io.StringIO()
    console = Console(NORMAL, out=out, err=err, environ={})
    console.error("boom")
    console.diff("-old\n+new\n")
    console.stat(" x | 2 +-\n")
    assert ESC not in out.getvalue() + err.getvalue()


@pytest.fixture
def stale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A generated tree with one edited file (check prints a diff and an error-ish summary)."""
    work = enter_work(tmp_path, monkeypatch)
    assert main(["generate", "-q", *ARGS]) == 0
    methods = work / "out" / "pkg" / "methods.py"
    methods.write_text(methods.read_text(encoding="utf-8") + "# mine\n", encoding="utf-8")
    return work


def test_check_piped_has_no_escape_codes(stale: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "acp_codegen", "check", *ARGS],
        cwd=stale,
        env=plain_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1 and "-# mine" in proc.stdout
    assert ESC not in proc.stdout + proc.stderr


def test_force_colour_colours_the_diff_and_stat(
    stale: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert main(["check", *ARGS]) == 1
    out, err = capsys.readouterr()
    assert f"{ESC}31m-# mine{ESC}0m" in out
    assert f"{ESC}33mnote:{ESC}0m" in err
    assert main(["check", "--stat", *ARGS]) == 1
    assert f"| 1 {ESC}31m-{ESC}0m" in capsys.readouterr().out
    monkeypatch.setenv("NO_COLOR", "1")
    assert main(["check", *ARGS]) == 1
    out, err = capsys.readouterr()
    assert ESC not in out + err


def test_force_colour_marks_breaking_changes_in_a_diff_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    work = enter_work(tmp_path, monkeypatch)
    doc = json.loads((work / "schema.json").read_text(encoding="utf-8"))
    doc["$defs"]["ToolCallUpdate"]["properties"]["toolCallId"] = {"type": "integer"}
    (work / "new.json").write_text(json.dumps(doc), encoding="utf-8")
    assert main(["diff", "schema.json", "new.json"]) == 1
    plain = capsys.readouterr().out
    assert "BREAKING (agent, client)" in plain and ESC not in plain
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert main(["diff", "schema.json", "new.json"]) == 1
    assert capsys.readouterr().out == plain.replace("BREAKING", f"{ESC}31mBREAKING{ESC}0m")
    assert main(["diff", "--format", "json", "schema.json", "new.json"]) == 1
    assert ESC not in capsys.readouterr().out  # machines' output is never painted
