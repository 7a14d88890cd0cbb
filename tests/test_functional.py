"""Functional tests of the package generated from schema/acp.schema.json (and the small fixtures).

The canonical schema is generated once per session into a tmp dir and imported under a name of
its own (see conftest.py). Samples are built from the *source* schema (tests/fixtures/samples.py),
so a model that disagrees with the schema it came from shows up as a failed round trip.
"""

from __future__ import annotations

import ast
import json
import keyword
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    CANONICAL_PACKAGE,
    REPO,
    SCHEMA,
    GeneratedPackage,
)
from fixtures.samples import (
    SampleBuilder,
    branch_schema,
    expected_merge_row,
    is_fallback,
    known_tags,
    object_properties,
)
from pydantic import BaseModel, ValidationError
from round_trips import adapter, field_name, round_trip

_SCHEMA: dict[str, Any] = json.loads(SCHEMA.read_text(encoding="utf-8"))
_DEFS: dict[str, Any] = _SCHEMA["$defs"]
_METHODS: list[dict[str, Any]] = _SCHEMA.get("x-methods", [])
_UPDATE_UNION: str = _SCHEMA.get("x-update-union", "SessionUpdate")
_UPDATE_TAGS: list[str] = known_tags(_DEFS[_UPDATE_UNION]) if _UPDATE_UNION in _DEFS else []
_UPDATE_TAG_PROPERTY: str = (
    _DEFS.get(_UPDATE_UNION, {}).get("x-union", {}).get("tag", "sessionUpdate")
)
BUILDER = SampleBuilder(_DEFS)
# Only these may be imported (besides the standard library) by a generated package.
ALLOWED_THIRD_PARTY = {
    "pydantic",
    "pydantic_core",
    "typing_extensions",
    "typing_inspection",
    "annotated_types",
}
GENERATOR_MODULES = {"acp_codegen", "jinja2", "datamodel_code_generator", "black", "jsonschema"}


def update_sample(tag: str, *, full: bool) -> dict[str, Any]:
    sample = BUILDER.build(
        branch_schema(_DEFS[_UPDATE_UNION], _UPDATE_TAG_PROPERTY, tag), full=full
    )
    assert sample[_UPDATE_TAG_PROPERTY] == tag
    return sample  # type: ignore[no-any-return]


def _variant_class_names(tag: str) -> set[str]:
    """The class a variant parses to: its title, or for a nested union, one of the inner titles."""
    branch = branch_schema(_DEFS[_UPDATE_UNION], _UPDATE_TAG_PROPERTY, tag)
    payloads = [p["$ref"][len("#/$defs/") :] for p in branch.get("allOf") or [] if "$ref" in p]
    if payloads and "x-union" in _DEFS[payloads[0]]:
        inner = _DEFS[payloads[0]]
        return {b["title"] for b in inner.get("anyOf") or inner.get("oneOf") if not is_fallback(b)}
    return {branch["title"]}


def _tristate_cases() -> list[tuple[str, str]]:
    cases = []
    for tag in _UPDATE_TAGS:
        props = object_properties(
            BUILDER, branch_schema(_DEFS[_UPDATE_UNION], _UPDATE_TAG_PROPERTY, tag)
        )
        cases += [
            (tag, prop)
            for prop, sub in props.items()
            if isinstance(sub, dict) and sub.get("x-tristate")
        ]
    return cases


def _method_cases() -> list[Any]:
    cases = []
    for row in _METHODS:
        for role in ("params", "result"):
            if row.get(role):
                for size in ("minimal", "full"):
                    case_id = f"{row['method']}-{role}-{size}"
                    cases.append(pytest.param(row["method"], role, size, id=case_id))
    return cases


def _open_unions() -> list[str]:
    nested = {
        ref[len("#/$defs/") :]
        for schema in _DEFS.values()
        if "x-union" in schema
        for b in schema.get("anyOf") or schema.get("oneOf") or []
        for part in b.get("allOf") or []
        if isinstance(ref := part.get("$ref"), str)
    }
    return sorted(
        name
        for name, schema in _DEFS.items()
        if "x-union" in schema
        and name not in nested
        and any(is_fallback(b) for b in schema.get("anyOf") or schema.get("oneOf") or [])
    )


