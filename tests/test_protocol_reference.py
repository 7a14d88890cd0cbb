"""The generated package's protocol reference (`PROTOCOL.md`).

Content is checked against the canonical schema (methods, update variants and their merge rules,
presence of known fields); its Markdown structure is checked by parsing it with markdown-it
(CommonMark plus the GitHub tables and strikethrough it uses), so hostile schema text is shown
to stay text: the same schema with plain and with hostile descriptions gives the same document
structure.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.commands.cli import main
from acp_codegen.emit.markdown import Anchors, code, prose, visible
from conftest import CANONICAL_PACKAGE, FIXTURE_SCHEMAS, REPO, render
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token
from test_hostile_text import HOSTILE, _schema

REFERENCE = f"{CANONICAL_PACKAGE}/PROTOCOL.md"
# Markdown and HTML that would change the document if it were not escaped.
MARKDOWN_HOSTILE = (
    "| a | b |\n# heading\n> quote\n- item\n1. item\n```fence\n<script>alert(1)</script>"
    " <!-- comment --> <img src=x> [link](http://example.invalid) ![i](http://example.invalid/i)"
    " *em* __strong__ ~~gone~~ &amp; &#60; \\` `code|span` <http://example.invalid> $x$ ---"
)


def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable(["table", "strikethrough"])


def _text(files: dict[str, bytes], rel: str = REFERENCE) -> str:
    return files[rel].decode("utf-8")


def _section(text: str, anchor: str) -> str:
    """The lines from the heading holding `anchor` up to the next heading of that level."""
    start = text.index(f'<a id="{anchor}"></a>')
    line_start = text.rfind("\n", 0, start) + 1
    level = text[line_start:start].strip()
    end = text.find(f"\n{level} ", start)
    return text[line_start : end if end != -1 else len(text)]


def _field_rows(section: str) -> dict[str, list[str]]:
    """Field table rows of a section keyed by wire name: [type, presence, description]."""
    rows: dict[str, list[str]] = {}
    for line in section.splitlines():
        match = re.match(r"\| `([^`]+)`(?: \(wire `([^`]+)`\))? \| (.*) \| (.*) \| (.*) \|$", line)
        if match:
            python, wire, type_, presence, description = match.groups()
            rows[wire or python] = [type_, presence, description]
    return rows


# ------------------------------------------------------------------ canonical content


def test_every_method_appears_with_its_side_and_kind(
    canonical_files: dict[str, bytes], canonical_schema: dict[str, Any]
) -> None:
    text = _text(canonical_files)
    for row in canonical_schema["x-methods"]:
        table_row = f"| [`{row['method']}`](#"
        assert table_row in text, row["method"]
        line = next(ln for ln in text.splitlines() if ln.startswith(table_row))
        assert f"| {row['side']} | {row['kind']} |" in line, line
        assert f"[`{row['params']}`](#type-{row['params'].lower()})" in line
        heading = re.search(rf'### <a id="([^"]+)"></a>`{re.escape(row["method"])}`\n', text)
        assert heading is not None, row["method"]
        body = _section(text, heading.group(1))
        assert f"Side: {row['side']} · {row['kind']} · " in body


def test_handlers_name_the_class_that_has_them(canonical_files: dict[str, bytes]) -> None:
    text = _text(canonical_files)
    assert "handler `Agent.auth_login`" in _section(text, "method-auth-login")
    assert "handler `Client.session_request_permission`" in _section(
        text, "method-session-request-permission"
    )
    # Served by the runtime's lifecycle: no handler on the generated Agent to point at.
    prompt = _section(text, "method-session-prompt")
    assert "served by the runtime's session lifecycle" in prompt and "Agent." not in prompt


def test_every_update_variant_appears_with_its_merge_rule(
    canonical_files: dict[str, bytes], canonical_schema: dict[str, Any]
) -> None:
    text = _text(canonical_files)
    union = canonical_schema["$defs"][canonical_schema["x-update-union"]]
    branches = [b for b in union["anyOf"] if "x-merge" in b]
    assert len(branches) >= 10
    verbs = {
        "upsert": "Upsert the",
        "append": "Append: the value at",
        "replace": "Replace:",
        "remove": "Remove:",
    }
    for branch in branches:
        tag = branch["properties"]["sessionUpdate"]["const"]
        rule = branch["x-merge"]
        row = next(ln for ln in text.splitlines() if f"</a>`{tag}` |" in ln)
        assert f'<a id="update-{tag.replace("_", "-")}"></a>' in row
        logged = rule["op"] == "append" and "field" not in rule  # a log entity: the update itself
        marker = rule["entity"] == "replay"  # a marker: no state
        verb = "Marker (" if marker else "Log: the update" if logged else verbs[rule["op"]]
        assert verb in row, row
        assert f"`{rule['entity']}`" in row
        if "key" in rule:
            assert f"identified by `{rule['key']}`" in row
        if "field" in rule:
            assert f"`{rule['field']}` of the" in row
        if "from" in rule:
            assert f"`{rule['from']}`" in row


def test_known_fields_have_the_right_presence(canonical_files: dict[str, bytes]) -> None:
    text = _text(canonical_files)
    initialize = _field_rows(_section(text, "type-initializerequest"))
    assert initialize["protocolVersion"][1] == "required"
    assert initialize["capabilities"][1] == "optional"
    message = _field_rows(_section(text, "type-agentmessage"))
    assert message["messageId"][1] == "required"
    assert message["sessionUpdate"][1] == "required"  # the tag: always on the wire
    assert message["content"] == [
        r"`list[ContentBlock] \| None`",
        "optional, three-state",
        message["content"][2],
    ]
    # Inherited three-state fields are marked on the union branch built on them too.
    tool_call = _field_rows(_section(text, "type-sessiontoolcallupdate"))
    assert tool_call["toolCallId"][1] == "required"
    assert any(row[1] == "optional, three-state" for row in tool_call.values())
    listing = _field_rows(_section(text, "type-listsessionsrequest"))
    assert listing["cursor"][1] == "optional"


def test_types_show_enums_and_unions(canonical_files: dict[str, bytes]) -> None:
    text = _text(canonical_files)
    tool_kind = _section(text, "type-toolkind")
    assert "Open enum" in tool_kind and "`execute`" in tool_kind
    error_code = _section(text, "type-errorcode")
    assert "any other value of type `int`" in error_code and "`-32601`" in error_code
    content = _section(text, "type-contentblock")
    assert "Tagged union on `type`." in content
    assert "| `text` | [`TextContent`](#type-textcontent) |" in content
    assert "| any other value |" in content


def test_anchors_are_unique_and_every_link_lands(canonical_files: dict[str, bytes]) -> None:
    text = _text(canonical_files)
    ids = re.findall(r'<a id="([^"]+)"></a>', text)
    assert len(ids) == len(set(ids))
    targets = set(re.findall(r"\]\(#([^)]+)\)", text))
    assert targets and targets <= set(ids)


def test_the_contents_list_every_type_once_under_its_kind(
    canonical_files: dict[str, bytes],
) -> None:
    text = _text(canonical_files)
    contents = text[text.index("## Contents") : text.index('<a id="methods"></a>')]
    by_kind = contents.split("- [Types](#types), by kind:\n")[1]
    listed = re.findall(r"\]\(#(type-[^)]+)\)", by_kind)
    assert sorted(listed) == sorted(re.findall(r'<a id="(type-[^"]+)"></a>', text))
    kinds = [line.split(":")[0] for line in by_kind.splitlines() if line.startswith("  - ")]
    assert kinds == ["  - models", "  - unions", "  - enums", "  - open enums", "  - aliases"]


def test_the_committed_package_has_the_reference() -> None:
    committed = REPO / "generated" / "acp_bindings" / "PROTOCOL.md"
    text = committed.read_text(encoding="utf-8")
    assert text.startswith("<!--\nGenerated by acp-codegen")
    assert '## <a id="session-updates"></a>Session updates' in text


# ------------------------------------------------------------------ Markdown helpers


def test_prose_keeps_code_spans_and_escapes_the_rest() -> None:
    assert prose("Key is `messageId`.") == "Key is `messageId`."
    assert prose("# not a heading") == r"\# not a heading"
    assert prose("1. not a list") == r"1\. not a list"
    assert prose("a | b", cell=True) == r"a \| b"
    assert prose("`a|b`", cell=True) == r"`a\|b`"
    assert prose("<b>x</b>\nnext") == r"\<b\>x\</b\> next"
    assert prose("stray ` tick") == r"stray \` tick"
    assert prose(None) == ""


def test_code_spans_survive_backticks_and_control_characters() -> None:
    assert code("a``b") == "```a``b```"
    assert code("`x") == "`` `x ``"
    assert code("a\x00\u202eb") == r"`a\u0000\u202eb`"
    assert code("") == "` `"


@given(st.text())
def test_visible_shows_every_hidden_character_as_an_escape(text: str) -> None:
    # The definition, a character at a time (visible() skips it for printable ASCII).
    hidden = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")
    line = re.sub(r"\s+", " ", text).strip()
    expected = "".join(
        (rf"\u{ord(c):04x}" if ord(c) <= 0xFFFF else rf"\U{ord(c):08x}")
        if unicodedata.category(c) in hidden
        else c
        for c in line
    )
    assert visible(text) == expected


def test_anchors_are_stable_and_unique() -> None:
    anchors = Anchors()
    first = anchors.get("method", "session/prompt", "request")
    second = anchors.get("method", "session/prompt", "notification")
    assert (first, second) == ("method-session-prompt", "method-session-prompt-2")
    assert anchors.get("method", "session/prompt", "request") == first
    assert anchors.get("type", "!!!") == "type-x"
    assert len(anchors.get("type", "Z" * 500)) <= len("type-") + 60


# ------------------------------------------------------------------ hostile text


def _structure(tokens: list[Token]) -> list[tuple[str, str, int]]:
    """What the document is made of, without its text: block tokens and the inline tokens
    that are not plain text or code."""
    out = []
    for token in tokens:
        if token.type == "inline":
            out += [
                (c.type, c.tag, c.nesting)
                for c in token.children or []
                if c.type not in ("text", "code_inline", "softbreak")
            ]
        else:
            out.append((token.type, token.tag, token.nesting))
    return out


def _all_text(tokens: list[Token]) -> str:
    return " ".join(
        c.content
        for t in tokens
        if t.type == "inline"
        for c in t.children or []
        if c.type in ("text", "code_inline")
    )


@pytest.fixture(scope="module")
def plain_and_hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    root = tmp_path_factory.mktemp("hostile-reference")
    pages = []
    hostile_text = HOSTILE[:300] + " " + MARKDOWN_HOSTILE
    for label, text, method in (
        ("plain", "plain words", "session/rename"),
        ("hostile", hostile_text, f"session/rename{hostile_text}"),
    ):
        path = root / f"{label}.json"
        path.write_text(json.dumps(_schema(text, method)), encoding="utf-8")
        pages.append(render(path, "ref")["ref/PROTOCOL.md"].decode("utf-8"))
    return pages[0], pages[1]


def test_hostile_text_does_not_change_the_document_structure(
    plain_and_hostile: tuple[str, str],
) -> None:
    plain, hostile = plain_and_hostile
    parser = _parser()
    assert _structure(parser.parse(hostile)) == _structure(parser.parse(plain))


def test_hostile_text_is_shown_as_text(plain_and_hostile: tuple[str, str]) -> None:
    _, hostile = plain_and_hostile
    parser = _parser()
    shown = _all_text(parser.parse(hostile))
    for piece in (
        'os.system("touch PWNED")',
        "<script>alert(1)</script>",
        "[link](http://example.invalid)",
        "# heading",
        "~~gone~~",
        "&amp;",
        "code|span",
        "\\u202e",  # a bidi override is shown, not obeyed
    ):
        assert piece in shown, piece
    html = parser.render(hostile)
    assert "<script" not in html and "<img" not in html
    assert html.count("<h1>") == 1
    assert "\x00" not in hostile and "\u202e" not in hostile


# ------------------------------------------------------------------ other inputs


# Upstream's inputs get a reference too: tests/test_upstream_inputs.py checks it in the packages
# it generates from every upstream schema once per run.


def test_the_three_state_fixture_lists_its_method_and_fields() -> None:
    # A schema without methods is refused now (it is not ACP), so the fixture has one.
    files = render(FIXTURE_SCHEMAS / "three_state.json", "pkg")
    text = files["pkg/PROTOCOL.md"].decode("utf-8")
    assert "This schema defines no methods." not in text and "`item/patch`" in text
    assert "| `title` | `str \\| None` | optional, three-state |" in text


# ------------------------------------------------------------------ written like any file


def test_check_sees_an_edit_and_generate_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["--schema", str(FIXTURE_SCHEMAS / "merge_annotation.json"), "--out", "out"]
    args += ["--package", "pkg"]
    assert main(["generate", *args]) == 0
    reference = tmp_path / "out" / "pkg" / "PROTOCOL.md"
    before = reference.stat()
    assert main(["generate", *args]) == 0  # nothing to do: the file is not rewritten
    after = reference.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    reference.write_text(reference.read_text(encoding="utf-8") + "my note\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["check", *args]) == 1
    assert "PROTOCOL.md" in capsys.readouterr().out
    assert main(["generate", *args]) == 1  # an edited generated file is the user's now
    assert reference.read_text(encoding="utf-8").endswith("my note\n")


def test_presence_follows_the_schema_not_python_defaults(tmp_path: Path) -> None:
    """A tag has a Python default yet is required on the wire; an optional constant is not."""
    doc = json.loads((FIXTURE_SCHEMAS / "request.json").read_text(encoding="utf-8"))
    props = doc["$defs"]["RenameSessionRequest"]["properties"]
    props["fixed"] = {"type": "string", "const": "c", "description": "An optional constant."}
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    text = render(path, "pkg")["pkg/PROTOCOL.md"].decode("utf-8")
    rows = _field_rows(_section(text, "type-renamesessionrequest"))
    assert rows["fixed"][1] == "optional"
    assert rows["sessionId"][1] == "required"
