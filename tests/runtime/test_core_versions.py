"""The core's version rules and the client's view of a session, without an event loop."""

from __future__ import annotations

import ast
from pathlib import Path

import acp_codegen.runtime.core.client_view as client_view
import acp_codegen.runtime.core.versions as versions
import pytest
from acp_codegen.runtime.core.client_view import SessionView
from acp_codegen.runtime.core.versions import (
    UNSUPPORTED_PROTOCOL_VERSION,
    check_initialized,
    initialize_version,
    negotiate,
    routed_version,
)
from acp_codegen.runtime.wire.errors import ErrorCode, RpcError
from hypothesis import given
from hypothesis import strategies as st


def test_neither_this_test_nor_these_core_modules_import_asyncio() -> None:
    for path in (__file__, versions.__file__, client_view.__file__):
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
        names = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert not [name for name in names if name.partition(".")[0] == "asyncio"], path


@given(
    st.integers(min_value=0, max_value=65535),
    st.lists(st.integers(min_value=0, max_value=70), min_size=1, max_size=5, unique=True),
)
def test_the_version_served_is_the_highest_at_or_below_the_one_asked_for(
    requested: int, supported: list[int]
) -> None:
    at_or_below = [version for version in supported if version <= requested]
    if at_or_below:
        assert negotiate({"protocolVersion": requested}, supported) == max(at_or_below)
        return
    with pytest.raises(RpcError) as refused:
        negotiate({"protocolVersion": requested}, supported)
    assert refused.value.code == UNSUPPORTED_PROTOCOL_VERSION
    assert refused.value.data == {"requested": requested, "supported": sorted(supported)}


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"protocolVersion": True},
        {"protocolVersion": -1},
        {"protocolVersion": 65536},
        {"protocolVersion": "2"},
        [],
    ],
)
def test_a_version_that_is_not_one_is_invalid_params(params: object) -> None:
    with pytest.raises(RpcError) as refused:
        negotiate(params, [1, 2])
    assert refused.value.code == ErrorCode.INVALID_PARAMS


def test_before_initialize_a_session_method_is_an_invalid_request() -> None:
    with pytest.raises(RpcError) as refused:
        check_initialized(False)
    assert refused.value.code == ErrorCode.INVALID_REQUEST
    assert refused.value.data == {"details": "initialize must come first"}
    check_initialized(True)  # once initialized: nothing to refuse


def test_messages_go_to_the_default_version_until_one_is_settled() -> None:
    assert routed_version(None, 2) == 2
    assert routed_version(1, 2) == 1


def test_an_initialize_goes_to_the_version_it_settles_on_if_that_one_is_served() -> None:
    assert initialize_version(None, 2, 1, {1, 2}) == 1
    assert initialize_version(None, 2, 3, {1, 2}) == 2  # not served here: the default's
    assert initialize_version(None, 2, None, {1, 2}) == 2  # this side does not negotiate
    assert initialize_version(2, 2, 1, {1, 2}) == 2  # settled already: a second initialize


def test_a_taken_over_session_refuses_prompts_until_reopened() -> None:
    view = SessionView()
    assert view.prompt_refusal("s") is None and not view.closed
    view.was_taken_over()
    assert view.closed and view.taken_over
    refusal = view.prompt_refusal("s")
    assert refusal is not None and "took over" in refusal
    view.reopened()
    assert not view.closed and view.prompt_refusal("s") is None


def test_closing_refuses_nothing_itself_but_marks_the_session_closed() -> None:
    view = SessionView()
    view.closed_by_us()
    assert view.closed and not view.taken_over


def test_a_turn_ended_since_a_point_only_after_an_idle_report() -> None:
    view = SessionView()
    seen = view.turns_ended
    assert not view.ended_since(seen)
    view.turn_ended()
    assert view.ended_since(seen)
    assert not view.ended_since(view.turns_ended)


def test_a_session_closed_here_refuses_prompts_until_set_up_again() -> None:
    view = SessionView()
    view.closed_by_us()
    refusal = view.prompt_refusal("s")
    assert refusal is not None and "which is closed" in refusal and "took over" not in refusal
    view.reopened()
    assert view.prompt_refusal("s") is None
