"""Every module rendered from our templates is already black's layout, so black takes one pass
over it instead of two (a full generate's time, not its bytes: black still formats each one).

models.py is datamodel-code-generator's output and is not expected to be; nor are the small
feature fixtures' degenerate modules (empty tables), which black tidies in no time."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp_codegen.commands.pipeline import load_protocol
from acp_codegen.emit.black_layout import call, from_import, union_alias
from acp_codegen.emit.dcg import generate_models
from acp_codegen.emit.render import Target, format_python, header, python_pages
from conftest import REPO, UPSTREAM_HISTORY

SCHEMAS = [
    REPO / "schema" / "acp.schema.json",
    *UPSTREAM_HISTORY,
]


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_rendered_modules_are_black_stable(schema: Path) -> None:
    protocol = load_protocol(schema)
    target = Target("bindings", "acp-codegen generate")
    top = header(protocol, target)
    models = generate_models(protocol.model_schema, protocol.model_template_data, top)
    pages = python_pages(protocol, target, top, models)
    unstable = [name for name, page in pages.items() if format_python(page) != page]
    assert unstable == []


@pytest.mark.parametrize("width", [5, 25, 45, 80, 120])
def test_the_layout_helpers_write_what_black_writes(width: int) -> None:
    """Each helper on both sides of every line-length threshold it decides by."""
    names = [f"n{i}_{'x' * (width // 3)}" for i in range(3)]
    pieces = [
        call("", "value = some.function", names),
        call("", "def f", ["self", "*", f"p: {names[0]}"], f" -> {names[1]}:") + "\n    pass",
        "d = {\n" + call("    ", '"key": ', [f'"{n}": {n}' for n in names], ",", "{}") + "\n}",
        "d = {\n"
        + call("    ", f'"{names[2]}{names[2]}": ', [f'"{n}": {n}' for n in names[:2]], ",", "{}")
        + "\n}",
        from_import("", "package.module", names),
        union_alias("Alias: TypeAlias", " | ".join([*names, f"list[{names[0]}]"])),
    ]
    for piece in pieces:
        text = piece + "\n"
        assert format_python(text) == text, text
