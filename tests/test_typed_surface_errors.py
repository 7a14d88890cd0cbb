"""A lifecycle schema that lacks what the typed session API needs is a clear error, not a
traceback, and nothing is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.commands.cli import main
from conftest import SCHEMA


def without_tool_call_updates(schema: dict[str, Any]) -> dict[str, Any]:
    union = schema["$defs"]["SessionUpdate"]

    def is_tool_call_update(node: dict[str, Any]) -> bool:
        tag = node.get("properties", {}).get("sessionUpdate", {})
        return bool(tag.get("const") == "tool_call_update")

    union["anyOf"] = [b for b in union["anyOf"] if not is_tool_call_update(b)]
    for branch in union["anyOf"]:
        if "not" in branch:
            branch["not"]["anyOf"] = [
                n for n in branch["not"]["anyOf"] if not is_tool_call_update(n)
            ]
    return schema


def test_a_missing_update_variant_the_facade_needs_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = without_tool_call_updates(json.loads(SCHEMA.read_text(encoding="utf-8")))
    path = tmp_path / "partial.json"
    path.write_text(json.dumps(schema), encoding="utf-8")
    out = tmp_path / "out"
    status = main(["generate", "--schema", str(path), "--out", str(out)])
    captured = capsys.readouterr()
    assert status == 2
    assert "partial.json" in captured.err and "'tool_call_update'" in captured.err
    assert "Traceback" not in captured.err
    assert not out.exists()
