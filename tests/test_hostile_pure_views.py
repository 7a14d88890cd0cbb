"""The pure readings of what a peer sends, fed anything JSON can carry (lone surrogates, NUL,
ESC, CSI, direction marks, any shape): they answer or decline, never raise, and nothing they
hand a terminal steers it."""

from __future__ import annotations

import re

from acp_codegen.model.diff_view import diff_rows, diff_view
from acp_codegen.runtime.core.client_gates import (
    GATES,
    ClientGates,
    boolean_as_select,
    boolean_from_select,
    option_named,
)
from acp_codegen.runtime.core.client_setup import rebuilds_state, setup_updates
from hypothesis import given
from hypothesis import strategies as st

# What `visible`/`visible_line` escape: C0 (but tab and newline), DEL, C1, direction marks,
# line/paragraph separators, lone surrogates.
STEERING = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    "\ud800-\udfff]"
)
texts = st.text(st.characters(codec=None), max_size=40) | st.sampled_from(
    ["\x1b[2J", "\x9b31m", "\ud800", "\x00", "\u202e", "\r\n", "a\rb", "@@ -1 +1 @@\n-x\n+y\n"]
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=16,
)
# Diff items of both shapes, their members any JSON or text.
v1_items = st.fixed_dictionaries(
    {"type": st.just("diff")},
    optional={"path": json_values, "oldText": json_values | texts, "newText": json_values | texts},
)
v2_items = st.fixed_dictionaries(
    {"type": st.just("diff")},
    optional={
        "changes": json_values
        | st.lists(st.fixed_dictionaries({"operation": texts, "path": texts}), max_size=3),
        "patch": json_values | st.fixed_dictionaries({"format": texts, "text": texts}),
    },
)


@given(item=json_values | v1_items | v2_items)
def test_a_diff_of_anything_is_read_or_declined_and_shows_no_steering(item: object) -> None:
    view = diff_view(item)
    if view is None:
        return
    for row in diff_rows(view):
        assert not STEERING.search(row.text), row
        assert "\n" not in row.text  # one row, one line


@given(answer=json_values, method=texts, params=st.dictionaries(texts, json_values))
def test_any_setup_answer_gives_updates_or_none(
    answer: object, method: str, params: dict[str, object]
) -> None:
    updates = setup_updates((("configOptions", "config_option_update"),), answer)  # type: ignore[arg-type]
    assert all(update["sessionUpdate"] == "config_option_update" for update in updates)
    assert rebuilds_state(method, params) in (True, False)  # type: ignore[arg-type]


@given(version=st.integers(), capabilities=json_values, options=json_values, other=json_values)
def test_any_capabilities_and_options_get_an_answer(
    version: int, capabilities: object, options: object, other: object
) -> None:
    gates = ClientGates(version, capabilities)  # type: ignore[arg-type]
    for gate in GATES:
        assert gates.allows(gate) in (True, False)
    gates.config_options(options)  # type: ignore[arg-type]
    gates.holds_back(other)
    gates.refusal("elicitation/create", other)
    if isinstance(options, list):
        gates.auth_methods(options)
    boolean_as_select(other)  # type: ignore[arg-type]
    option_named(options, other)  # type: ignore[arg-type]
    if isinstance(other, dict):
        boolean_from_select(options, other)  # type: ignore[arg-type]