def _open_string_enums() -> list[str]:
    def is_open_enum(schema: dict[str, Any]) -> bool:
        branches = schema.get("anyOf")
        return (
            isinstance(branches, list)
            and "x-union" not in schema
            and len(branches) > 1
            and all(b.get("type") == "string" and "const" in b for b in branches[:-1])
            and branches[-1].get("title") == "other"
            and branches[-1].get("type") == "string"
        )

    return sorted(name for name, schema in _DEFS.items() if is_open_enum(schema))


# ------------------------------------------------------------------ the copied runtime


def test_runtime_is_copied_verbatim(canonical: GeneratedPackage) -> None:
    runtime = REPO / "codegen" / "acp_codegen" / "runtime"
    sources = {
        p.relative_to(runtime).as_posix(): p
        for p in runtime.rglob("*.py")
        if "__pycache__" not in p.parts
    }
    copied = {
        rel.removeprefix(f"{CANONICAL_PACKAGE}/_runtime/"): data
        for rel, data in canonical.files.items()
        if rel.startswith(f"{CANONICAL_PACKAGE}/_runtime/")
    }
    assert set(copied) == set(sources)
    for name, source in sources.items():
        # Only comments (the header) and formatting may differ.
        assert ast.dump(ast.parse(copied[name])) == ast.dump(ast.parse(source.read_bytes())), name


def test_every_generated_file_has_the_header(canonical: GeneratedPackage) -> None:
    for rel, data in canonical.files.items():
        if rel.endswith(".py"):
            assert data.startswith(b"# Generated by acp-codegen"), rel
            assert b"Do not edit" in data[:400] or b"do not edit" in data[:400], rel


# ------------------------------------------------------------------ methods


def test_schema_has_methods() -> None:
    assert _METHODS, "schema/acp.schema.json has no x-methods"


@pytest.mark.parametrize(("method", "role", "size"), _method_cases())
def test_method_types_round_trip(
    canonical: GeneratedPackage, method: str, role: str, size: str
) -> None:
    """A sample built from the schema's definition parses with the table's type and dumps back."""
    row = next(r for r in _METHODS if r["method"] == method)
    spec = canonical.module.METHODS[method]
    tp = spec.params_type if role == "params" else spec.result_type
    sample = BUILDER.build(_DEFS[row[role]], full=size == "full")
    round_trip(tp, sample)


def test_methods_table_matches_x_methods(canonical: GeneratedPackage) -> None:
    methods = canonical.submodule("methods")
    table = methods.METHODS
    assert len(table) == len(_METHODS)
    assert list(table) == [row["method"] for row in _METHODS]
    for row in _METHODS:
        spec = table[row["method"]]
        assert spec.method == row["method"]
        assert spec.side == row["side"]
        assert spec.kind == row["kind"]
        assert spec.params_type is getattr(canonical.models, row["params"])
        if row["kind"] == "request":
            assert spec.result_type is getattr(canonical.models, row["result"])
        else:
            assert spec.result_type is None
        assert spec.handler.isidentifier() and not keyword.iskeyword(spec.handler)
    assert set(methods.AGENT_METHODS) == {
        r["method"] for r in _METHODS if r["side"] in ("agent", "protocol")
    }
    assert set(methods.CLIENT_METHODS) == {
        r["method"] for r in _METHODS if r["side"] in ("client", "protocol")
    }
    assert canonical.module.METHODS is table


def test_handlers_are_unique_per_side(canonical: GeneratedPackage) -> None:
    methods = canonical.submodule("methods")
    for view in (methods.AGENT_METHODS, methods.CLIENT_METHODS):
        handlers = [spec.handler for spec in view.values()]
        assert len(handlers) == len(set(handlers))


def test_side_base_classes_have_every_handler_the_runtime_does_not_serve(
    canonical: GeneratedPackage,
) -> None:
    from acp_codegen.model.ir import LIFECYCLE_SERVED

    for side, class_name in (("agent", "Agent"), ("client", "Client")):
        base = getattr(canonical.module, class_name, None)
        if base is None:
            pytest.skip(f"the package has no {class_name} base class yet")
        for row in _METHODS:
            if row["side"] == side:
                spec = canonical.module.METHODS[row["method"]]
                handler = getattr(base, spec.handler, None)
                if side == "agent" and row["method"] in LIFECYCLE_SERVED:
                    # Served by the lifecycle: no handler an override would silently bypass.
                    assert handler is None, (class_name, spec.handler)
                else:
                    assert callable(handler), (class_name, spec.handler)


