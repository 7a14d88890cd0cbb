"""`acp-codegen diff` on small hand-made schemas: one test per kind of change and who it breaks.

The base schema has one agent-side request (`session/prompt`: the client writes the params, the
agent writes the result) and one client-side notification (`session/update`: the agent writes
it), so "breaks the agent" and "breaks the client" are told apart.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.commands.cli import main
from acp_codegen.commands.diff import Change, diff_files

Doc = dict[str, Any]
OTHER = {"title": "other", "type": "string"}


def _base() -> Doc:
    tagged = {"type": "string", "const": "text"}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {
            "PromptRequest": {
                "type": "object",
                "x-method": "session/prompt",
                "x-side": "agent",
                "properties": {
                    "sessionId": {"type": "string"},
                    "mode": {"$ref": "#/$defs/Mode"},
                    "hint": {"type": "string"},
                    "content": {"type": "array", "items": {"$ref": "#/$defs/Content"}},
                },
                "required": ["sessionId"],
            },
            "PromptResponse": {
                "type": "object",
                "x-method": "session/prompt",
                "x-side": "agent",
                "properties": {"stopReason": {"$ref": "#/$defs/StopReason"}},
                "required": ["stopReason"],
            },
            "UpdateSessionNotification": {
                "type": "object",
                "x-method": "session/update",
                "x-side": "client",
                "properties": {"update": {"$ref": "#/$defs/SessionUpdate"}},
                "required": ["update"],
            },
            "SessionUpdate": {
                "anyOf": [
                    {
                        "type": "object",
                        "properties": {
                            "sessionUpdate": {"type": "string", "const": "message_chunk"},
                            "text": {"type": "string"},
                        },
                        "required": ["sessionUpdate"],
                    },
                    {
                        "title": "other",
                        "type": "object",
                        "properties": {"sessionUpdate": {"type": "string"}},
                        "required": ["sessionUpdate"],
                        "not": {"properties": {"sessionUpdate": {"const": "message_chunk"}}},
                    },
                ]
            },
            "StopReason": {
                "anyOf": [
                    {"type": "string", "const": "end_turn"},
                    {"type": "string", "const": "cancelled"},
                    OTHER,
                ]
            },
            "Mode": {"type": "string", "enum": ["fast", "slow"]},
            "Content": {
                "anyOf": [
                    {
                        "type": "object",
                        "properties": {"type": tagged, "text": {"type": "string"}},
                        "required": ["type", "text"],
                    }
                ]
            },
            "Path": {"type": "string"},
        },
    }


def _diff(tmp_path: Path, edit: Callable[[Doc], None], old: Doc | None = None) -> list[Change]:
    before = old or _base()
    after = copy.deepcopy(before)
    edit(after)
    (tmp_path / "old.json").write_text(json.dumps(before))
    (tmp_path / "new.json").write_text(json.dumps(after))
    return diff_files(tmp_path / "old.json", tmp_path / "new.json")


def _entries(changes: list[Change]) -> set[tuple[str, str, str, tuple[str, ...]]]:
    return {(c.category, c.subject, c.change, c.breaks) for c in changes}


def test_the_base_schema_loads_and_equals_itself(tmp_path: Path) -> None:
    assert _diff(tmp_path, lambda d: None) == []


def test_the_same_bytes_twice_are_loaded_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Loading is nearly all of a diff's time: a schema against its copy is read, checked and
    parsed once (and still refused when it cannot be used)."""
    from acp_codegen.commands import pipeline

    loaded: list[Path] = []
    real = pipeline.load_protocol

    def counting(path: Path, *args: Any, **kwargs: Any) -> Any:
        loaded.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(pipeline, "load_protocol", counting)
    (tmp_path / "old.json").write_text(json.dumps(_base()))
    (tmp_path / "copy.json").write_text(json.dumps(_base()))
    assert main(["diff", str(tmp_path / "old.json"), str(tmp_path / "copy.json")]) == 0
    assert "no changes" in capsys.readouterr().out
    assert loaded == [tmp_path / "old.json"]
    invalid = _base()
    invalid["$defs"]["PromptRequest"]["properties"]["mode"] = {"$ref": "#/$defs/Nope"}
    (tmp_path / "bad.json").write_text(json.dumps(invalid))
    assert main(["diff", str(tmp_path / "bad.json"), str(tmp_path / "bad.json")]) == 2
    assert "#/$defs/PromptRequest/properties/mode" in capsys.readouterr().err


