"""The generator's fast path, a call run ahead in a forked child (`emit/ahead.py`), against its
reference, the same call in process (`FORKS = False`), on the same random calls: the same
answer, or the same error, and no child left behind."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial

import pytest
from acp_codegen.emit import ahead as ahead_module
from acp_codegen.emit.ahead import ahead
from hypothesis import given, settings
from hypothesis import strategies as st

# Text of every code point, lone surrogates included (pickle carries them; UTF-8 would not).
texts = st.text(st.characters(codec=None, exclude_categories=()), max_size=40)
answers = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), texts),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(texts, inner, max_size=4)),
    max_leaves=12,
)


def _compute(answer: object, fails: bool, padding: int) -> tuple[object, str]:
    """A call: its answer, padded past a pipe's buffer when asked; or an error."""
    if fails:
        raise ValueError(f"cannot compute {answer!r}")
    return answer, "x" * padding


@contextmanager
def _in_process() -> Iterator[None]:
    ahead_module.FORKS = False
    try:
        yield
    finally:
        ahead_module.FORKS = True


def _outcome(call: Callable[[], tuple[object, str]]) -> object:
    try:
        with ahead(call) as pending:
            return ("answer", pending.result())
    except ValueError as error:
        return ("error", str(error))


def _no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


@pytest.mark.skipif(not ahead_module.can_fork(), reason="no fork or no spare core")
@settings(max_examples=30, deadline=None)
@given(answers, st.booleans(), st.sampled_from([0, 1 << 17]))
def test_a_forked_call_answers_what_the_call_in_process_answers(
    answer: object, fails: bool, padding: int
) -> None:
    call = partial(_compute, answer, fails, padding)
    forked = _outcome(call)
    with _in_process():
        assert not ahead_module.can_fork()
        in_process = _outcome(call)
    assert repr(forked) == repr(in_process)  # repr: -0.0 and 0.0 differ, NaN is left out
    assert _no_children_left()
