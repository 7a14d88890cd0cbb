"""models.py formatted as two halves joined at a seam gives black's bytes for the whole."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from acp_codegen.emit.halves import halves, joined, seam
from acp_codegen.emit.models_layout import models_layout
from acp_codegen.emit.render import format_python
from conftest import FIXTURE_SCHEMAS, REPO, UPSTREAM_HISTORY, BlackedModels

SCHEMAS = [
    REPO / "schema" / "acp.schema.json",
    *UPSTREAM_HISTORY,
    FIXTURE_SCHEMAS / "tagged_union.json",
]


# Where each schema is cut: the canonical schema at three shares, every other one at one share
# of its own (the shares rotate over the list), so every seam position is still tried on real
# models while each whole module is formatted once and each half once (black dominates here).
SHARES = {0: (0.1, 0.5, 0.9)} | {i: ((0.1, 0.5, 0.9)[i % 3],) for i in range(1, len(SCHEMAS))}


@pytest.mark.parametrize(
    ("schema", "shares"),
    [(schema, SHARES[i]) for i, schema in enumerate(SCHEMAS)],
    ids=[f"{p.parent.name}/{p.name}" for p in SCHEMAS],
)
def test_halves_join_to_the_whole(
    schema: Path, shares: tuple[float, ...], blacked_models: Callable[[Path], BlackedModels]
) -> None:
    models = blacked_models(schema)  # made once per run, shared with test_models_layout.py
    source = models_layout(models.raw)  # as render.py cuts it
    whole = models.whole
    cuts = {seam(source, share) for share in shares} - {None}
    assert cuts, "no seam: the models module would always be formatted in one piece"
    for cut in sorted(c for c in cuts if c is not None):
        first, second = halves(source, cut)
        assert format_python(first) == first  # one pass each: black's first changes nothing
        assert format_python(second) == second
        assert joined(first, second) == whole, f"cut at {cut}"


SMALL = '''"""Module."""
from x import (y)
class A(Base):
    """Only a docstring."""
class B(Base):
    values: list[int] = [1, 2,]
    name: str = 'b'



class C(Base):
    pass
'''


def test_a_small_module_with_docstring_only_and_magic_comma_classes() -> None:
    for share in (0.3, 0.6, 0.95):
        cut = seam(SMALL, share)
        assert cut is not None and SMALL[cut:].startswith("class ")
        first, second = halves(SMALL, cut)
        assert joined(format_python(first), format_python(second)) == format_python(SMALL)


@pytest.mark.parametrize(
    "source",
    [
        "class A:\n    x: int\n# a comment\nclass B:\n    y: int\n",  # a comment at the seam
        "class A:\n    x: int\n@dataclass\nclass B:\n    y: int\n",  # a decorator
        "class A:\n    def f(self): ...\nclass B:\n    y: int\n",  # a stub method before it
        "class A:\n    x: int\n# fmt: off\nclass B:\n    y: int\n",  # a fmt directive
        "x = 1\nclass B:\n    y: int\n",  # not after a class
        "class A:\n    x = '''\nclass B:\n'''\n",  # class text inside a string
    ],
)
def test_no_seam_where_the_argument_does_not_hold(source: str) -> None:
    assert seam(source, 0.5) is None
