"""Functional tests of the packages generated from the small fixture schemas."""

from __future__ import annotations

import keyword

import pytest
from conftest import FixturePackages
from fixtures.samples import (
    branch_schema,
    expected_merge_row,
    known_tags,
)
from pydantic import ValidationError
from round_trips import adapter, field_name, round_trip

# ------------------------------------------------------------------ the small fixture schemas


def test_closed_tagged_union(fixture_packages: FixturePackages) -> None:
    models = fixture_packages["tagged_union"].models
    circle = round_trip(models.Shape, {"kind": "circle", "radius": 1.5})
    square = round_trip(models.Shape, {"kind": "square", "side": 2.5})
    assert (type(circle).__name__, type(square).__name__) == ("Circle", "Square")
    round_trip(models.DrawShapeNotification, {"shape": {"kind": "square", "side": 1.0}})
    ta = adapter(models.Shape)
    for bad in (
        {"kind": "triangle", "side": 1.0},  # unknown tag on a closed union
        {"kind": "_custom", "side": 1.0},
        {"kind": "square", "side": "big"},  # wrong type
        {"kind": "circle", "radius": -1.0},  # below minimum
        {"kind": "circle"},  # missing field
        {"radius": 1.0},  # no tag
    ):
        with pytest.raises(ValidationError):
            ta.validate_python(bad)
    assert not any(name.startswith("Other") for name in vars(models))


def test_open_enum_and_open_union(fixture_packages: FixturePackages) -> None:
    models = fixture_packages["open_enum"].models
    reason = adapter(models.StopReason)
    assert reason.validate_python("end_turn") == "end_turn"
    assert reason.validate_python("_custom_stop") == "_custom_stop"
    with pytest.raises(ValidationError):
        reason.validate_python(None)
    stopped = round_trip(models.Outcome, {"outcome": "stopped", "stopReason": "_custom_stop"})
    assert type(stopped).__name__ == "StoppedOutcome"
    custom = {"outcome": "_acme/paused", "until": "tomorrow", "_meta": {"k": 1}}
    other = round_trip(models.Outcome, custom)
    assert type(other).__name__ not in {"StoppedOutcome", "FailedOutcome"}
    with pytest.raises(ValidationError):  # known tag, malformed payload: not swallowed
        adapter(models.Outcome).validate_python({"outcome": "failed"})
    with pytest.raises(ValidationError):
        adapter(models.Outcome).validate_python({"outcome": "stopped", "stopReason": 3})


@pytest.mark.parametrize("prop", ["title", "status", "rawInput"])
def test_three_state_fields(fixture_packages: FixturePackages, prop: str) -> None:
    pkg = fixture_packages["three_state"]
    model = pkg.models.ItemPatch
    values = {"title": "new title", "status": "done", "rawInput": {"a": [1, None]}}
    absent = round_trip(model, {"itemId": "i1"})
    null = round_trip(model, {"itemId": "i1", prop: None})
    value = round_trip(model, {"itemId": "i1", prop: values[prop]})
    name = field_name(model, prop)
    assert name not in absent.model_fields_set
    assert name in null.model_fields_set and getattr(null, name) is None
    assert getattr(value, name) is not None
    assert dict(pkg.module.TRISTATE_FIELDS) == {
        "ItemPatch": frozenset({"title", "status", "rawInput"})
    }


def test_three_state_other_fields_are_not_nullable(fixture_packages: FixturePackages) -> None:
    model = fixture_packages["three_state"].models.ItemPatch
    with pytest.raises(ValidationError):
        model.model_validate({"itemId": "i1", "note": None})
    with pytest.raises(ValidationError):
        model.model_validate({"itemId": "i1", "status": "weird"})
    with pytest.raises(ValidationError):
        model.model_validate({"itemId": None})