# ------------------------------------------------------------------ session updates


def test_schema_has_the_24_session_update_variants() -> None:
    """The 16 of the first v2 drafts, plus `notice`, `compaction_update` and
    `compaction_summary_chunk` (upstream's v2 as SDK 2.4.0 publishes it), plus the five
    upstream added after 2.4.0 (docs/design.md, "Beyond 2.4.0")."""
    assert len(_UPDATE_TAGS) == 24, _UPDATE_TAGS
    assert len(set(_UPDATE_TAGS)) == 24
    assert {"notice", "compaction_update", "compaction_summary_chunk"} <= set(_UPDATE_TAGS)
    after = {
        "replay_complete",
        "subagent_update",
        "session_message",
        "session_message_chunk",
        "plan_removed",
    }
    assert after <= set(_UPDATE_TAGS)


@pytest.mark.parametrize("size", ["minimal", "full"])
@pytest.mark.parametrize("tag", _UPDATE_TAGS)
def test_session_update_variant_round_trips(
    canonical: GeneratedPackage, tag: str, size: str
) -> None:
    models = canonical.models
    sample = update_sample(tag, full=size == "full")
    obj = round_trip(getattr(models, _UPDATE_UNION), sample)
    assert type(obj).__name__ in _variant_class_names(tag)
    # ...and inside the session/update params.
    params = {"sessionId": "sess-1", "update": sample}
    round_trip(models.UpdateSessionNotification, params)


@pytest.mark.parametrize("state", ["absent", "null", "value"])
@pytest.mark.parametrize(("tag", "prop"), _tristate_cases())
def test_tristate_fields_keep_absent_null_and_value_apart(
    canonical: GeneratedPackage, tag: str, prop: str, state: str
) -> None:
    sample = update_sample(tag, full=False)
    sample.pop(prop, None)
    if state == "null":
        sample[prop] = None
    elif state == "value":
        props = object_properties(
            BUILDER, branch_schema(_DEFS[_UPDATE_UNION], _UPDATE_TAG_PROPERTY, tag)
        )
        sample[prop] = BUILDER.build(props[prop], full=True)
        assert sample[prop] is not None
    obj = round_trip(getattr(canonical.models, _UPDATE_UNION), sample)
    name = field_name(type(obj), prop)
    if state == "absent":
        assert name not in obj.model_fields_set
        assert prop not in obj.model_dump(mode="json", by_alias=True)
    elif state == "null":
        assert getattr(obj, name) is None
        assert obj.model_dump(mode="json", by_alias=True)[prop] is None
    else:
        assert getattr(obj, name) is not None


def test_tristate_cases_cover_the_patch_variants() -> None:
    tags = {tag for tag, _ in _tristate_cases()}
    assert {"tool_call_update", "terminal_update"} <= tags


def test_tristate_null_survives_inside_the_notification(canonical: GeneratedPackage) -> None:
    update = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t1",
        "title": None,
        "rawInput": None,
    }
    params = {"sessionId": "s", "update": update}
    obj = round_trip(canonical.models.UpdateSessionNotification, params)
    assert obj.update.title is None
    assert "status" not in obj.model_dump(mode="json", by_alias=True)["update"]


@pytest.mark.parametrize("tag", _UPDATE_TAGS)
def test_known_tag_with_malformed_payload_is_rejected(
    canonical: GeneratedPackage, tag: str
) -> None:
    """A known tag never falls through to the open branch when its payload is bad."""
    ta = adapter(getattr(canonical.models, _UPDATE_UNION))
    sample = update_sample(tag, full=False)
    branch = branch_schema(_DEFS[_UPDATE_UNION], _UPDATE_TAG_PROPERTY, tag)
    props = object_properties(BUILDER, branch)
    broken: list[dict[str, Any]] = []
    for required in set(sample) - {_UPDATE_TAG_PROPERTY}:
        broken.append({k: v for k, v in sample.items() if k != required})
    if "_meta" in props:
        broken.append({**sample, "_meta": 5})
    assert broken, f"no way to break a {tag} payload"
    for bad in broken:
        with pytest.raises(ValidationError):
            ta.validate_python(bad)


