"""Constructs newer than the generator (seen in later upstream schemas) generate, with a note."""

from __future__ import annotations

import copy
import importlib
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from acp_codegen.commands.pipeline import load_protocol, render_tree
from acp_codegen.emit.render import Target
from acp_codegen.model.errors import SchemaError
from conftest import write_tree
from pydantic import TypeAdapter, ValidationError


def tagged(tag: str, value: str, payload: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {tag: {"type": "string", "const": value}},
        "required": [tag],
        "allOf": [{"$ref": f"#/$defs/{payload}"}],
    }


def obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": sorted(props)}


# Upstream style: no x-methods table, methods from x-method/x-side annotations.
UPSTREAM_STYLE: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "newer constructs",
    "$defs": {
        "Status": {
            "anyOf": [
                tagged("state", "running", "Running"),
                tagged("state", "idle", "Idle"),
            ]
        },
        "Running": obj(),
        "Idle": obj(reason={"type": "string"}),
        "Event": {
            "anyOf": [
                tagged("event", "status", "Status"),
                tagged("event", "note", "Note"),
            ]
        },
        "Note": obj(text={"type": "string"}),
        "Child": {"type": "object", "properties": {"status": {"$ref": "#/$defs/Status"}}},
        "EventNotification": {
            "x-method": "thing/event",
            "x-side": "client",
            "x-future-flag": True,
            **obj(event={"$ref": "#/$defs/Event"}, child={"$ref": "#/$defs/Child"}),
        },
        "RelayRequest": {
            "x-method": "relay/send",
            "x-side": "proxy",
            **obj(data={"type": "string"}),
        },
        "RelayResponse": {"x-method": "relay/send", "x-side": "proxy", **obj()},
    },
}


@pytest.fixture(scope="module")
def newer(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, tuple[str, ...]]:
    root = tmp_path_factory.mktemp("newer")
    schema = root / "newer.json"
    schema.write_text(json.dumps(UPSTREAM_STYLE), encoding="utf-8")
    protocol = load_protocol(schema)
    write_tree(root, render_tree(protocol, Target("acp_newer_pkg", "acp-codegen generate")))
    sys.path.insert(0, str(root))
    try:
        return importlib.import_module("acp_newer_pkg"), protocol.notes
    finally:
        sys.path.remove(str(root))


def test_a_union_nested_in_a_branch_keeps_its_names_and_its_other_user_gets_a_copy(
    newer: tuple[ModuleType, tuple[str, ...]],
) -> None:
    """The branch keeps the union's own classes (what code matching a parsed `Event` knows);
    `Child`, which uses it too, gets `StatusInChild`; nothing to note, as nothing a reader
    looks for was renamed."""
    module, notes = newer
    models = importlib.import_module("acp_newer_pkg.models")
    event = TypeAdapter(models.Event).validate_python(
        {"event": "status", "state": "idle", "reason": "done"}
    )
    assert isinstance(event, models.Idle) and event.reason == "done"
    assert event.model_dump(mode="json", by_alias=True)["event"] == "status"
    child = models.Child.model_validate({"status": {"state": "running"}})  # no outer tag here
    assert type(child.status).__name__ == "RunningInChild"
    assert "event" not in child.model_dump(mode="json", by_alias=True)["status"]
    with pytest.raises(ValidationError):  # the branch's classes need the outer tag's union
        TypeAdapter(models.Event).validate_python({"event": "status", "state": "bogus"})
    assert not any("nested" in n or "copy" in n for n in notes), notes
    assert module.METHODS


def test_a_union_nested_in_two_branches_gets_a_copy_for_each_with_a_note(
    tmp_path: Path,
) -> None:
    doc = copy.deepcopy(UPSTREAM_STYLE)
    doc["$defs"]["Other"] = {"anyOf": [tagged("kind", "status", "Status")]}
    schema = tmp_path / "twice.json"
    schema.write_text(json.dumps(doc), encoding="utf-8")
    protocol = load_protocol(schema)
    write_tree(tmp_path, render_tree(protocol, Target("acp_twice_pkg", "acp-codegen generate")))
    sys.path.insert(0, str(tmp_path))
    try:
        models = importlib.import_module("acp_twice_pkg.models")
    finally:
        sys.path.remove(str(tmp_path))
    event = TypeAdapter(models.Event).validate_python({"event": "status", "state": "running"})
    other = TypeAdapter(models.Other).validate_python({"kind": "status", "state": "running"})
    assert (type(event).__name__, type(other).__name__) == ("RunningInEvent", "RunningInOther")
    for outer, at in (("Event", "#/$defs/Event/anyOf/0"), ("Other", "#/$defs/Other/anyOf/0")):
        assert any(f"StatusIn{outer}" in n and at in n for n in protocol.notes), outer


def test_an_unknown_side_gets_rows_and_a_handler_on_both_classes(
    newer: tuple[ModuleType, tuple[str, ...]],
) -> None:
    module, notes = newer
    methods = importlib.import_module("acp_newer_pkg.methods")
    spec = module.METHODS["relay/send"]
    assert spec.side == "proxy"
    assert spec in methods.AGENT_SPECS and spec in methods.CLIENT_SPECS
    assert hasattr(module.Agent, "relay_send") and hasattr(module.Client, "relay_send")
    assert hasattr(module.ClientProxy, "relay_send") and hasattr(module.AgentProxy, "relay_send")
    assert any("x-side 'proxy'" in n and "relay/send" in n for n in notes), notes


def test_an_unknown_keyword_is_named_in_a_note(newer: tuple[ModuleType, tuple[str, ...]]) -> None:
    _, notes = newer
    assert any(
        "x-future-flag" in n and "#/$defs/EventNotification/x-future-flag" in n for n in notes
    ), notes


def test_no_protocol_version_means_no_lifecycle_and_says_so(
    newer: tuple[ModuleType, tuple[str, ...]],
) -> None:
    module, notes = newer
    assert not hasattr(module, "PROTOCOL_VERSION") and not hasattr(module, "AgentSession")
    assert callable(module.Agent.run) and callable(module.Client.spawn)
    assert any("no known protocol version" in n and "Not automated" in n for n in notes)


def test_our_own_method_table_stays_strict_about_sides(tmp_path: Path) -> None:
    """Only upstream-style annotations may name a newer side; our x-methods table may not
    (it knows `proxy` since the unstable overlay's proxy methods: a side nobody defined yet
    is still refused)."""
    doc = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "x-acp": {"protocolVersion": 2},
        "x-methods": [
            {
                "method": "relay/send",
                "side": "conductor",
                "kind": "request",
                "params": "RelayRequest",
                "result": "RelayResponse",
            }
        ],
        "$defs": {
            "RelayRequest": {"x-method": "relay/send", "x-side": "conductor", **obj()},
            "RelayResponse": {"x-method": "relay/send", "x-side": "conductor", **obj()},
        },
    }
    path = tmp_path / "strict.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(SchemaError) as raised:
        load_protocol(path)
    assert any(p.pointer == "/x-methods/0/side" for p in raised.value.problems)
