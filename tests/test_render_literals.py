"""The `py` filter writes literals as black leaves them, so fewer modules need a second pass."""

from __future__ import annotations

import pytest
from acp_codegen.emit.render import format_python, py_literal


@pytest.mark.parametrize(
    "value",
    [
        "plain",
        "it's",
        'say "hi"',
        "both ' and \"",
        "tab\there",
        "back\\slash",
        3,
        ["a"],
        ("a",),
        (("x", "/y"),),
    ],
)
def test_py_literals_are_python_and_what_black_would_write(value: object) -> None:
    line = f"x = {py_literal(value)}\n"
    assert eval(py_literal(value)) == value
    if isinstance(value, (tuple, list)):
        assert format_python(line) == line
    if isinstance(value, str) and not ("'" in value and '"' in value):  # both: black's to pick
        assert format_python(line) == line