def test_wrong_types_are_rejected(canonical: GeneratedPackage) -> None:
    models = canonical.models
    update = adapter(getattr(models, _UPDATE_UNION))
    with pytest.raises(ValidationError):
        update.validate_python({"sessionUpdate": "usage_update", "used": "lots", "size": 10})
    with pytest.raises(ValidationError):
        update.validate_python({"sessionUpdate": "usage_update", "used": -1, "size": 10})
    with pytest.raises(ValidationError):  # uint64 upper bound from `format`
        update.validate_python({"sessionUpdate": "usage_update", "used": 2**64, "size": 10})
    with pytest.raises(ValidationError):  # a number where a string is expected
        update.validate_python(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": 7,
                "content": {"type": "text", "text": "x"},
            }
        )
    with pytest.raises(ValidationError):  # tag of the wrong JSON type
        update.validate_python({"sessionUpdate": 3})
    with pytest.raises(ValidationError):  # no tag at all
        update.validate_python({"used": 1, "size": 2})
    with pytest.raises(ValidationError):
        update.validate_python("usage_update")
    with pytest.raises(ValidationError):
        adapter(models.ProtocolVersion).validate_python(65536)
    with pytest.raises(ValidationError):
        adapter(models.ProtocolVersion).validate_python(-1)


def test_closed_enum_rejects_other_values(canonical: GeneratedPackage) -> None:
    ta = adapter(canonical.models.ElicitationSchemaType)
    assert ta.validate_python("object") == "object"
    with pytest.raises(ValidationError):
        ta.validate_python("array")


# ------------------------------------------------------------------ open unions, open enums, _meta


@pytest.mark.parametrize("tag", ["_acme/progress", "_x", "future_update_kind"])
def test_unknown_update_tags_are_kept(canonical: GeneratedPackage, tag: str) -> None:
    sample = {
        "sessionUpdate": tag,
        "percent": 50,
        "detail": {"a": [1, None]},
        "_meta": {"trace": "t"},
    }
    obj = round_trip(getattr(canonical.models, _UPDATE_UNION), sample)
    known_classes = {b.get("title") for b in _DEFS[_UPDATE_UNION]["anyOf"] if not is_fallback(b)}
    assert type(obj).__name__ not in known_classes
    assert getattr(obj, field_name(type(obj), "sessionUpdate")) == tag
    assert obj.model_dump(mode="json", by_alias=True)["percent"] == 50


@pytest.mark.parametrize("union", _open_unions())
def test_open_unions_keep_custom_tags(canonical: GeneratedPackage, union: str) -> None:
    schema = _DEFS[union]
    tag = schema["x-union"]["tag"]
    branches = schema.get("anyOf") or schema.get("oneOf")
    fallback = next(b for b in branches if is_fallback(b))
    sample = BUILDER.build(
        {**{k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}, "anyOf": [fallback]}
    )
    sample[tag] = "_custom_tag"
    sample["customField"] = {"kept": True}
    obj = round_trip(getattr(canonical.models, union), sample)
    assert type(obj).__name__ not in {b.get("title") for b in branches if not is_fallback(b)}


def test_open_unions_are_found() -> None:
    assert "ContentBlock" in _open_unions()
    assert _UPDATE_UNION in _open_unions()


def test_nested_union_keeps_custom_inner_tags(canonical: GeneratedPackage) -> None:
    sample = {"sessionUpdate": "state_update", "state": "_custom_state", "extra": 1}
    obj = round_trip(getattr(canonical.models, _UPDATE_UNION), sample)
    assert getattr(obj, field_name(type(obj), "state")) == "_custom_state"
    with pytest.raises(ValidationError):  # known inner tag, bad payload
        adapter(getattr(canonical.models, _UPDATE_UNION)).validate_python(
            {"sessionUpdate": "state_update", "state": "idle", "stopReason": 5}
        )


