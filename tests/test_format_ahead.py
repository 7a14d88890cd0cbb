"""Formatting the models module in a forked child: same answer, same errors, no child left."""

from __future__ import annotations

import os

import pytest

from acp_codegen import format_ahead
from acp_codegen.format_ahead import formatted_ahead

needs_fork = pytest.mark.skipif(not format_ahead.can_fork(), reason="no fork or no spare core")


def _tagged(source: str) -> str:
    return f"{os.getpid()}:{source.upper()}"


def _no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


@needs_fork
def test_the_child_formats_and_hands_back_the_text() -> None:
    with formatted_ahead(_tagged, "x = 1\n" * 20000) as result:
        text = result()
    pid, body = text.split(":", 1)
    assert int(pid) != os.getpid()  # it ran in the child
    assert body == "X = 1\n" * 20000  # larger than a pipe's buffer, intact
    assert _no_children_left()


def test_without_a_spare_core_it_formats_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(format_ahead, "_spare_core", lambda: False)
    with formatted_ahead(_tagged, "y") as result:
        assert result() == f"{os.getpid()}:Y"


@needs_fork
def test_a_failure_in_the_child_is_raised_by_the_same_call_in_process() -> None:
    calls: list[int] = []

    def broken(source: str) -> str:
        calls.append(os.getpid())
        raise ValueError(f"cannot format {source!r}")

    with (
        pytest.raises(ValueError, match="cannot format 'z'"),
        formatted_ahead(broken, "z") as result,
    ):
        result()
    assert calls == [os.getpid()]  # the child's call is not seen here; the rerun is
    assert _no_children_left()


@needs_fork
def test_leaving_early_ends_the_child() -> None:
    with pytest.raises(RuntimeError), formatted_ahead(_tagged, "w" * 200_000):
        raise RuntimeError("rendering the rest failed")
    assert _no_children_left()


def test_forked_and_in_process_give_the_same_models_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both ways give the same bytes (the golden tests check the forked path's bytes)."""
    from pathlib import Path

    from acp_codegen.pipeline import load_protocol
    from acp_codegen.render import Target, render_package

    repo = Path(__file__).resolve().parent.parent
    protocol = load_protocol(repo / "schema" / "acp.schema.json", "schema/acp.schema.json")
    target = Target("acp_bindings", "acp-codegen generate")
    monkeypatch.setattr(format_ahead, "_spare_core", lambda: False)
    serial = render_package(protocol, target)["models.py"]
    monkeypatch.undo()
    assert render_package(protocol, target)["models.py"] == serial


@pytest.mark.parametrize(
    "value", ["plain", "it's", 'say "hi"', "both ' and \"", "tab\there", "back\\slash", 3, ["a"]]
)
def test_py_literals_are_what_black_would_write(value: object) -> None:
    """The `py` filter writes strings as black leaves them (so fewer modules need a second pass)."""
    from acp_codegen.render import format_python, py_literal

    line = f"x = {py_literal(value)}\n"
    assert eval(py_literal(value)) == value
    if isinstance(value, str) and not ("'" in value and '"' in value):  # both: black's to pick
        assert format_python(line) == line
