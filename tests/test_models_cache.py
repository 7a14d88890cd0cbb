"""ACP_CODEGEN_CACHE_DIR: a models module kept between runs gives the bytes a fresh run makes,
under a key that changes with anything its bytes depend on, and a broken cache costs only time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.commands.pipeline import load_protocol, render_tree
from acp_codegen.emit import render as render_module
from acp_codegen.emit.dcg import generate_models
from acp_codegen.emit.models_cache import CACHE_DIR_VARIABLE, Models, ModelsCache
from acp_codegen.emit.render import Target
from conftest import FIXTURE_SCHEMAS

SCHEMA = FIXTURE_SCHEMAS / "three_state.json"
TARGET = Target("cached", "acp-codegen generate")


def render_counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count datamodel-code-generator runs from here on."""
    runs: list[int] = []

    def counted(*args: Any) -> str:
        runs.append(1)
        return generate_models(*args)

    monkeypatch.setattr(render_module, "generate_models", counted)
    return runs


def test_a_hit_gives_the_bytes_of_a_fresh_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(CACHE_DIR_VARIABLE, raising=False)
    fresh = render_tree(load_protocol(SCHEMA), TARGET)
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(tmp_path / "cache"))
    runs = render_counting(monkeypatch)
    first = render_tree(load_protocol(SCHEMA), TARGET)
    second = render_tree(load_protocol(SCHEMA), TARGET)
    assert len(runs) == 1  # the second render read the kept module
    assert first == fresh and second == fresh
    assert [p.suffix for p in (tmp_path / "cache").iterdir()] == [".json"]  # no temporary left


LONG = "acp-codegen generate --schema " + "/deep" * 30 + "/acp.schema.json --out o --package p"


@pytest.mark.parametrize("command", ["acp-codegen generate --out other", LONG, "x\ny # fmt: off"])
def test_every_package_name_and_command_shares_an_entry_and_gets_its_own_header(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = Target("other_name", command)
    monkeypatch.delenv(CACHE_DIR_VARIABLE, raising=False)
    fresh = render_tree(load_protocol(SCHEMA), target)
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(tmp_path))
    render_tree(load_protocol(SCHEMA), TARGET)  # made for another package and command
    runs = render_counting(monkeypatch)
    assert render_tree(load_protocol(SCHEMA), target) == fresh
    assert runs == [] and len(list(tmp_path.iterdir())) == 1


def test_another_schema_is_another_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(tmp_path))
    runs = render_counting(monkeypatch)
    render_tree(load_protocol(SCHEMA), TARGET)
    render_tree(load_protocol(FIXTURE_SCHEMAS / "tagged_union.json"), TARGET)
    assert len(runs) == 2 and len(list(tmp_path.iterdir())) == 2


@pytest.mark.parametrize("kept", [b"", b"{not json", b'{"raw": "x"}', b"[1, 2]", b"\xff\xfe"])
def test_an_unreadable_entry_is_a_miss_and_is_written_again(
    kept: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(tmp_path))
    expected = render_tree(load_protocol(SCHEMA), TARGET)
    (entry,) = tmp_path.iterdir()
    entry.write_bytes(kept)
    assert render_tree(load_protocol(SCHEMA), TARGET) == expected
    assert set(json.loads(entry.read_bytes())) == {"raw", "formatted"}


def test_a_folder_that_cannot_be_made_costs_only_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(CACHE_DIR_VARIABLE, raising=False)
    expected = render_tree(load_protocol(SCHEMA), TARGET)
    (tmp_path / "a-file").write_bytes(b"mine")
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(tmp_path / "a-file" / "cache"))
    assert render_tree(load_protocol(SCHEMA), TARGET) == expected
    assert (tmp_path / "a-file").read_bytes() == b"mine"


def test_without_the_variable_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(CACHE_DIR_VARIABLE, raising=False)
    proc = subprocess.run(
        [sys.executable, "-m", "acp_codegen", "generate", "--schema", str(SCHEMA)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": str(tmp_path / "xdg")},
    )
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "home").exists() and not (tmp_path / "xdg").exists()


def test_an_entry_holds_both_texts(tmp_path: Path) -> None:
    cache = ModelsCache(tmp_path, "g")
    cache.put("k", Models("raw \ud7ff text", "formatted"))
    assert cache.get("k") == Models("raw \ud7ff text", "formatted")
    assert cache.get("missing") is None
