"""Broken schemas: exit status 2, every problem located by file and JSON pointer, nothing written.

Each broken schema is the merge_annotation fixture (which is valid) with one thing changed, written
to a tmp file.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.commands.cli import main
from acp_codegen.commands.pipeline import load_protocol
from acp_codegen.model.errors import SchemaError
from conftest import FIXTURE_SCHEMAS

VALID = json.loads((FIXTURE_SCHEMAS / "merge_annotation.json").read_text(encoding="utf-8"))
BAD_JSON = '{\n  "$defs": {\n    "A": {"type": "string",}\n  }\n}\n'

Mutation = Callable[[dict[str, Any]], None]


def _unknown_ref(doc: dict[str, Any]) -> None:
    doc["$defs"]["ContentChunk"]["properties"]["content"] = {"$ref": "#/$defs/Nope"}


def _duplicate_method(doc: dict[str, Any]) -> None:
    doc["x-methods"].append(dict(doc["x-methods"][0]))


def _bad_name(doc: dict[str, Any]) -> None:
    doc["$defs"]["Bad-Name"] = {"title": "Bad-Name", "type": "string"}


def _keyword_name(doc: dict[str, Any]) -> None:
    doc["$defs"]["class"] = {"type": "string"}


def _slash_name(doc: dict[str, Any]) -> None:
    doc["$defs"]["A/B"] = {"type": "string"}


def _missing_merge(doc: dict[str, Any]) -> None:
    del doc["$defs"]["SessionUpdate"]["anyOf"][2]["x-merge"]


def _required_tristate(doc: dict[str, Any]) -> None:
    doc["$defs"]["ToolCallUpdate"]["required"].append("title")


def _non_null_tristate(doc: dict[str, Any]) -> None:
    doc["$defs"]["ToolCallUpdate"]["properties"]["title"]["type"] = "string"


def _bad_merge_op(doc: dict[str, Any]) -> None:
    doc["$defs"]["SessionUpdate"]["anyOf"][0]["x-merge"]["op"] = "apend"


def _unknown_params(doc: dict[str, Any]) -> None:
    doc["x-methods"][0]["params"] = "NoSuchParams"


def _wrong_x_side(doc: dict[str, Any]) -> None:
    doc["$defs"]["UpdateSessionNotification"]["x-side"] = "agent"


def _duplicate_tag(doc: dict[str, Any]) -> None:
    branches = doc["$defs"]["SessionUpdate"]["anyOf"]
    branches[1]["properties"]["sessionUpdate"]["const"] = "agent_message_chunk"


def _unknown_update_union(doc: dict[str, Any]) -> None:
    doc["x-update-union"] = "NoSuchUnion"


# (id, change, pointer, words the message must contain)
CASES: list[tuple[str, Mutation, str, str]] = [
    ("unknown-ref", _unknown_ref, "/$defs/ContentChunk/properties/content/$ref", "#/$defs/Nope"),
    ("duplicate-method", _duplicate_method, "/x-methods/1/method", "duplicate"),
    ("bad-def-name", _bad_name, "/$defs/Bad-Name", "identifier"),
    ("keyword-def-name", _keyword_name, "/$defs/class", "identifier"),
    ("slash-def-name", _slash_name, "/$defs/A~1B", "identifier"),
    ("missing-x-merge", _missing_merge, "/$defs/SessionUpdate/anyOf/2", "x-merge"),
    ("required-tristate", _required_tristate, "/$defs/ToolCallUpdate/properties/title", "optional"),
    ("non-null-tristate", _non_null_tristate, "/$defs/ToolCallUpdate/properties/title", "null"),
    ("bad-merge-op", _bad_merge_op, "/$defs/SessionUpdate/anyOf/0/x-merge/op", "apend"),
    ("unknown-params", _unknown_params, "/x-methods/0/params", "NoSuchParams"),
    ("wrong-x-side", _wrong_x_side, "/$defs/UpdateSessionNotification/x-side", "x-side"),
    ("duplicate-tag", _duplicate_tag, "/$defs/SessionUpdate/anyOf/1", "twice"),
    ("unknown-update-union", _unknown_update_union, "/x-update-union", "NoSuchUnion"),
]


def broken(tmp_path: Path, change: Mutation, name: str = "broken.json") -> Path:
    doc = copy.deepcopy(VALID)
    change(doc)
    path = tmp_path / name
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


def names(path: Path) -> tuple[str, str]:
    """How the CLI may show a schema path: as given, or relative to the project (here: the cwd)."""
    return str(path), path.relative_to(Path.cwd()).as_posix()


def shows(err: str, path: Path, where: str = "") -> bool:
    return any(f"{name}#{where}" in err for name in names(path))


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file()
    }


@pytest.fixture(autouse=True)
def _isolated_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No pyproject.toml above the tmp dir: only the command line decides."""
    monkeypatch.chdir(tmp_path)


