"""SessionState under near-valid and arbitrary updates (hypothesis).

- Valid updates, unknown tags and updates broken on purpose, interleaved: every broken one is
  rejected with MalformedUpdateError and changes nothing, and the state equals the reference
  model fed only the rest.
- Arbitrary JSON objects carrying a known tag, against the generated SessionState (which also
  validates with the schema's models): accepted, or rejected without a change; nothing else.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from acp_codegen.runtime.state.session_state import SessionState
from acp_codegen.runtime.wire.errors import MalformedUpdateError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .json_text import json_text
from .rules import RULES
from .test_state_properties import (
    CHUNK_TAGS,
    MESSAGE_TAGS,
    ReferenceModel,
    message_updates,
    other_updates,
    terminal_updates,
    tool_updates,
)

KEYS = {"messageId", "toolCallId", "terminalId"}
NOT_A_STRING: st.SearchStrategy[Any] = st.one_of(
    st.integers(), st.none(), st.lists(st.integers(), max_size=1), st.just({})
)
json_values = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), json_text(max_size=4)
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(json_text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
valid = st.one_of(message_updates(), tool_updates(), terminal_updates(), other_updates())


@st.composite
def broken(draw: st.DrawFn) -> dict[str, Any]:
    """A valid update with one thing its merge rule relies on broken."""
    update: dict[str, Any] = copy.deepcopy(
        draw(st.one_of(message_updates(), tool_updates(), terminal_updates()))
    )
    tag = update["sessionUpdate"]
    key = next(k for k in KEYS if k in update)
    choices = ["tag type", "key type", "key missing"]
    if tag in CHUNK_TAGS or tag == "tool_call_content_chunk":
        choices.append("chunk missing")
    if tag in MESSAGE_TAGS or tag == "tool_call_update":
        choices.append("list type")
    if tag == "terminal_output_chunk":
        choices.append("bad base64")
    how = draw(st.sampled_from(choices))
    if how == "tag type":
        update["sessionUpdate"] = draw(NOT_A_STRING)
    elif how == "key type":
        update[key] = draw(NOT_A_STRING)
    elif how == "key missing":
        del update[key]
    elif how == "chunk missing":
        update.pop("content", None)
    elif how == "list type":
        update["content"] = draw(st.one_of(st.integers(), json_text(max_size=2), st.just({})))
    else:
        update["data"] = draw(st.sampled_from(["***", "a", 5, None]))
    return update


unknown_tags = json_text(min_size=1, max_size=6).filter(lambda t: t not in RULES)
unknown = st.builds(
    lambda tag, rest: {**rest, "sessionUpdate": tag},
    unknown_tags,
    st.dictionaries(json_text(max_size=4), json_values, max_size=3),
)
steps = st.one_of(
    valid.map(lambda u: ("ok", u)),
    unknown.map(lambda u: ("ok", u)),
    broken().map(lambda u: ("bad", u)),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(steps, max_size=30))
def test_broken_updates_are_rejected_whole_and_the_rest_match_the_reference(
    sequence: list[tuple[str, dict[str, Any]]],
) -> None:
    state: SessionState[Any] = SessionState(RULES)
    reference = ReferenceModel()
    for verdict, update in sequence:
        if verdict == "ok":
            state.apply(update)
            reference.apply(update)
            continue
        before = state.snapshot()
        with pytest.raises(MalformedUpdateError):
            state.apply(update)
        assert state.snapshot() == before
    assert state.snapshot() == reference.snapshot()


@st.composite
def arbitrary(draw: st.DrawFn) -> dict[str, Any]:
    """A JSON object with a known (or unknown) tag and whatever else, often near a real one."""
    tag = draw(st.one_of(st.sampled_from(sorted(RULES)), unknown_tags))
    base: dict[str, Any] = draw(st.one_of(valid, st.just({})))
    fields = draw(
        st.dictionaries(
            st.sampled_from([*KEYS, "content", "data", "plan", "state", "stopReason", "_meta"]),
            json_values,
            max_size=4,
        )
    )
    return {**base, **fields, "sessionUpdate": tag}


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(arbitrary(), max_size=12))
def test_generated_state_accepts_or_rejects_without_a_change(
    canonical: Any, sequence: list[dict[str, Any]]
) -> None:
    state = canonical.module.SessionState()
    rejected = canonical.submodule("_runtime.wire.errors").MalformedUpdateError
    known = canonical.submodule("merge_rules").MERGE_RULES
    for update in sequence:
        before = state.snapshot()
        try:
            state.apply(update)
        except rejected:
            assert state.snapshot() == before
        else:
            if update["sessionUpdate"] not in known:
                assert state.snapshot()["unknown"][-1] == update
