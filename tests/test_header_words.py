"""The header every generated file opens with quotes the user's words (the regenerate command,
the schema's file name): a control character in them is shown escaped and never ends the
comment, so the package still parses and nothing of the path runs as code."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from acp_codegen.commands.cli import main
from conftest import FIXTURE_SCHEMAS


def test_a_newline_in_the_out_path_and_the_schema_name_stays_in_the_comment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    schema = tmp_path / "three\nstate\x1b[2J.json"
    schema.write_bytes((FIXTURE_SCHEMAS / "three_state.json").read_bytes())
    out = "o\nimport os; os.system('touch PWNED')"
    assert main(["generate", "-q", "--schema", str(schema), "--out", out, "--package", "p"]) == 0
    package = tmp_path / out / "p"
    for module in package.rglob("*.py"):
        ast.parse(module.read_text(encoding="utf-8"), str(module))
    header = (package / "models.py").read_text(encoding="utf-8").split("\n\n", 1)[0]
    assert all(line.startswith("#") for line in header.splitlines())
    assert "three\\nstate\\e[2J.json" in header and "'o\\nimport os;" in header
    assert not (tmp_path / "PWNED").exists()
