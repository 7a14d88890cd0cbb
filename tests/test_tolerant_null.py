"""`x-deserialize-default-on-null`: a `null` the type does not allow, at a marked optional
property of a session update, is read as absent in tolerant mode; any other bad value there, and
any null in strict mode, still rejects the update."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from acp_codegen.commands.pipeline import load_protocol, render_files
from acp_codegen.emit.render import Target
from acp_codegen.runtime.wire.tolerant import FieldRule, ToleranceTable, plan_repair, repair_update
from conftest import FIXTURE_SCHEMAS, _import_from, write_tree
from pydantic import ValidationError

KEYWORD = "x-deserialize-default-on-null"
PACKAGE = "acp_codegen_null_pkg"


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The merge_annotation fixture with an optional `tags` array on tool call updates that
    carries the keyword."""
    root = tmp_path_factory.mktemp("default-on-null")
    doc = json.loads((FIXTURE_SCHEMAS / "merge_annotation.json").read_text(encoding="utf-8"))
    doc["$defs"]["ToolCallUpdate"]["properties"]["tags"] = {
        "type": "array",
        "items": {"type": "string"},
        KEYWORD: True,
    }
    schema = root / "schema.json"
    schema.write_text(json.dumps(doc), encoding="utf-8")
    protocol = load_protocol(schema, "schema.json")
    assert not any(KEYWORD in note for note in protocol.notes), protocol.notes  # it is read
    write_tree(root / PACKAGE, render_files(protocol, Target(package=PACKAGE, command="x")))
    return _import_from(root, PACKAGE)


def update(**fields: Any) -> dict[str, Any]:
    return {"sessionUpdate": "tool_call_update", "toolCallId": "c", "title": "T", **fields}


def test_the_keyword_reaches_the_generated_table(package: Any) -> None:
    rules = package.tolerance.TOLERANCE.classes["SessionToolCallUpdate"]
    tags = rules["tags"]  # the package's own copy of FieldRule
    assert (tags.default_on_null, tags.default_on_error, tags.skip_invalid_items) == (
        True,
        False,
        False,
    )


def test_a_null_is_read_as_absent_and_logged(
    package: Any, caplog: pytest.LogCaptureFixture
) -> None:
    state = package.SessionState()
    with caplog.at_level(logging.WARNING):
        state.apply(update(tags=None))
    call = state.snapshot()["toolCalls"]["c"]
    assert call["title"] == "T" and "tags" not in call
    assert "null read as absent" in caplog.text and "at '/tags'" in caplog.text
    state.apply(update(tags=["a"]))  # a valid value is kept as it is
    assert state.snapshot()["toolCalls"]["c"]["tags"] == ["a"]


@pytest.mark.parametrize("bad", [5, "x", [1]])
def test_any_other_bad_value_still_rejects_the_update(package: Any, bad: Any) -> None:
    with pytest.raises(package.MalformedUpdateError):
        package.SessionState().apply(update(tags=bad))


def test_strict_mode_rejects_the_null(package: Any) -> None:
    with pytest.raises(package.MalformedUpdateError):
        package.SessionState(strict=True).apply(update(tags=None))


TABLE = ToleranceTable(
    root="U",
    classes={"A": {"tags": FieldRule(default_on_null=True), "inner": FieldRule(type="A")}},
    unions={"U": {"a": "A"}},
)


def test_repair_planning_only_covers_a_null_at_the_field_itself() -> None:
    repair = plan_repair(TABLE, ("a", "tags"))
    assert repair is not None and repair.path == ("tags",) and repair.when_null
    nested = plan_repair(TABLE, ("a", "inner", "tags"))
    assert nested is not None and nested.path == ("inner", "tags")
    assert plan_repair(TABLE, ("a", "tags", 0)) is None  # a bad item is no null


def test_a_repair_needs_the_null_in_the_data() -> None:
    error = ValidationError.from_exception_data(
        "U", [{"type": "list_type", "loc": ("a", "tags"), "input": None}]
    )
    outcome = repair_update(TABLE, {"tags": None, "keep": 1}, error)
    assert outcome is not None and outcome[0] == {"keep": 1}
    assert repair_update(TABLE, {"tags": 5}, error) is None  # not a null: the error stands
    assert repair_update(TABLE, {}, error) is None
