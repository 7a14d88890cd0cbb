"""Fixtures of the runtime tests."""

from __future__ import annotations

import pytest

from . import streams


@pytest.fixture(params=["pushed", "pulled"])
def reading_modes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """With `pytestmark = pytest.mark.usefixtures("reading_modes")`, every test of a module runs
    twice: the connection's lines pushed by its transport, and pulled from a StreamReader."""
    monkeypatch.setattr(streams, "PUSHED", request.param == "pushed")
    return str(request.param)
