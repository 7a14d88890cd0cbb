"""quiet_gc changes the collector only for its block and leaves a host's choice alone."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from acp_codegen.emit.gc_tuning import quiet_gc


@pytest.fixture
def restored() -> Iterator[None]:
    saved, enabled = gc.get_threshold(), gc.isenabled()
    yield
    gc.set_threshold(*saved)
    gc.enable() if enabled else gc.disable()


def test_tuned_inside_and_put_back_after(restored: None) -> None:
    gc.set_threshold(700, 10, 10)
    assert gc.get_freeze_count() == 0
    with quiet_gc():
        assert gc.get_threshold()[0] > 700
        assert gc.get_freeze_count() > 0  # what was alive on entry is left out of walks
    assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_freeze_count() == 0


def test_put_back_after_an_error(restored: None) -> None:
    gc.set_threshold(700, 10, 10)
    with pytest.raises(RuntimeError), quiet_gc():
        raise RuntimeError("render failed")
    assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_freeze_count() == 0


def test_a_host_freeze_stays(restored: None) -> None:
    gc.freeze()
    frozen = gc.get_freeze_count()
    try:
        with quiet_gc():
            pass
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_a_disabled_collector_is_left_alone(restored: None) -> None:
    gc.disable()
    gc.set_threshold(700, 10, 10)
    with quiet_gc():
        assert gc.get_threshold() == (700, 10, 10)
        assert gc.get_freeze_count() == 0
    assert not gc.isenabled()
