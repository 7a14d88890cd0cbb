"""ACP_CODEGEN_CACHE_DIR: a models module (and black's text for the other modules) kept between
runs gives the bytes a fresh run makes, under a key that changes with anything its bytes depend
on, and a broken cache costs only time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.commands import pipeline as pipeline_module
from acp_codegen.commands.pipeline import load_protocol, render_tree
from acp_codegen.emit import render as render_module
from acp_codegen.emit.dcg import generate_models
from acp_codegen.emit.models_cache import CACHE_DIR_VARIABLE, Models, ModelsCache
from acp_codegen.emit.render import Target, format_python
from acp_codegen.model.errors import Problem, SchemaError
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


def black_counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts black is given from here on."""
    given: list[str] = []

    def counted(source: str) -> str:
        given.append(source)
        return format_python(source)

    monkeypatch.setattr(render_module, "format_python", counted)
    return given


def entries(folder: Path) -> list[Path]:
    """The models entries: the folder's own files (black's texts are in `formatted/`)."""
    return sorted(path for path in folder.iterdir() if path.is_file())


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
    # one models entry, black's texts beside it, and no temporary left in either folder
    kept = [*entries(tmp_path / "cache"), *(tmp_path / "cache" / "formatted").iterdir()]
    assert {p.suffix for p in kept} == {".json"} and len(entries(tmp_path / "cache")) == 1


def test_a_second_render_runs_black_on_nothing_and_gives_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(CACHE_DIR_VARIABLE, raising=False)
    fresh = render_tree(load_protocol(SCHEMA), TARGET)
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(tmp_path))
    given = black_counting(monkeypatch)
    assert render_tree(load_protocol(SCHEMA), TARGET) == fresh
    assert len(given) >= 5  # the modules rendered from templates, each formatted once
    formatted = list((tmp_path / "formatted").iterdir())
    assert len(formatted) == len(set(given))
    given.clear()
    assert render_tree(load_protocol(SCHEMA), TARGET) == fresh
    assert given == []


def test_a_changed_text_is_formatted_again_and_a_broken_entry_is_a_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(CACHE_DIR_VARIABLE, raising=False)
    other = Target("cached", "acp-codegen generate --out other")
    fresh, fresh_other = (render_tree(load_protocol(SCHEMA), t) for t in (TARGET, other))
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(tmp_path))
    render_tree(load_protocol(SCHEMA), TARGET)
    for entry in (tmp_path / "formatted").iterdir():
        entry.write_bytes(b"{not json")
    given = black_counting(monkeypatch)
    assert render_tree(load_protocol(SCHEMA), TARGET) == fresh  # each broken entry: a miss
    assert len(given) >= 5
    given.clear()
    # another command is another header in every module: formatted anew, nothing misread
    assert render_tree(load_protocol(SCHEMA), other) == fresh_other
    assert len(given) >= 5


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
    assert runs == [] and len(entries(tmp_path)) == 1


def test_another_schema_is_another_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(tmp_path))
    runs = render_counting(monkeypatch)
    render_tree(load_protocol(SCHEMA), TARGET)
    render_tree(load_protocol(FIXTURE_SCHEMAS / "tagged_union.json"), TARGET)
    assert len(runs) == 2 and len(entries(tmp_path)) == 2


@pytest.mark.parametrize("kept", [b"", b"{not json", b'{"raw": "x"}', b"[1, 2]", b"\xff\xfe"])
def test_an_unreadable_entry_is_a_miss_and_is_written_again(
    kept: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(tmp_path))
    expected = render_tree(load_protocol(SCHEMA), TARGET)
    (entry,) = entries(tmp_path)
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


def test_a_kept_text_is_read_back_with_any_character(tmp_path: Path) -> None:
    cache = ModelsCache(tmp_path, "g")
    odd = "x = '\ud7ff \U0010ffff'\n"
    assert cache.formatted(odd, str.upper) == odd.upper()
    assert cache.formatted(odd, lambda text: "made again") == odd.upper()
    assert ModelsCache(tmp_path, "another generator").formatted(odd, str.lower) == odd.lower()


def test_an_entry_holds_both_texts(tmp_path: Path) -> None:
    cache = ModelsCache(tmp_path, "g")
    cache.put("k", Models("raw \ud7ff text", "formatted"))
    assert cache.get("k") == Models("raw \ud7ff text", "formatted")
    assert cache.get("missing") is None


def check_counting(monkeypatch: pytest.MonkeyPatch, log: Path) -> Callable[[], int]:
    """How many times the schema checks ran from here on (in this process or a forked child:
    a line in `log` each)."""
    real = pipeline_module.check

    def counted(doc: dict[str, Any], file: str) -> list[Problem]:
        with log.open("a", encoding="utf-8") as out:
            out.write("checked\n")
        return real(doc, file)

    monkeypatch.setattr(pipeline_module, "check", counted)
    return lambda: len(log.read_text(encoding="utf-8").splitlines()) if log.exists() else 0


def test_a_schema_that_passed_the_checks_is_not_checked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(tmp_path / "cache"))
    runs = check_counting(monkeypatch, tmp_path / "log")
    first = load_protocol(SCHEMA)
    assert runs() == 1
    assert load_protocol(SCHEMA) == first and runs() == 1
    other = tmp_path / "other.json"
    other.write_bytes(SCHEMA.read_bytes() + b"\n")  # other bytes: checked anew
    load_protocol(other)
    assert runs() == 2


def test_a_schema_with_problems_is_checked_every_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(tmp_path / "cache"))
    runs = check_counting(monkeypatch, tmp_path / "log")
    broken = tmp_path / "broken.json"
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    schema["$defs"]["Bad"] = {"type": "object", "x-method": 7}
    broken.write_text(json.dumps(schema), encoding="utf-8")
    for expected in (1, 2):
        with pytest.raises(SchemaError) as raised:
            load_protocol(broken)
        assert any("/$defs/Bad" in str(problem) for problem in raised.value.problems)
        assert runs() == expected
    assert not (tmp_path / "cache" / "checked").exists()
