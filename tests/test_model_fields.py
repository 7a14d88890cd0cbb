"""Reading field facts back from a generated models module (`emit/model_fields.py`). The parse
is shared by every caller (`read_models` is cached): turning an annotation into the facade's
text must build new nodes, never change the shared ones."""

from __future__ import annotations

import ast

import pytest
from acp_codegen.emit.model_fields import read_models, rebuilt, type_source
from conftest import REPO

SOURCE = """
from __future__ import annotations
from typing import Annotated, Any, Literal
from typing_extensions import TypeAliasType
from pydantic import BaseModel, Field, MISSING

Kind = TypeAliasType("Kind", Annotated[Literal["a"] | Literal["b"] | str, Field(title="Kind")])
Closed = TypeAliasType("Closed", Annotated[Literal["x"] | Literal["y"], Field(title="Closed")])


class Base(BaseModel):
    item_id: Annotated[str, Field(alias="itemId")]
    kind: Annotated[Kind | None | MISSING, Field(description="k")] = MISSING


class Child(Base):
    tag: Annotated[Literal["child"], Field(alias="type")] = "child"
    kind: Annotated[Closed | MISSING, Field()] = MISSING
    items: Annotated[list[Base] | None | MISSING, Field(alias="allItems")] = MISSING
"""


def test_fields_have_wire_names_requiredness_and_types_without_missing() -> None:
    info = read_models(SOURCE)
    fields = {f.wire_name: f for f in info.fields("Child")}
    assert list(fields) == ["itemId", "type", "kind", "allItems"]  # bases first, overrides kept
    assert fields["itemId"].required and not fields["allItems"].required
    assert ast.unparse(fields["kind"].annotation) == "Closed"  # the child's own declaration
    assert ast.unparse(fields["allItems"].annotation) == "list[Base] | None"


def test_open_enums_are_found_with_their_known_values() -> None:
    info = read_models(SOURCE)
    assert info.open_enums == {"Kind": ("a", "b")}


def test_type_source_qualifies_models_and_narrows_open_enums() -> None:
    info = read_models(SOURCE)
    (kind,) = [f for f in info.fields("Base") if f.wire_name == "kind"]
    assert type_source(kind.annotation, info) == "models.Kind | None"
    assert type_source(kind.annotation, info, known_enums="{}Value") == "KindValue | None"


def test_unknown_names_and_classes_are_errors() -> None:
    info = read_models(SOURCE)
    with pytest.raises(ValueError, match="Mystery"):
        type_source(ast.parse("Mystery | None", mode="eval").body, info)
    with pytest.raises(KeyError, match="Nope"):
        info.fields("Nope")


def _renamed(node: ast.AST) -> ast.AST | None:
    if isinstance(node, ast.Name) and node.id == "A":
        return ast.Name(id="Z", ctx=ast.Load())
    return None


def test_rebuilt_replaces_what_swap_answers_and_leaves_the_input_as_it_was() -> None:
    tree = ast.parse("list[A | B] | dict[str, A] | None", mode="eval").body
    before = ast.dump(tree)
    out = rebuilt(tree, _renamed)
    assert ast.unparse(out) == "list[Z | B] | dict[str, Z] | None"
    assert ast.dump(tree) == before
    assert isinstance(out, ast.BinOp) and isinstance(tree, ast.BinOp)
    assert out.right is tree.right  # `None` held no swapped node: shared, not copied


def test_rebuilt_gives_the_node_itself_when_nothing_is_swapped() -> None:
    tree = ast.parse("list[B] | None", mode="eval").body
    assert rebuilt(tree, _renamed) is tree


def test_type_source_leaves_every_shared_annotation_as_it_was() -> None:
    source = (REPO / "generated" / "acp_bindings" / "models.py").read_text(encoding="utf-8")
    info = read_models(source)
    annotations = [f.annotation for fields in info.classes.values() for f in fields]
    annotations += list(info.aliases.values())
    before = [ast.dump(a) for a in annotations]
    texts = [type_source(a, info, known_enums="{}Value") for a in annotations]
    assert [ast.dump(a) for a in annotations] == before
    assert all(ast.parse(text, mode="eval") for text in texts)
    assert any("models." in text for text in texts)
