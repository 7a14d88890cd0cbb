"""A call run ahead in a forked child: the same answer, the same errors, no child left behind;
without a spare core it runs in process before the block, as a plain call would."""

from __future__ import annotations

import os

import pytest
from acp_codegen.emit import ahead as ahead_module
from acp_codegen.emit.ahead import ahead

needs_fork = pytest.mark.skipif(not ahead_module.can_fork(), reason="no fork or no spare core")


def _tagged(text: str) -> tuple[int, str]:
    return os.getpid(), text.upper()


def _no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


@needs_fork
def test_the_child_computes_and_hands_back_the_answer() -> None:
    with ahead(lambda: _tagged("x = 1\n" * 20000)) as pending:
        assert not pending.done
        pid, body = pending.result()
        assert pending.result() == (pid, body)  # asked twice: the same answer, no second run
    assert pid != os.getpid()  # it ran in the child
    assert body == "X = 1\n" * 20000  # larger than a pipe's buffer, intact
    assert _no_children_left()


def test_without_a_spare_core_it_runs_here_before_the_block(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ahead_module, "_spare_core", lambda: False)
    calls: list[str] = []
    with ahead(lambda: calls.append("call") or _tagged("y")) as pending:
        calls.append("block")
        assert pending.done
        assert pending.result() == (os.getpid(), "Y")
    assert calls == ["call", "block"]


@needs_fork
def test_a_failure_in_the_child_is_raised_by_the_same_call_in_process() -> None:
    calls: list[int] = []

    def broken() -> str:
        calls.append(os.getpid())
        raise ValueError("cannot format 'z'")

    with pytest.raises(ValueError, match="cannot format 'z'"), ahead(broken) as pending:
        pending.result()
    assert calls == [os.getpid()]  # the child's call is not seen here; the rerun is
    assert _no_children_left()


@needs_fork
def test_leaving_early_ends_the_child() -> None:
    with pytest.raises(RuntimeError), ahead(lambda: "w" * 200_000):
        raise RuntimeError("rendering the rest failed")
    assert _no_children_left()
