"""Schema and file text never steers the user's terminal: what `diff`, `check` and every
command's messages print from a schema or from files on disk is shown escaped
(`acp_codegen.model.shown`), while our own colours still reach a terminal."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from acp_codegen.commands.cli import main
from acp_codegen.commands.console import NORMAL, Console
from conftest import REPO

# An OSC 52 clipboard write, a window title, a hidden link, a line erase after a carriage
# return, a one-byte C1 CSI and a right-to-left override.
ATTACK = (
    "\x1b]52;c;cHduZWQ=\x07\x1b]0;owned\x07\x1b]8;;http://x\x07ok\x1b]8;;\x07\r\x1b[2K\x9b2J\u202e"
)
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


class Terminal:
    """A stream that says it is a terminal, so colours are on."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


def test_diff_shows_a_property_name_from_the_schema_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = json.loads((REPO / "schema" / "acp.schema.json").read_text(encoding="utf-8"))
    new = json.loads(json.dumps(old))
    new["$defs"]["InitializeRequest"]["properties"][f"evil{ATTACK}"] = {"type": "string"}
    (tmp_path / "old.json").write_text(json.dumps(old), encoding="utf-8")
    (tmp_path / "new.json").write_text(json.dumps(new), encoding="utf-8")
    main(["diff", str(tmp_path / "old.json"), str(tmp_path / "new.json")])
    out = capsys.readouterr().out
    assert "InitializeRequest.evil" in out
    assert not RAW.findall(out), out
    assert "\\e]52;c;cHduZWQ=\\x07" in out and "\\r\\e[2K\\x9b2J\\u202e" in out


@pytest.mark.slow
def test_check_shows_a_planted_generated_file_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cloned project's committed output may hold anything: `check`'s diff of it is text."""
    out = tmp_path / "gen"
    assert main(["generate", "--out", str(out), "--package", "p", "-q"]) == 0
    planted = out / "p" / "methods.py"
    planted.write_text(planted.read_text(encoding="utf-8") + f"# {ATTACK}\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["check", "--out", str(out), "--package", "p"]) == 1
    shown = capsys.readouterr().out
    assert "+# " not in shown and "-# \\e]52" in shown
    assert not RAW.findall(shown), shown


def test_messages_are_escaped_and_our_colours_still_reach_a_terminal() -> None:
    out, err = Terminal(), Terminal()
    console = Console(NORMAL, out=out, err=err, environ={})  # type: ignore[arg-type]
    console.error(f"bad name {ATTACK}")
    console.diff(f"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-{ATTACK}\n+new\n")
    assert err.text.startswith("\x1b[31merror:\x1b[0m bad name \\e]52")
    assert "\x1b[31m-\\e]52;c;cHduZWQ=\\x07" in out.text
    without_our_colours = re.sub(r"\x1b\[[0-9;]*m", "", out.text + err.text)
    assert not RAW.findall(without_our_colours)
