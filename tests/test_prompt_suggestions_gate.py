"""The capability gate of `prompt_suggestions_update` (unstable, upstream after 2.4.0): held
back, on both versions, from a client that did not advertise `session.promptSuggestions`; and
never kept for replay (a live offer, not history)."""

from __future__ import annotations

import pytest
from acp_codegen.runtime.core.client_gates import PROMPT_SUGGESTIONS, ClientGates
from acp_codegen.runtime.state.history import live_tags
from acp_codegen.runtime.wire.tables import MergeRule

TAG = "prompt_suggestions_update"


@pytest.mark.parametrize("version", [1, 2])
def test_a_client_without_the_capability_is_sent_no_suggestions(version: int) -> None:
    closed = ClientGates(version, {"session": {}})
    assert closed.holds_back(TAG) is PROMPT_SUGGESTIONS
    assert not closed.allows(PROMPT_SUGGESTIONS)
    opened = ClientGates(version, {"session": {"promptSuggestions": {}}})
    assert opened.holds_back(TAG) is None and opened.allows(PROMPT_SUGGESTIONS)


def test_suggestions_are_never_kept_for_replay() -> None:
    rule = MergeRule(tag=TAG, entity="promptSuggestions", op="replace", source="/suggestions")
    assert TAG in live_tags({TAG: rule})