def test_base_schema_is_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = broken(tmp_path, lambda doc: None, "valid.json")
    assert main(["validate", str(path)]) == 0
    assert "ok" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("change", "where", "words"), [pytest.param(*c[1:], id=c[0]) for c in CASES]
)
def test_generate_reports_problem_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Mutation, where: str, words: str
) -> None:
    path = broken(tmp_path, change)
    out = tmp_path / "out"
    assert main(["generate", "--schema", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    lines = [
        line for line in err.splitlines() if any(f"{name}#{where}:" in line for name in names(path))
    ]
    assert lines, f"no problem at {path}#{where} in:\n{err}"
    assert any(words in line for line in lines), err
    assert not out.exists()


@pytest.mark.parametrize(
    ("change", "where", "words"), [pytest.param(*c[1:], id=c[0]) for c in CASES]
)
def test_schema_error_carries_file_and_pointer(
    tmp_path: Path, change: Mutation, where: str, words: str
) -> None:
    path = broken(tmp_path, change)
    with pytest.raises(SchemaError) as info:
        load_protocol(path, "shown-name.json")
    assert any(
        p.file == "shown-name.json" and p.pointer == where and words in p.message
        for p in info.value.problems
    ), info.value.problems


def test_bad_json_names_line_and_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_text(BAD_JSON, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["generate", "--schema", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert shows(err, path, "/:"), err  # the file and the root pointer
    assert "line 3 column 28" in err
    assert not out.exists()


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[]", "$defs"),
        ('{"title": "no defs"}', "$defs"),
        (b"\xff\xfe{}", "JSON"),
    ],
    ids=["array", "no-defs", "not-utf8"],
)
def test_not_a_schema_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str | bytes, words: str
) -> None:
    path = tmp_path / "odd.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    assert main(["generate", "--schema", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert shows(err, path, "/:") and words in err, err
    assert not (tmp_path / "out").exists()


def test_missing_schema_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nowhere.json"
    assert main(["generate", "--schema", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert shows(err, path, "/:"), err
    assert not (tmp_path / "out").exists()


def test_bad_package_name_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = broken(tmp_path, lambda doc: None, "valid.json")
    out = tmp_path / "out"
    for package in ("not-a-name", "class", "a.b"):
        assert (
            main(["generate", "--schema", str(path), "--out", str(out), "--package", package]) == 2
        )
        assert package in capsys.readouterr().err
    assert not out.exists()


def test_existing_tree_is_left_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = broken(tmp_path, lambda doc: None, "good.json")
    out = tmp_path / "out"
    assert main(["generate", "--schema", str(good), "--out", str(out), "--package", "pkg"]) == 0
    before = snapshot(out)
    assert before
    bad = broken(tmp_path, _missing_merge)
    assert main(["generate", "--schema", str(bad), "--out", str(out), "--package", "pkg"]) == 2
    assert "nothing written" in capsys.readouterr().err
    assert snapshot(out) == before
    assert main(["check", "--schema", str(bad), "--out", str(out), "--package", "pkg"]) == 2
    assert snapshot(out) == before


def test_validate_reports_every_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def two(doc: dict[str, Any]) -> None:
        _bad_name(doc)
        _missing_merge(doc)

    path = broken(tmp_path, two)
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert shows(err, path, "/$defs/Bad-Name:"), err
    assert shows(err, path, "/$defs/SessionUpdate/anyOf/2:"), err
    assert "2 problem(s)" in err


def test_validate_reports_problems_of_every_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def many(doc: dict[str, Any]) -> None:
        _unknown_ref(doc)
        _duplicate_method(doc)
        _bad_name(doc)
        _missing_merge(doc)
        _required_tristate(doc)

    path = broken(tmp_path, many)
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    for where in (
        "/$defs/ContentChunk/properties/content/$ref",
        "/x-methods/1/method",
        "/$defs/Bad-Name",
        "/$defs/SessionUpdate/anyOf/2",
        "/$defs/ToolCallUpdate/properties/title",
    ):
        assert shows(err, path, f"{where}:"), where
    assert "5 problem(s)" in err


def test_validate_reports_every_x_keyword_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def two(doc: dict[str, Any]) -> None:
        doc["$defs"]["SessionUpdate"]["anyOf"][0]["x-merge"]["op"] = "apend"
        doc["$defs"]["SessionUpdate"]["anyOf"][1]["x-merge"]["entity"] = "tool_call"

    path = broken(tmp_path, two)
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert shows(err, path, "/$defs/SessionUpdate/anyOf/0/x-merge/op:"), err
    assert shows(err, path, "/$defs/SessionUpdate/anyOf/1/x-merge/entity:"), err


def test_problems_are_listed_in_a_stable_order(tmp_path: Path) -> None:
    def many(doc: dict[str, Any]) -> None:
        _bad_name(doc)
        _missing_merge(doc)
        _unknown_ref(doc)

    path = broken(tmp_path, many)
    with pytest.raises(SchemaError) as info:
        load_protocol(path)
    pointers = [p.pointer for p in info.value.problems]
    assert pointers == sorted(pointers)
    assert len(pointers) == 3


@pytest.mark.parametrize(
    "content",
    [BAD_JSON.encode(), b"[]", b"\xff\xfe{}"],
    ids=["bad-json", "array", "not-utf8"],
)
def test_decoding_problems_use_the_display_name(tmp_path: Path, content: bytes) -> None:
    """Like any other problem, one found while reading the file names it as the caller shows it."""
    path = tmp_path / "odd.json"
    path.write_bytes(content)
    with pytest.raises(SchemaError) as info:
        load_protocol(path, "shown-name.json")
    assert [p.file for p in info.value.problems] == ["shown-name.json"]