def test_merge_annotation_fixture(fixture_packages: FixturePackages) -> None:
    pkg = fixture_packages["merge_annotation"]
    union = pkg.schema["$defs"]["SessionUpdate"]
    merge = pkg.submodule("merge_rules")
    assert merge.UPDATE_TAG == "sessionUpdate"
    tags = known_tags(union)
    assert list(merge.MERGE_RULES) == tags
    for tag in tags:
        raw = branch_schema(union, "sessionUpdate", tag)["x-merge"]
        rule = merge.MERGE_RULES[tag]
        assert {k: getattr(rule, k) for k in expected_merge_row(tag, raw)} == expected_merge_row(
            tag, raw
        )
    models = pkg.models
    round_trip(
        models.SessionUpdate,
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "t", "data": "AAE="},
    )
    round_trip(
        models.SessionUpdate,
        {"sessionUpdate": "tool_call_update", "toolCallId": "c", "title": None},
    )
    round_trip(models.SessionUpdate, {"sessionUpdate": "_custom", "x": 1})
    with pytest.raises(ValidationError):
        adapter(models.SessionUpdate).validate_python({"sessionUpdate": "usage_update"})


def test_extension_methods_fixture(fixture_packages: FixturePackages) -> None:
    pkg = fixture_packages["extension_method"]
    table = pkg.module.METHODS
    assert set(table) == {"_example.com/echo", "_example.com/notice"}
    echo, notice = table["_example.com/echo"], table["_example.com/notice"]
    assert (echo.side, echo.kind) == ("agent", "request")
    assert echo.params_type is pkg.models.ExtRequest and echo.result_type is pkg.models.ExtResponse
    assert (notice.side, notice.kind, notice.result_type) == ("client", "notification", None)
    assert notice.params_type is pkg.models.ExtNotification
    assert "_example.com/echo" in pkg.module.AGENT_METHODS
    assert "_example.com/notice" in pkg.module.CLIENT_METHODS
    for handler in (echo.handler, notice.handler):
        assert handler.isidentifier() and not keyword.iskeyword(handler)
    for value in ({"anything": [1, "x"]}, [1, 2], "text", 3, None, True):
        round_trip(pkg.models.ExtRequest, value)
        round_trip(pkg.models.ExtNotification, value)


@pytest.mark.parametrize(
    ("fixture", "method", "side", "kind", "params", "result"),
    [
        (
            "request",
            "session/rename",
            "agent",
            "request",
            "RenameSessionRequest",
            "RenameSessionResponse",
        ),
        (
            "notification",
            "session/cancel",
            "agent",
            "notification",
            "CancelSessionNotification",
            None,
        ),
        ("tagged_union", "shape/draw", "client", "notification", "DrawShapeNotification", None),
    ],
)
def test_fixture_method_tables(
    fixture_packages: FixturePackages,
    fixture: str,
    method: str,
    side: str,
    kind: str,
    params: str,
    result: str | None,
) -> None:
    pkg = fixture_packages[fixture]
    assert list(pkg.module.METHODS) == [method]
    spec = pkg.module.METHODS[method]
    assert (spec.method, spec.side, spec.kind) == (method, side, kind)
    assert spec.params_type is getattr(pkg.models, params)
    assert spec.result_type is (getattr(pkg.models, result) if result else None)


def test_request_fixture_round_trips(fixture_packages: FixturePackages) -> None:
    models = fixture_packages["request"].models
    round_trip(models.RenameSessionRequest, {"sessionId": "s", "title": "t"})
    round_trip(
        models.RenameSessionRequest,
        {"sessionId": "s", "title": "t", "priority": None, "_meta": {"a": 1}},
    )
    round_trip(models.RenameSessionResponse, {})
    round_trip(models.RenameSessionResponse, {"previousTitle": None})
    with pytest.raises(ValidationError):
        models.RenameSessionRequest.model_validate({"sessionId": "s", "title": ""})  # minLength
    with pytest.raises(ValidationError):
        models.RenameSessionRequest.model_validate({"sessionId": "s", "title": "t", "priority": -1})