def test_diff_loads_without_importing_the_renderer(tmp_path: Path) -> None:
    """The renderer (black, jinja, the emitters) is most of loading's import time; diff
    renders nothing."""
    (tmp_path / "old.json").write_text(json.dumps(_base()))
    (tmp_path / "new.json").write_text(json.dumps(_base() | {"title": "other"}))
    code = (
        "import sys; from pathlib import Path; from acp_codegen.commands.diff import diff_files; "
        f"diff_files(Path({str(tmp_path / 'old.json')!r}), Path({str(tmp_path / 'new.json')!r})); "
        "print(sorted(m for m in ('black', 'jinja2', 'acp_codegen.emit.render') "
        "if m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert (proc.returncode, proc.stdout) == (0, "[]\n"), proc.stderr


def test_a_removed_request_breaks_its_caller(tmp_path: Path) -> None:
    def edit(d: Doc) -> None:
        del d["$defs"]["PromptRequest"], d["$defs"]["PromptResponse"]

    entries = _entries(_diff(tmp_path, edit))
    assert ("methods", "session/prompt", "removed", ("client",)) in entries


def test_a_removed_notification_breaks_its_sender(tmp_path: Path) -> None:
    def edit(d: Doc) -> None:
        del d["$defs"]["UpdateSessionNotification"]

    entries = _entries(_diff(tmp_path, edit))
    assert ("methods", "session/update", "removed", ("agent",)) in entries


def test_an_added_method_is_compatible(tmp_path: Path) -> None:
    def edit(d: Doc) -> None:
        d["$defs"]["CancelNotification"] = {
            "type": "object",
            "x-method": "session/cancel",
            "x-side": "agent",
            "properties": {},
        }

    entries = _entries(_diff(tmp_path, edit))
    assert ("methods", "session/cancel", "added", ()) in entries
    assert ("types", "CancelNotification", "added", ()) in entries


def test_a_method_moving_sides_breaks_both(tmp_path: Path) -> None:
    def edit(d: Doc) -> None:
        d["$defs"]["PromptRequest"]["x-side"] = "client"
        d["$defs"]["PromptResponse"]["x-side"] = "client"

    changes = _diff(tmp_path, edit)
    side = [c for c in changes if c.change == "side-changed"]
    assert [(c.subject, c.old, c.new, c.breaks) for c in side] == [
        ("session/prompt", "agent", "client", ("agent", "client"))
    ]


def test_a_renamed_params_type_of_the_same_shape_is_compatible(tmp_path: Path) -> None:
    def edit(d: Doc) -> None:
        d["$defs"]["NewPromptRequest"] = d["$defs"].pop("PromptRequest")

    changes = _diff(tmp_path, edit)
    renamed = [c for c in changes if c.change == "params-changed"]
    assert [(c.old, c.new, c.breaking) for c in renamed] == [
        ("PromptRequest", "NewPromptRequest", False)
    ]


def test_a_result_gaining_a_required_field_breaks_the_agent(tmp_path: Path) -> None:
    def edit(d: Doc) -> None:
        resp = d["$defs"]["PromptResponse"]
        resp["properties"]["messageId"] = {"type": "string"}
        resp["required"].append("messageId")

    assert _entries(_diff(tmp_path, edit)) == {
        ("fields", "PromptResponse.messageId", "added-required", ("agent",))
    }


def test_an_optional_field_added_is_compatible(tmp_path: Path) -> None:
    def edit(d: Doc) -> None:
        d["$defs"]["PromptResponse"]["properties"]["usage"] = {"type": ["integer", "null"]}

    assert _entries(_diff(tmp_path, edit)) == {("fields", "PromptResponse.usage", "added", ())}


def test_an_added_field_breaks_the_reader_when_old_forbids_extra_fields(tmp_path: Path) -> None:
    old = _base()
    old["$defs"]["PromptResponse"]["additionalProperties"] = False

    def edit(d: Doc) -> None:
        d["$defs"]["PromptResponse"]["properties"]["usage"] = {"type": "integer"}

    assert ("fields", "PromptResponse.usage", "added", ("client",)) in _entries(
        _diff(tmp_path, edit, old)
    )


def test_params_field_becoming_required_breaks_the_client(tmp_path: Path) -> None:
    def edit(d: Doc) -> None:
        d["$defs"]["PromptRequest"]["required"].append("hint")

    assert _entries(_diff(tmp_path, edit)) == {
        ("fields", "PromptRequest.hint", "became-required", ("client",))
    }


def test_result_field_becoming_optional_breaks_the_client(tmp_path: Path) -> None:
    def edit(d: Doc) -> None:
        d["$defs"]["PromptResponse"]["required"] = []

    assert _entries(_diff(tmp_path, edit)) == {
        ("fields", "PromptResponse.stopReason", "became-optional", ("client",))
    }


def test_removed_fields_break_the_reader_only_when_they_were_required(tmp_path: Path) -> None:
    def edit(d: Doc) -> None:
        props = d["$defs"]["PromptRequest"]["properties"]
        del props["sessionId"], props["hint"]
        d["$defs"]["PromptRequest"]["required"] = []

    assert _entries(_diff(tmp_path, edit)) == {
        ("fields", "PromptRequest.sessionId", "removed", ("agent",)),
        ("fields", "PromptRequest.hint", "removed", ()),
    }


def test_field_type_changes(tmp_path: Path) -> None:
    def edit(d: Doc) -> None:
        props = d["$defs"]["PromptRequest"]["properties"]
        props["sessionId"] = {"$ref": "#/$defs/Path"}  # an alias of string: a rename
        props["hint"] = {"type": ["string", "null"]}
        props["content"] = {"type": "string"}
        props["mode"] = {"anyOf": [{"$ref": "#/$defs/Mode"}, {"type": "integer"}]}

    changes = {c.subject: c for c in _diff(tmp_path, edit)}
    session_id = changes["PromptRequest.sessionId"]
    assert (session_id.change, session_id.breaks) == ("type-renamed", ())
    hint = changes["PromptRequest.hint"]
    assert (hint.change, hint.old, hint.new, hint.breaks) == (
        "became-nullable",
        "string",
        "null|string",
        ("agent",),
    )
    widened = changes["PromptRequest.mode"]
    assert (widened.change, widened.old, widened.new, widened.breaks) == (
        "type-widened",
        "Mode",
        "Mode|integer",
        ("agent",),
    )
    content = changes["PromptRequest.content"]
    assert (content.change, content.old, content.new, content.breaks) == (
        "type-changed",
        "array<Content>",
        "string",
        ("agent", "client"),
    )


def test_closed_enum_values(tmp_path: Path) -> None:
    def edit(d: Doc) -> None:
        d["$defs"]["Mode"]["enum"] = ["fast", "turbo"]

    # Mode is in the params: the client writes it, the agent reads it.
    changes = _diff(tmp_path, edit)
    assert {(c.subject, c.change, c.old, c.new, c.breaks) for c in changes} == {
        ("Mode", "added", None, "turbo", ("agent",)),
        ("Mode", "removed", "slow", None, ("client",)),
    }
    assert {c.category for c in changes} == {"enum-values"}


def test_open_enum_values_are_compatible(tmp_path: Path) -> None:
    def edit(d: Doc) -> None:
        branches = d["$defs"]["StopReason"]["anyOf"]
        branches[1] = {"type": "string", "const": "refusal"}

    assert _entries(_diff(tmp_path, edit)) == {
        ("enum-values", "StopReason", "added", ()),
        ("enum-values", "StopReason", "removed", ()),
    }


def test_an_open_enum_becoming_closed_breaks_its_writer(tmp_path: Path) -> None:
    def edit(d: Doc) -> None:
        d["$defs"]["StopReason"]["anyOf"].pop()

    assert _entries(_diff(tmp_path, edit)) == {
        ("enum-values", "StopReason", "became-closed", ("agent",))
    }


def test_a_closed_union_gaining_a_tag_breaks_its_reader(tmp_path: Path) -> None:
    def edit(d: Doc) -> None:
        d["$defs"]["Content"]["anyOf"].append(
            {
                "type": "object",
                "properties": {"type": {"type": "string", "const": "image"}},
                "required": ["type"],
            }
        )

    assert _entries(_diff(tmp_path, edit)) == {("union-tags", "Content", "added", ("agent",))}


def test_session_update_variants(tmp_path: Path) -> None:
    def edit(d: Doc) -> None:
        d["$defs"]["SessionUpdate"]["anyOf"].insert(
            0,
            {
                "type": "object",
                "properties": {"sessionUpdate": {"type": "string", "const": "plan"}},
                "required": ["sessionUpdate"],
            },
        )

    assert _entries(_diff(tmp_path, edit)) == {("session-updates", "plan", "added", ())}

    closed = _base()
    closed["$defs"]["SessionUpdate"]["anyOf"].pop()  # no fallback branch: a closed union
    assert _entries(_diff(tmp_path, edit, closed)) == {
        ("session-updates", "plan", "added", ("client",))
    }

    edit(closed)

    def remove(d: Doc) -> None:
        d["$defs"]["SessionUpdate"]["anyOf"].pop()

    assert _entries(_diff(tmp_path, remove, closed)) == {
        ("session-updates", "message_chunk", "removed", ("agent",))
    }


def test_merge_rule_changes(tmp_path: Path) -> None:
    old = _base()
    chunk = old["$defs"]["SessionUpdate"]["anyOf"][0]
    chunk["x-merge"] = {
        "entity": "message",
        "op": "append",
        "key": "/messageId",
        "field": "text",
        "role": "agent",
    }

    def edit(d: Doc) -> None:
        d["$defs"]["SessionUpdate"]["anyOf"][0]["x-merge"]["role"] = "thought"

    changes = _diff(tmp_path, edit, old)
    assert [(c.category, c.subject, c.change, c.breaks) for c in changes] == [
        ("merge-rules", "message_chunk", "changed", ("client",))
    ]
    assert changes[0].old == "append message key=/messageId field=text role=agent"
    assert changes[0].new == "append message key=/messageId field=text role=thought"

    def drop(d: Doc) -> None:
        del d["$defs"]["SessionUpdate"]["anyOf"][0]["x-merge"]

    assert _entries(_diff(tmp_path, drop, old)) == {("merge-rules", "message_chunk", "removed", ())}


def _write(tmp_path: Path, edit: Callable[[Doc], None]) -> tuple[str, str]:
    new = _base()
    edit(new)
    (tmp_path / "old.json").write_text(json.dumps(_base()))
    (tmp_path / "new.json").write_text(json.dumps(new))
    return str(tmp_path / "old.json"), str(tmp_path / "new.json")


def test_exit_codes_and_the_one_line_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, same = _write(tmp_path, lambda d: None)
    assert main(["diff", old, same]) == 0
    assert capsys.readouterr().out == f"no changes from {old} to {same}\n"

    old, compatible = _write(tmp_path, lambda d: d["$defs"].update(Extra={"type": "string"}))
    assert main(["diff", old, compatible]) == 0
    out = capsys.readouterr().out
    assert "types:\n  compatible" in out
    assert out.endswith(": 0 breaking, 1 compatible\n")

    old, breaking = _write(tmp_path, lambda d: d["$defs"]["Mode"]["enum"].append("turbo"))
    assert main(["diff", old, breaking]) == 1
    out = capsys.readouterr().out
    assert "BREAKING (agent)" in out and "Mode: turbo" in out


def test_unreadable_or_invalid_schemas_exit_2_with_file_and_pointer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_base()))
    broken = tmp_path / "broken.json"
    broken.write_text('{"$defs": {')
    assert main(["diff", str(good), str(broken)]) == 2
    err = capsys.readouterr().err
    assert f"{broken}#/: not valid JSON at line 1" in err

    invalid = _base()
    invalid["$defs"]["PromptRequest"]["properties"]["mode"] = {"$ref": "#/$defs/Nope"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(invalid))
    assert main(["diff", str(bad), str(good), "--format", "json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert f"{bad}#/$defs/PromptRequest/properties/mode/$ref: unknown $ref" in err

    assert main(["diff", str(good), str(tmp_path / "missing.json")]) == 2
    assert f"{tmp_path / 'missing.json'}#/: cannot read file" in capsys.readouterr().err


def test_json_output_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def edit(d: Doc) -> None:
        d["$defs"]["Mode"]["enum"].append("turbo")
        d["$defs"]["PromptResponse"]["properties"]["usage"] = {"type": "integer"}

    old, new = _write(tmp_path, edit)
    assert main(["diff", old, new, "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc == {
        "old": old,
        "new": new,
        "breaking": 1,
        "compatible": 1,
        "changes": [
            {
                "category": "fields",
                "subject": "PromptResponse.usage",
                "change": "added",
                "old": None,
                "new": "integer",
                "breaking": False,
                "breaks": [],
                "why": "optional: OLD peers omit and ignore it",
            },
            {
                "category": "enum-values",
                "subject": "Mode",
                "change": "added",
                "old": None,
                "new": "turbo",
                "breaking": True,
                "breaks": ["agent"],
                "why": "closed: the OLD reader rejects the value",
            },
        ],
    }


def test_help_shows_the_rules(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["diff", "--help"])
    out = capsys.readouterr().out
    assert "added-required" in out and "the OLD writer does not send it" in out


def test_docs_table_matches_the_rules() -> None:
    from acp_codegen.commands.diff.rules import markdown_table

    docs = (Path(__file__).parents[1] / "docs" / "diff.md").read_text(encoding="utf-8")
    assert markdown_table() in docs


def test_the_readme_example_works_as_written(tmp_path: Path) -> None:
    repo = Path(__file__).resolve().parents[1]
    readme = (repo / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Comparing two schemas", 1)[1]
    script = section.split("```sh\n", 1)[1].split("```", 1)[0]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 1, proc.stderr
    assert "became-required    PromptResponse._meta: optional -> required" in proc.stdout


def test_fields_of_an_inline_union_branch(tmp_path: Path) -> None:
    def edit(d: Doc) -> None:
        chunk = d["$defs"]["SessionUpdate"]["anyOf"][0]
        chunk["properties"]["messageId"] = {"type": "string"}
        chunk["required"].append("messageId")

    # session/update is sent by the agent: an agent built on OLD does not send messageId.
    assert _entries(_diff(tmp_path, edit)) == {
        ("fields", "SessionUpdate[message_chunk].messageId", "added-required", ("agent",))
    }
