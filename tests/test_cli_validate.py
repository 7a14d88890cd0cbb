"""`validate --overlay`: the same meaning as for generate/check (the overlay is read, checked
and applied; its problems are the schema's problems)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from acp_codegen.commands.cli import main
from cli_work import enter_work


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return enter_work(tmp_path, monkeypatch)


def test_a_bad_overlay_fails_validation_with_its_pointer(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (work / "overlay.json").write_text(json.dumps({"merge": {}}), encoding="utf-8")
    assert main(["validate", "schema.json", "--overlay", "overlay.json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        "error: overlay.json#/: overlay: 'acpCodegenOverlay' is a required property",
        "1 problem(s).",
    ]


def test_a_good_overlay_is_applied(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "overlay.json").write_text(json.dumps({"acpCodegenOverlay": 1}), encoding="utf-8")
    assert main(["validate", "-v", "schema.json", "--overlay", "overlay.json"]) == 0
    out, err = capsys.readouterr()
    assert out == "schema.json: ok\n"
    assert "merge rules and patch fields from overlay overlay.json" in err
    assert main(["validate", "-v", "schema.json"]) == 0
    assert "from overlay" not in capsys.readouterr().err  # this schema has its own rules


PERSON = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Person",
    "type": "object",
    "properties": {"name": {"type": "string"}},
    "$defs": {"Name": {"type": "string"}},
}


@pytest.mark.parametrize("doc", [{"$defs": {}}, PERSON], ids=["empty", "person"])
@pytest.mark.parametrize("command", ["validate", "generate"])
def test_a_schema_without_acp_methods_is_refused(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    doc: dict[str, object],
    command: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.json").write_text(json.dumps(doc), encoding="utf-8")
    argv = ["validate", "s.json"] if command == "validate" else ["generate", "--schema", "s.json"]
    assert main(argv) == 2
    assert "s.json#/: no ACP methods" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]