@pytest.mark.parametrize("enum", _open_string_enums())
def test_open_string_enums_keep_unknown_values(canonical: GeneratedPackage, enum: str) -> None:
    ta = adapter(getattr(canonical.models, enum))
    for branch in _DEFS[enum]["anyOf"][:-1]:
        assert ta.validate_python(branch["const"]) == branch["const"]
    assert ta.validate_python("_custom_value") == "_custom_value"
    assert ta.dump_python("_custom_value", mode="json") == "_custom_value"
    with pytest.raises(ValidationError):
        ta.validate_python(12)


def test_open_string_enums_are_found() -> None:
    assert {"NoticeSeverity", "CompactionStatus", "ToolCallStatus"} <= set(_open_string_enums())


def test_custom_stop_reason_is_kept(canonical: GeneratedPackage) -> None:
    sample = {"sessionUpdate": "state_update", "state": "idle", "stopReason": "_custom_stop"}
    obj = round_trip(getattr(canonical.models, _UPDATE_UNION), sample)
    assert obj.stop_reason == "_custom_stop"
    result = (
        {"stopReason": "_custom_stop"}
        if "stopReason" in _DEFS["PromptResponse"].get("properties", {})
        else None
    )
    if result is not None:
        round_trip(canonical.models.PromptResponse, result)


def test_meta_is_reachable_as_meta_and_serialised_as_underscore_meta(
    canonical: GeneratedPackage,
) -> None:
    models = canonical.models
    params = {"sessionId": "s", "_meta": {"trace": "abc", "n": [1, 2]}}
    obj = round_trip(models.CancelSessionNotification, params)
    assert obj.meta == {"trace": "abc", "n": [1, 2]}
    built = models.CancelSessionNotification(session_id="s", meta={"k": 1})
    assert built.model_dump(mode="json") == {"sessionId": "s", "_meta": {"k": 1}}
    assert json.loads(built.model_dump_json()) == {"sessionId": "s", "_meta": {"k": 1}}
    assert (
        models.CancelSessionNotification.model_validate({"sessionId": "s", "_meta": None}).meta
        is None
    )


def test_every_meta_field_is_called_meta(canonical: GeneratedPackage) -> None:
    found = 0
    for value in vars(canonical.models).values():
        if isinstance(value, type) and issubclass(value, BaseModel) and value is not BaseModel:
            for name, info in value.model_fields.items():
                if info.alias == "_meta":
                    assert name == "meta", f"{value.__name__}.{name}"
                    found += 1
                assert not name.startswith("_"), f"{value.__name__}.{name}"
    assert found > 50


def test_unknown_fields_are_kept(canonical: GeneratedPackage) -> None:
    params = {"sessionId": "s", "futureField": {"x": 1}}
    obj = round_trip(canonical.models.CancelSessionNotification, params)
    assert obj.model_extra == {"futureField": {"x": 1}}


# ------------------------------------------------------------------ merge rules


def test_merge_rules_match_x_merge(canonical: GeneratedPackage) -> None:
    merge = canonical.submodule("merge_rules")
    assert merge.UPDATE_TAG == _UPDATE_TAG_PROPERTY
    assert set(merge.MERGE_RULES) == set(_UPDATE_TAGS)
    assert len(merge.MERGE_RULES) == 24
    for tag in _UPDATE_TAGS:
        raw = branch_schema(_DEFS[_UPDATE_UNION], _UPDATE_TAG_PROPERTY, tag)["x-merge"]
        rule = merge.MERGE_RULES[tag]
        actual = {k: getattr(rule, k) for k in expected_merge_row(tag, raw)}
        assert actual == expected_merge_row(tag, raw), tag
    assert canonical.module.MERGE_RULES is merge.MERGE_RULES


def test_tristate_table_matches_the_schema(canonical: GeneratedPackage) -> None:
    expected: dict[str, frozenset[str]] = {}
    for name, schema in _DEFS.items():
        props = {
            p
            for p, s in (schema.get("properties") or {}).items()
            if isinstance(s, dict) and s.get("x-tristate")
        }
        if props:
            expected[name] = frozenset(props)
    assert dict(canonical.submodule("merge_rules").TRISTATE_FIELDS) == expected


# ------------------------------------------------------------------ imports


def _run(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=False
    )


