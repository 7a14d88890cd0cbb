"""models.py laid out as black lays it out (emit/models_layout.py): black's first pass leaves it
unchanged, so black stops after one pass, and the bytes are those black writes for
datamodel-code-generator's own text (what a full generate wrote before the layout existed)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from acp_codegen.emit.models_layout import models_layout
from acp_codegen.emit.render import format_python
from conftest import FIXTURE_SCHEMAS, REPO, UPSTREAM_HISTORY, BlackedModels, raw_models
from test_hostile_text import HOSTILE, _schema

SCHEMAS = [
    REPO / "schema" / "acp.schema.json",
    REPO / "schema" / "acp.v1.schema.json",
    *UPSTREAM_HISTORY,
    FIXTURE_SCHEMAS / "tagged_union.json",
]


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_black_leaves_the_layout_unchanged_and_it_is_blacks_output(
    schema: Path, blacked_models: Callable[[Path], BlackedModels]
) -> None:
    models = blacked_models(schema)  # made once per run, shared with test_halves.py
    laid_out = models_layout(models.raw)
    assert laid_out != models.raw
    assert format_python(laid_out) == laid_out  # one pass: black's first changed nothing
    assert laid_out == models.whole


TEXTS = [
    HOSTILE,
    "It's \"quoted\" and 'single' with a backslash \\ and a # hash " + "x" * 60,
    'A """docstring""" inside, then a newline\nfrom here on: Annotated[int, Field()] = 1 ' * 3,
    "d" * 38,  # a field line a character or two either side of the line length
    "d" * 41,
]


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_hostile_text_gets_the_bytes_black_gives_the_raw_module(text: str, tmp_path: Path) -> None:
    """Quotes, triple quotes, backslashes, `#`, newlines and lines that read like code inside
    strings: the layout may only move line breaks, never what a string says."""
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(_schema(text, "session/rename")), encoding="utf-8")
    raw = raw_models(path)
    laid_out = models_layout(raw)
    assert format_python(laid_out) == format_python(raw)


def test_text_inside_a_docstring_is_never_rewritten() -> None:
    code_like = "    name: Annotated[str, Field(description='" + "w" * 90 + "')]"
    source = (
        "from typing import Annotated\n\n\n"
        f'Alias = int\n"""\nfrom the schema\n\n\n{code_like}\n"""\n\n\n'
        f"class A(BaseModel):\n    x: int\n"
    )
    laid_out = models_layout(source)
    assert f"\nfrom the schema\n\n\n{code_like}\n" in laid_out
    assert format_python(laid_out) == format_python(source)


def test_shapes_it_does_not_know_are_left_for_black() -> None:
    line = "    x: Annotated[int, Field(default_factory=lambda: [" + "1, " * 40 + "])] = 1"
    source = f"class A(BaseModel):\n{line}\n"
    laid_out = models_layout(source)
    assert line in laid_out
    assert format_python(laid_out) == format_python(source)


@pytest.mark.parametrize("width", range(94, 112))
def test_fields_either_side_of_every_threshold(width: int) -> None:
    """A field with a string default, one with a name default and one without, each of `width`
    characters on one line: black's split decisions (the value in parentheses, the subscript
    body on a line of its own, one argument a line) all turn on such lengths."""
    pad = "n" * (width - len('    : Annotated[Literal["a"], Field(alias="b")] = "yyyyy"'))
    lines = [
        f'    {pad}: Annotated[Literal["a"], Field(alias="b")] = "yyyyy"',
        f'    {pad}: Annotated[str | None, Field(alias="b", description="c")] = MISSING',
        f'    {pad}: Annotated[str | None, Field(alias="b", description="c" "d")]',
        f'{pad} = TypeAliasType("{pad}", Annotated[str, Field(description="e", title="f")])',
    ]
    source = "class A(BaseModel):\n" + "\n".join(lines[:3]) + "\n\n\n" + lines[3] + "\n"
    laid_out = models_layout(source)
    assert format_python(laid_out) == laid_out
    assert laid_out == format_python(source)


def test_a_hostile_union_tag_key_keeps_its_bytes(tmp_path: Path) -> None:
    """The routing function's parameters are laid out by the alias template: a tag key with
    commas, both quotes and a length past the line keeps black's bytes for the raw module."""
    document = _schema("plain words", "session/rename")
    key = "kind, or 'sort' of \"thing\"" + "k" * 40
    pet = document["$defs"]["Pet"]
    pet["x-union"]["tag"] = key
    for branch in pet["anyOf"]:
        branch["properties"] = {key: branch["properties"]["kind"]}
        branch["required"] = [key]
        if "not" in branch:
            branch["not"] = {"properties": {key: branch["not"]["properties"]["kind"]}}
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    raw = raw_models(path)
    assert "kind, or" in raw
    assert format_python(models_layout(raw)) == format_python(raw)
