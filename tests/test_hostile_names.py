"""Names from a schema that cannot become distinct Python identifiers, and references or unions
the generator cannot honour: `validate` refuses each with a JSON pointer (exit 2, no traceback),
so `generate` never silently renames, overwrites or drops anything."""

from __future__ import annotations

import contextlib
import copy
import importlib
import io
import json
import socket
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.commands.cli import main
from acp_codegen.commands.pipeline import load_protocol
from acp_codegen.load.validate_names import python_field_name
from acp_codegen.model.errors import Problem, SchemaError
from acp_codegen.model.naming import RESERVED_HANDLER_NAMES
from conftest import FIXTURE_SCHEMAS, render, write_tree

REQUEST = json.loads((FIXTURE_SCHEMAS / "request.json").read_text(encoding="utf-8"))
UNION = json.loads((FIXTURE_SCHEMAS / "tagged_union.json").read_text(encoding="utf-8"))
Change = Callable[[dict[str, Any]], None]
PARAMS = "/$defs/RenameSessionRequest/properties"


def _props(doc: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = doc["$defs"]["RenameSessionRequest"]["properties"]
    return props


def _add(**props: Any) -> Change:
    return lambda doc: _props(doc).update(props)


def _set_def(name: str, schema: dict[str, Any], use: bool = True) -> Change:
    def change(doc: dict[str, Any]) -> None:
        doc["$defs"][name] = schema
        if use:
            _props(doc)["extra"] = {"$ref": f"#/$defs/{name}"}

    return change


def _union_branches(*extra: dict[str, Any]) -> Change:
    def change(doc: dict[str, Any]) -> None:
        doc["$defs"]["Shape"]["anyOf"] += list(extra)
        doc["$defs"]["Triangle"] = {
            "title": "Triangle",
            "type": "object",
            "properties": {"kind": {"type": "string", "const": "triangle"}},
            "required": ["kind"],
        }

    return change


STRING = {"type": "string"}
OBJECT = {"type": "object", "properties": {"y": STRING}}
# name -> (base document, change, pointer of the problem, words of its message)
REFUSED: dict[str, tuple[dict[str, Any], Change, str, str]] = {
    "camel and snake property": (
        REQUEST,
        _add(fooBar=STRING, foo_bar=STRING),
        f"{PARAMS}/foo_bar",
        "both become the Python field 'foo_bar'",
    ),
    "dash and snake property": (
        REQUEST,
        _add(**{"foo-bar": STRING, "foo_bar": STRING}),
        f"{PARAMS}/foo_bar",
        "both become",
    ),
    "meta next to _meta": (REQUEST, _add(meta=STRING), f"{PARAMS}/meta", "both become"),
    "look-alike property (Cyrillic a)": (
        REQUEST,
        _add(**{"n\u0430me": STRING}),
        f"{PARAMS}/n\u0430me",
        "non-ASCII",
    ),
    "ligature property": (REQUEST, _add(**{"\ufb01eld": STRING}), f"{PARAMS}/\ufb01eld", "ASCII"),
    "keyword title of a definition": (
        REQUEST,
        lambda doc: doc["$defs"]["SessionId"].update(title="class"),
        "/$defs/SessionId/title",
        "would rename the type",
    ),
    "keyword title of a nested object": (
        REQUEST,
        _add(x={"title": "def", **OBJECT}),
        f"{PARAMS}/x/title",
        "cannot name a generated class",
    ),
    "builtin title of a nested string": (
        REQUEST,
        _add(x={"title": "str", "type": "string"}),
        f"{PARAMS}/x/title",
        "cannot name",
    ),
    "nested title naming another definition": (
        REQUEST,
        _add(x={"title": "RenameSessionResponse", **OBJECT}),
        f"{PARAMS}/x/title",
        "names another type too",
    ),
    "alias cycle": (
        REQUEST,
        lambda doc: (
            _set_def("A", {"title": "A", "$ref": "#/$defs/B"})(doc),
            _set_def("B", {"title": "B", "$ref": "#/$defs/A"}, use=False)(doc),
        ),
        "/$defs/A",
        "only a reference to itself (A -> B -> A)",
    ),
    "inheriting from itself": (
        REQUEST,
        _set_def("A", {"title": "A", "allOf": [{"$ref": "#/$defs/A"}]}),
        "/$defs/A",
        "only a reference to itself",
    ),
    "a union of itself": (
        REQUEST,
        _set_def("A", {"title": "A", "anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}),
        "/$defs/A",
        "only a reference to itself",
    ),
    "unresolvable $ref": (
        REQUEST,
        _add(x={"$ref": "#/$defs/Nowhere"}),
        f"{PARAMS}/x/$ref",
        "unknown $ref",
    ),
    "remote $ref": (
        REQUEST,
        _add(x={"$ref": "https://example.invalid/schema.json#/$defs/X"}),
        f"{PARAMS}/x/$ref",
        "unknown $ref",
    ),
    "file $ref outside the folder": (
        REQUEST,
        _add(x={"$ref": "../secret.json#/$defs/X"}),
        f"{PARAMS}/x/$ref",
        "unknown $ref",
    ),
    "$ref into a definition": (
        REQUEST,
        _add(x={"$ref": "#/$defs/RenameSessionRequest/properties/title"}),
        f"{PARAMS}/x/$ref",
        "unknown $ref",
    ),
    "$dynamicRef": (
        REQUEST,
        _add(x={"$dynamicRef": "https://example.invalid/x.json"}),
        f"{PARAMS}/x/$dynamicRef",
        "only local #/$defs/ references",
    ),
    "nested $id": (
        REQUEST,
        _add(x={"$id": "https://example.invalid/y.json", **OBJECT}),
        f"{PARAMS}/x/$id",
        "not supported",
    ),
    "method whose handler would replace Agent.run": (
        REQUEST,
        lambda doc: [
            target.update({key: "run"})
            for target, key in (
                (doc["x-methods"][0], "method"),
                (doc["$defs"]["RenameSessionRequest"], "x-method"),
                (doc["$defs"]["RenameSessionResponse"], "x-method"),
            )
        ],
        "/x-methods/0/method",
        "a name the generated classes use for themselves",
    ),
    "branch property and payload property that merge into one field": (
        UNION,
        lambda doc: (
            doc["$defs"]["Circle"]["properties"].update(foo_bar=STRING),
            doc["$defs"]["Shape"]["anyOf"][0]["properties"].update(fooBar=STRING),
        ),
        "/$defs/Shape",
        "both become the Python field 'foo_bar'",
    ),
    "union branch whose tag const is behind a $ref": (
        UNION,
        _union_branches({"$ref": "#/$defs/Triangle"}),
        "/$defs/Shape/anyOf/2",
        "without a `const` on the branch itself",
    ),
    "union branch with an enum instead of a const": (
        UNION,
        _union_branches(
            {"type": "object", "properties": {"kind": {"type": "string", "enum": ["hexagon"]}}}
        ),
        "/$defs/Shape/anyOf/2",
        "without a `const` on the branch itself",
    ),
    "two union branches without a tag": (
        UNION,
        _union_branches(
            {"title": "Blob", "type": "object", "properties": {"b": STRING}},
            {"title": "Blip", "type": "object", "properties": {"c": STRING}},
        ),
        "/$defs/Shape/anyOf/3",
        "only one branch can take messages without the tag",
    ),
}


def _write(tmp_path: Path, base: dict[str, Any], change: Change) -> Path:
    doc = copy.deepcopy(base)
    change(doc)
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any attempt to open a connection fails the test (remote references are never fetched)."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refused_with_a_pointer(tmp_path: Path, case: str, no_network: None) -> None:
    base, change, at, words = REFUSED[case]
    path = _write(tmp_path, base, change)
    (tmp_path / "secret.json").write_text('{"$defs": {"X": {"type": "string"}}}')
    with pytest.raises(SchemaError) as caught:
        load_protocol(path)
    found = [(p.pointer, p.message) for p in caught.value.problems]
    assert any(p == at and words in m for p, m in found), found


@pytest.mark.parametrize("case", ["camel and snake property", "alias cycle", "$dynamicRef"])
def test_refused_by_the_cli_without_traceback(tmp_path: Path, case: str, no_network: None) -> None:
    base, change, at, _ = REFUSED[case]
    path = _write(tmp_path, base, change)
    out = tmp_path / "out"
    for argv in (["validate", str(path)], ["generate", "--schema", str(path), "--out", str(out)]):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            assert main(argv) == 2
        assert f"{path}#{at}" in err.getvalue()
        assert "Traceback" not in err.getvalue()
    assert not out.exists(), "a refused schema wrote output"


def test_problem_text_escapes_control_and_bidi_characters() -> None:
    """A hostile property name shown in an error cannot drive the terminal."""
    shown = str(Problem("s.json", "/$defs/A/properties/a\x1b[2J\u202eb\n", "bad \x00name"))
    assert shown.isprintable()
    assert "\\x1b[2J" in shown and "\\u202e" in shown and "\\x00" in shown


@pytest.mark.parametrize(
    ("wire", "python"),
    [
        ("sessionId", "session_id"),
        ("_meta", "meta"),
        ("class", "class_"),
        ("__init__", "field__init__"),
        ("model_config", "model_config_"),
        ("1st", "field_1st"),
        ("", "field_"),
        ('a"b#c', "a_b_c"),
    ],
)
def test_python_field_name_matches_the_generator(wire: str, python: str) -> None:
    assert python_field_name(wire) == python


def test_sanitised_property_names_keep_their_wire_names(tmp_path: Path) -> None:
    """Keywords, dunders, pydantic's own names, digits and the empty string are legal property
    names: each gets a distinct field and the message round-trips with its wire names."""
    wire = ["class", "__init__", "model_config", "model_dump", "1st", "", "from", 'q"uote']
    path = _write(tmp_path, REQUEST, _add(**{name: STRING for name in wire}))
    files = render(path, "hostile_fields")
    write_tree(tmp_path / "out", files)
    sys.path.insert(0, str(tmp_path / "out"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no field in pydantic's protected namespaces
            models = importlib.import_module("hostile_fields.models")
    finally:
        sys.path.remove(str(tmp_path / "out"))
    message = {"sessionId": "s", "title": "t", **{name: f"v{i}" for i, name in enumerate(wire)}}
    parsed = models.RenameSessionRequest.model_validate(message)
    assert parsed.model_dump(mode="json", by_alias=True, exclude_unset=True) == message
    fields = {
        n if f.alias is None else f.alias: n
        for n, f in models.RenameSessionRequest.model_fields.items()
    }
    assert len({fields[name] for name in wire}) == len(wire)
    assert all(fields[name].isascii() and fields[name].isidentifier() for name in wire)


def test_reserved_handler_names_cover_the_generated_classes(canonical: Any) -> None:
    """Every public member of the generated classes that is not a handler is reserved, so a
    method cannot silently replace it."""
    handlers = {spec.handler for spec in canonical.module.METHODS.values()}
    agent, client = canonical.submodule("agent"), canonical.submodule("client")
    for cls in (agent.Agent, agent.ClientProxy, client.Client, client.AgentProxy):
        public = {name for name in dir(cls) if not name.startswith("_")}
        assert public - handlers <= RESERVED_HANDLER_NAMES, cls.__name__
