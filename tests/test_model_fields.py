"""The typed surface reads the models' annotations back (emit/model_fields.py) from one parse
shared by every caller (`read_models` is cached): turning an annotation into the facade's text
must build new nodes, never change the shared ones."""

from __future__ import annotations

import ast

from acp_codegen.emit.model_fields import read_models, rebuilt, type_source
from conftest import REPO


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
