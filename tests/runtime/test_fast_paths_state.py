"""The chunk fast path against its reference, on the same random streams.

`SessionState.fold_held` (a chunk of a record already held, appended) against
`SessionState.apply(update, owned=True)`; and a client's `session/update` handler with its
chunks appended by the state (`ClientSide.folds_held`) against one whose every update takes
`ClientSession.apply`. Both must end in the same state after every step, refuse the same updates
and, on the client, close, take over and end turns alike."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

from acp_codegen.runtime.client.client_session import ClientSession
from acp_codegen.runtime.client.client_side import ClientSide
from acp_codegen.runtime.rpc.connection import Connection
from acp_codegen.runtime.state.session_state import SessionState
from acp_codegen.runtime.wire.errors import MalformedUpdateError
from hypothesis import event, given, settings
from hypothesis import strategies as st

from .rules import RULES
from .streams import RecordingSink
from .test_fuzz_state import arbitrary, broken, unknown, valid

updates = st.one_of(valid, valid, unknown, broken(), arbitrary())


def _fold(state: SessionState[Any], update: Any, fast: bool) -> str:
    """What folding `update` did: "fast", "applied" or "refused"."""
    if fast and state.fold_held(update):
        return "fast"
    try:
        state.apply(update, owned=True)
    except MalformedUpdateError:
        return "refused"
    return "applied"


@settings(max_examples=200, deadline=None)
@given(st.lists(updates, max_size=30))
def test_appended_chunks_fold_to_the_state_apply_folds_them_to(stream: list[Any]) -> None:
    fast: SessionState[Any] = SessionState(RULES)
    reference: SessionState[Any] = SessionState(RULES)
    for update in stream:
        done = _fold(fast, copy.deepcopy(update), True)
        expected = _fold(reference, copy.deepcopy(update), False)
        event(f"fast path taken: {done == 'fast'}")  # (hypothesis statistics: it is, often)
        assert (done if done != "fast" else "applied") == expected
        assert fast.snapshot() == reference.snapshot()
    fast.mark_cancelled()  # the tool calls of the current work, kept alike by both
    reference.mark_cancelled()
    assert fast.snapshot() == reference.snapshot()


def test_a_state_that_validates_or_reads_items_under_its_tag_takes_no_chunk() -> None:
    checked: SessionState[Any] = SessionState(RULES, validate=lambda update: None)
    checked.apply({"sessionUpdate": "agent_message", "messageId": "m", "content": []})
    chunk = {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": "x"}
    assert not checked.fold_held(dict(chunk))  # each update is validated: `apply`'s
    # The tag where the item is read from: only `apply` reads it right (and refuses it).
    under_tag: SessionState[Any] = SessionState(RULES, tag_field="content")
    under_tag.apply({"content": "agent_message", "messageId": "m"})
    assert not under_tag.fold_held({"content": "agent_message_chunk", "messageId": "m"})
    plain: SessionState[Any] = SessionState(RULES)
    plain.apply({"sessionUpdate": "agent_message", "messageId": "m", "content": []})
    assert plain.fold_held(dict(chunk))
    assert plain.snapshot()["messages"][0]["content"] == ["x"]  # a string item, kept as one


# -- the client's handler --------------------------------------------------------------------

SESSIONS = ["s1", "s2", "gone"]
takeover = st.builds(
    lambda: {"sessionUpdate": "notice", "_meta": {"sessionTakenOver": True}, "text": "moved"}
)
client_updates = st.one_of(updates, takeover)
params = st.one_of(
    st.fixed_dictionaries({"sessionId": st.sampled_from(SESSIONS), "update": client_updates}),
    st.fixed_dictionaries({"sessionId": st.sampled_from(SESSIONS)}),  # no update
    st.fixed_dictionaries({"sessionId": st.just(7), "update": client_updates}),
)


def _client(folds_held: bool) -> ClientSide[Any]:
    connection = Connection(asyncio.StreamReader(), RecordingSink())
    client: ClientSide[Any] = ClientSide(connection, info={}, rules=RULES)
    client.folds_held = folds_held
    for session_id in SESSIONS[:2]:
        client.sessions[session_id] = client_session = ClientSession(client, session_id)
        client_session.reopened()
    client.sessions["s2"].closed_by_us()  # updates for it are dropped
    return client


def _seen(client: ClientSide[Any]) -> list[tuple[Any, ...]]:
    return [
        (key, s.snapshot(), s.closed, s.taken_over, s.turns_ended)
        for key, s in sorted(client.sessions.items())
    ]


@settings(max_examples=150, deadline=None)
@given(st.lists(params, max_size=25))
def test_the_client_folds_what_its_reference_folds(stream: list[Any]) -> None:
    async def both() -> None:
        fast, reference = _client(True), _client(False)
        for message in stream:
            kept = fast._update(copy.deepcopy(message))
            assert kept == reference._update(copy.deepcopy(message))
            assert _seen(fast) == _seen(reference)

    asyncio.run(both())