# The remote transports (the `http` extra): the only modules that may import aiohttp.
NEEDS_AIOHTTP = frozenset(
    f"_runtime/{name}.py"
    for name in (
        "transports/http_client",
        "serving/http_server",
        "serving/event_stream",
        "transports/ws_client",
        "serving/ws_server",
    )
)


def _dotted(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


_IMPORT_PROBE = textwrap.dedent("""
    import importlib, importlib.abc, json, pkgutil, sys, sysconfig
    out, name, blocked = sys.argv[1], sys.argv[2], set(json.loads(sys.argv[3]))
    optional = set(json.loads(sys.argv[4]))  # modules of an optional extra: not imported here

    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path=None, target=None):
            if fullname.split(".")[0] in blocked:
                raise ImportError("generated code imported " + fullname)
            return None

    before = set(sys.modules)
    sys.meta_path.insert(0, Block())
    sys.path.insert(0, out)
    pkg = importlib.import_module(name)
    for info in pkgutil.walk_packages(pkg.__path__, name + "."):
        if info.name[len(name) + 1 :] not in optional:
            importlib.import_module(info.name)
    stdlib = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib")}

    def third_party(top):
        origin = getattr(sys.modules.get(top), "__file__", None)
        if top in sys.stdlib_module_names or top in sys.builtin_module_names or origin is None:
            return False
        return not any(origin.startswith(p + "/") and "-packages" not in origin for p in stdlib)

    new = sorted({m.split(".")[0] for m in set(sys.modules) - before})
    print(json.dumps({
        "new": new,
        "third_party": [m for m in new if third_party(m)],
        "modules": sorted(m for m in sys.modules if m.startswith(name)),
    }))
    """)


def _probe(out: Path, name: str) -> dict[str, Any]:
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            _IMPORT_PROBE,
            str(out),
            name,
            json.dumps(sorted(GENERATOR_MODULES)),
            json.dumps(sorted(_dotted(path) for path in NEEDS_AIOHTTP)),
        ],
        cwd=out,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_package_imports_with_pydantic_only(canonical: GeneratedPackage) -> None:
    found = _probe(canonical.out, CANONICAL_PACKAGE)
    third_party = set(found["third_party"]) - {CANONICAL_PACKAGE}
    assert "pydantic" in third_party
    assert third_party <= ALLOWED_THIRD_PARTY
    assert not third_party & GENERATOR_MODULES
    assert f"{CANONICAL_PACKAGE}.models" in found["modules"]


def test_package_uses_relative_imports_only(canonical: GeneratedPackage, tmp_path: Path) -> None:
    source = canonical.out / CANONICAL_PACKAGE
    shutil.copytree(source, tmp_path / "a" / "first_copy")
    (tmp_path / "b" / "vendor").mkdir(parents=True)
    (tmp_path / "b" / "vendor" / "__init__.py").write_text("")
    shutil.copytree(source, tmp_path / "b" / "vendor" / "acp")
    for out, name in ((tmp_path / "a", "first_copy"), (tmp_path / "b", "vendor.acp")):
        found = _probe(out, name)
        assert CANONICAL_PACKAGE not in found["new"], f"{name} imported the original package name"
        assert f"{name}.models" in found["modules"]


def test_absolute_imports_are_stdlib_or_pydantic(canonical: GeneratedPackage) -> None:
    """Except the transports of the `http` extra, which import aiohttp themselves (and are the
    only modules that do: importing the rest never pulls it in, see the probe above)."""
    allowed = set(sys.stdlib_module_names) | ALLOWED_THIRD_PARTY | {"__future__"}
    for rel, data in canonical.files.items():
        # remote_client imports it inside the function that needs it (the probe imports it).
        lazy = NEEDS_AIOHTTP | {"_runtime/transports/remote_client.py"}
        if not rel.endswith(".py") or rel.split("/", 1)[-1] in lazy:
            continue
        tree = ast.parse(data)
        typing_only = {  # `if TYPE_CHECKING:` imports never run
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
            for inner in ast.walk(node)
        }
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.Import):
                tops = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                tops = {(node.module or "").split(".")[0]}
            else:
                continue
            assert tops <= allowed, f"{rel}:{node.lineno} imports {sorted(tops - allowed)}"
