"""The agent session's history compacts runs of chunks that start a message into that whole
message, and replaying it still gives the client the same state as everything that was sent."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from acp_codegen.runtime.agent.agent_session import AgentSession
from acp_codegen.runtime.state.history import ChunkRun, HistoryRecorder, chunk_runs, live_tags
from acp_codegen.runtime.state.session_state import SessionState
from acp_codegen.runtime.wire.line_framing import encode_json
from acp_codegen.runtime.wire.tables import MergeRule
from hypothesis import given, settings
from hypothesis import strategies as st

from .json_text import json_text
from .rules import RULES


def chunk(tag: str, message_id: str, text: str, **extra: Any) -> dict[str, Any]:
    return {
        "sessionUpdate": tag,
        "messageId": message_id,
        "content": {"type": "text", "text": text},
        **extra,
    }


def fold(updates: list[dict[str, Any]]) -> str:
    state: SessionState[Any] = SessionState(RULES)
    for update in updates:
        state.apply(update)
    return json.dumps(state.snapshot(), sort_keys=True, default=repr)


def recorded(updates: list[dict[str, Any]]) -> list[Any]:
    history: list[Any] = []
    recorder = HistoryRecorder(chunk_runs(RULES))
    for update in updates:
        recorder.record(history, update)
    return history


message_ids = st.sampled_from(["m1", "m2", "m3"])
updates = st.one_of(
    st.builds(
        chunk,
        st.sampled_from(["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]),
        message_ids,
        json_text(max_size=3),
    ),
    st.builds(
        lambda m, t: chunk("agent_message_chunk", m, t, _meta={"k": 1}),
        message_ids,
        json_text(max_size=3),
    ),
    st.builds(
        lambda tag, m, t: {
            "sessionUpdate": tag,
            "messageId": m,
            "content": [{"type": "text", "text": t}],
        },
        st.sampled_from(["agent_message", "agent_thought", "user_message"]),
        message_ids,
        json_text(max_size=3),
    ),
    st.builds(
        lambda m: {"sessionUpdate": "agent_message", "messageId": m, "_meta": {"x": m}}, message_ids
    ),
    st.builds(
        lambda c: {"sessionUpdate": "tool_call_update", "toolCallId": c, "title": c},
        st.sampled_from(["c1", "c2"]),
    ),
    st.builds(
        lambda c, t: {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": c,
            "content": {"type": "content", "content": {"type": "text", "text": t}},
        },
        st.sampled_from(["c1", "c2"]),
        json_text(max_size=3),
    ),
    st.builds(
        lambda term, data: {
            "sessionUpdate": "terminal_output_chunk",
            "terminalId": term,
            "data": data,
        },
        st.sampled_from(["t1", "t2"]),
        st.sampled_from(["aGk=", "dGhlcmU="]),
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(updates, max_size=30))
def test_replaying_the_history_gives_the_same_state_as_what_was_sent(
    sent: list[dict[str, Any]],
) -> None:
    assert fold(recorded(sent)) == fold(sent)


def test_a_streamed_message_is_one_entry() -> None:
    sent = [chunk("agent_message_chunk", "m", f"t{i} ") for i in range(10_000)]
    history = recorded(sent)
    assert history == [
        {
            "sessionUpdate": "agent_message",
            "messageId": "m",
            "content": [u["content"] for u in sent],
        }
    ]
    assert fold(history) == fold(sent)


def test_chunks_of_a_message_already_in_the_history_are_kept_as_chunks() -> None:
    whole = {
        "sessionUpdate": "agent_message",
        "messageId": "m",
        "content": [{"type": "text", "text": "a"}],
    }
    later = [chunk("agent_message_chunk", "m", "b"), chunk("agent_message_chunk", "m", "c")]
    interrupted = [
        chunk("agent_message_chunk", "n", "x"),
        whole,
        chunk("agent_message_chunk", "n", "y"),
    ]
    assert recorded([whole, *later]) == [whole, *later]
    assert recorded(interrupted)[-1] == interrupted[-1]  # n was seen: the later chunk stays one


def test_a_chunk_with_its_own_members_is_kept_as_it_came() -> None:
    sent = [chunk("agent_message_chunk", "m", "a", _meta={"k": 1})]
    assert recorded(sent) == sent


def test_a_history_the_author_replaced_is_taken_as_it_is() -> None:
    recorder = HistoryRecorder(chunk_runs(RULES))
    history: list[Any] = []
    recorder.record(history, chunk("agent_message_chunk", "m", "a"))
    restored = [{"sessionUpdate": "agent_message", "messageId": "old", "content": []}]
    recorder.record(restored, chunk("agent_message_chunk", "old", "b"))  # e.g. load_session
    assert restored[-1] == chunk("agent_message_chunk", "old", "b")
    history.append({"sessionUpdate": "user_message", "messageId": "m", "content": []})
    recorder.record(history, chunk("agent_message_chunk", "m", "c"))  # changed behind its back
    assert history[-1] == chunk("agent_message_chunk", "m", "c")


def test_which_chunks_fold_comes_from_the_merge_rules() -> None:
    """Append and upsert rules on one entity, key and role pair up; base64 appends do not."""
    assert chunk_runs(RULES) == {
        "agent_message_chunk": ChunkRun("agent_message", "messageId", "content", "content"),
        "agent_thought_chunk": ChunkRun("agent_thought", "messageId", "content", "content"),
        "user_message_chunk": ChunkRun("user_message", "messageId", "content", "content"),
        "session_message_chunk": ChunkRun("session_message", "messageId", "content", "content"),
        "tool_call_content_chunk": ChunkRun("tool_call_update", "toolCallId", "content", "content"),
        # paired too; its whole form needs a `status`, so a session's check keeps them as sent
        "compaction_summary_chunk": ChunkRun(
            "compaction_update", "compactionId", "content", "summary"
        ),
    }
    renamed = {
        "piece": MergeRule(
            tag="piece", entity="message", op="append", key="/id", field="parts", role="agent"
        ),
        "whole": MergeRule(tag="whole", entity="message", op="upsert", key="/id", role="agent"),
        "other_role": MergeRule(tag="other_role", entity="message", op="upsert", key="/id"),
    }
    assert chunk_runs(renamed) == {"piece": ChunkRun("whole", "id", "parts", "parts")}
    history: list[Any] = []
    recorder = HistoryRecorder(chunk_runs(renamed))
    for text in "ab":
        recorder.record(history, {"sessionUpdate": "piece", "id": "1", "parts": {"t": text}})
    assert history == [{"sessionUpdate": "whole", "id": "1", "parts": [{"t": "a"}, {"t": "b"}]}]


def test_without_rules_or_when_the_whole_form_is_refused_chunks_are_kept() -> None:
    sent = [chunk("agent_message_chunk", "m", "a"), chunk("agent_message_chunk", "m", "b")]
    for recorder in (
        HistoryRecorder(),
        HistoryRecorder(chunk_runs(RULES), check=lambda whole: False),
    ):
        history: list[Any] = []
        for update in sent:
            recorder.record(history, update)
        assert history == sent
    checked: list[dict[str, Any]] = []

    def accept(whole: dict[str, Any]) -> bool:
        checked.append(whole)
        return True

    history = []
    recorder = HistoryRecorder(chunk_runs(RULES), check=accept)
    for update in sent:
        recorder.record(history, update)
    assert len(history) == 1 and len(checked) == 1  # one check per run, not per chunk


def test_notices_are_live_events_never_kept_for_replay() -> None:
    """Upstream: a notice is not session history. The log entity's tags are left out of the
    history the agent replays; everything around them is kept as sent."""
    assert live_tags(RULES) == frozenset({"notice"})
    recorder = HistoryRecorder(chunk_runs(RULES), live=live_tags(RULES))
    history: list[Any] = []
    notice = {"sessionUpdate": "notice", "severity": "info", "title": "rate limited"}
    whole = {"sessionUpdate": "agent_message", "messageId": "m", "content": []}
    for update in (notice, whole, notice):
        recorder.record(history, update)
    assert history == [whole]
    # the client's own state keeps the notices it saw live
    state: SessionState[Any] = SessionState(RULES)
    state.apply(notice)
    assert state.snapshot()["notices"] == [{"severity": "info", "title": "rate limited"}]


def size_of(history: list[Any]) -> int:
    return sum(len(encode_json(entry)) for entry in history)


def test_the_history_stays_within_its_limit_by_dropping_the_oldest_entries() -> None:
    limit = 20_000
    recorder = HistoryRecorder(chunk_runs(RULES), limit=limit)
    history: list[Any] = []
    sent = [chunk("agent_message_chunk", f"m{i}", "x" * 500) for i in range(200)]
    for update in sent:
        recorder.record(history, update)
        assert size_of(history) <= limit
    kept = [entry["messageId"] for entry in history]
    assert kept == [f"m{i}" for i in range(200 - len(kept), 200)]  # the newest, in order
    assert recorder.dropped == 200 - len(kept) > 0


def test_one_message_streamed_past_the_limit_stays_bounded_and_keeps_its_latest_chunks() -> None:
    limit = 50_000
    recorder = HistoryRecorder(chunk_runs(RULES), limit=limit)
    history: list[Any] = []
    for i in range(5_000):  # about 2.5 MB of chunks of one message
        recorder.record(history, chunk("agent_message_chunk", "m", f"{i:05d}" + "y" * 495))
        assert size_of(history) <= limit
    assert history[-1]["content"]["text"].startswith("04999")
    texts = [entry["content"]["text"][:5] for entry in history]
    assert texts == sorted(texts)


def test_without_a_limit_everything_is_kept() -> None:
    recorder = HistoryRecorder(chunk_runs(RULES), limit=None)
    history: list[Any] = []
    for i in range(100):
        recorder.record(history, chunk("agent_message_chunk", f"m{i}", "z" * 1000))
    assert len(history) == 100 and recorder.dropped == 0


class Quiet:
    """A peer that takes every notification."""

    async def request(self, method: str, params: Any) -> Any:
        raise AssertionError(f"no request expected, got {method}")

    async def notify(self, method: str, params: Any) -> None:
        return None


def test_a_session_refuses_a_negative_limit_and_bounds_its_history_from_the_first_update() -> None:
    """The session makes its recorder when it first sends (most sessions send nothing): the
    limit is still checked when the session is made, and the first update is counted."""
    with pytest.raises(ValueError, match="at least 0"):
        AgentSession("s", Quiet(), {}, {}, history_limit=-1)
    session = AgentSession("s", Quiet(), {}, {}, chunk_runs=chunk_runs(RULES), history_limit=1200)
    assert session.history_dropped == 0 and session.history == []

    async def send() -> None:
        for i in range(3):
            await session.send_update(chunk("agent_message_chunk", f"m{i}", "x" * 500))

    asyncio.run(send())
    assert [entry["messageId"] for entry in session.history] == ["m1", "m2"]
    assert session.history_dropped == 1
