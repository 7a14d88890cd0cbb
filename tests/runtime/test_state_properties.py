"""SessionState against an obviously-correct reference model, and its cost by counting."""

from __future__ import annotations

import base64
import copy
from typing import Any

import acp_codegen.runtime.state.frozen as frozen
import acp_codegen.runtime.state.records as records
import acp_codegen.runtime.state.session_state as state_module
import acp_codegen.runtime.wire.jsonvalue as jsonvalue
from acp_codegen.runtime.state.session_state import SessionState
from hypothesis import given, settings
from hypothesis import strategies as st

from .json_text import json_text
from .rules import RULES

MESSAGE_TAGS = {
    "user_message": "user",
    "agent_message": "agent",
    "agent_thought": "thought",
}
CHUNK_TAGS = {
    "user_message_chunk": "user",
    "agent_message_chunk": "agent",
    "agent_thought_chunk": "thought",
}


class ReferenceModel:
    """The merge rules written out per tag, with deep copies everywhere: slow but plain."""

    def __init__(self) -> None:
        self.messages: dict[str, dict[str, Any]] = {}
        self.tools: dict[str, dict[str, Any]] = {}
        self.terminals: dict[str, dict[str, Any]] = {}
        self.plans: dict[str, Any] = {}
        self.compactions: dict[str, dict[str, Any]] = {}
        self.notices: list[dict[str, Any]] = []
        self.slots: dict[str, Any] = {
            "usage": None,
            "availableCommands": None,
            "configOptions": None,
            "sessionInfo": None,
            "promptSuggestions": None,  # unstable: no rule in the committed package, never set
        }
        self.state: str | None = None
        self.stop_reason: str | None = None
        self.unknown: list[Any] = []
        self.work_tools: set[str] = set()  # tool calls reported since the last idle

    def message(self, message_id: str, role: str) -> dict[str, Any]:
        """A messageId reused by another role is a message of its own."""
        first = self.messages.get(message_id)
        key = message_id if first is None or first["role"] == role else f"{role}/{message_id}"
        return self.messages.setdefault(key, {"messageId": message_id, "role": role, "content": []})

    @staticmethod
    def patch(target: dict[str, Any], fields: dict[str, Any]) -> None:
        for name, value in fields.items():
            if value is None:
                target.pop(name, None)
            else:
                target[name] = value

    def apply(self, update: dict[str, Any]) -> None:
        update = copy.deepcopy(update)
        tag = update.pop("sessionUpdate")
        if tag in CHUNK_TAGS:
            message = self.message(update["messageId"], CHUNK_TAGS[tag])
            message["content"].append(update["content"])
        elif tag in MESSAGE_TAGS:
            message_id = update.pop("messageId")
            message = self.message(message_id, MESSAGE_TAGS[tag])
            if "content" in update:
                message["content"] = update.pop("content") or []
            self.patch(message, update)
        elif tag == "tool_call_update":
            call_id = update.pop("toolCallId")
            self.work_tools.add(call_id)
            call = self.tools.setdefault(call_id, {"toolCallId": call_id, "content": []})
            if "content" in update:
                call["content"] = update.pop("content") or []
            self.patch(call, update)
        elif tag == "tool_call_content_chunk":
            call_id = update["toolCallId"]
            self.work_tools.add(call_id)
            call = self.tools.setdefault(call_id, {"toolCallId": call_id, "content": []})
            call["content"].append(update["content"])
        elif tag == "terminal_update":
            terminal_id = update.pop("terminalId")
            term = self.terminals.setdefault(
                terminal_id, {"terminalId": terminal_id, "output": None}
            )
            if "output" in update:
                output = update.pop("output")
                term["output"] = b"" if output is None else base64.b64decode(output["data"])
            self.patch(term, update)
        elif tag == "terminal_output_chunk":
            terminal_id = update["terminalId"]
            term = self.terminals.setdefault(
                terminal_id, {"terminalId": terminal_id, "output": None}
            )
            term["output"] = (term["output"] or b"") + base64.b64decode(update["data"])
        elif tag == "compaction_update":
            compaction_id = update.pop("compactionId")
            record = self.compaction(compaction_id)
            if "summary" in update:
                record["summary"] = update.pop("summary") or []
            self.patch(record, update)
        elif tag == "compaction_summary_chunk":
            self.compaction(update["compactionId"])["summary"].append(update["content"])
        elif tag == "notice":
            self.notices.append(update)
        elif tag == "plan_update":
            self.plans[update["plan"]["planId"]] = update["plan"]
        elif tag == "usage_update":
            self.slots["usage"] = update
        elif tag == "available_commands_update":
            self.slots["availableCommands"] = update["availableCommands"]
        elif tag == "config_option_update":
            self.slots["configOptions"] = update["configOptions"]
        elif tag == "session_info_update":
            self.slots["sessionInfo"] = self.slots["sessionInfo"] or {}
            self.patch(self.slots["sessionInfo"], update)
        elif tag == "state_update":
            self.state = update["state"]
            self.stop_reason = update.get("stopReason") if self.state == "idle" else None
            if self.state == "idle":
                self.work_tools.clear()
        else:
            self.unknown.append({"sessionUpdate": tag, **update})

    def compaction(self, compaction_id: str) -> dict[str, Any]:
        return self.compactions.setdefault(
            compaction_id, {"compactionId": compaction_id, "summary": []}
        )

    def mark_cancelled(self) -> None:
        for call in (self.tools[key] for key in self.work_tools):
            if call.get("status") not in ("completed", "failed", "cancelled"):
                call["status"] = "cancelled"

    def snapshot(self) -> dict[str, Any]:
        terminals = {
            key: {
                **term,
                "output": (
                    None if term["output"] is None else base64.b64encode(term["output"]).decode()
                ),
            }
            for key, term in self.terminals.items()
        }
        return copy.deepcopy(
            {
                "state": self.state,
                "stopReason": self.stop_reason,
                "messages": list(self.messages.values()),
                "toolCalls": self.tools,
                "terminals": terminals,
                "plans": self.plans,
                "compactions": self.compactions,
                "subagents": {},  # no subagent_update in these sequences
                **self.slots,
                "notices": self.notices,
                "unknown": self.unknown,
            }
        )


# -- update strategies ------------------------------------------------------------------------

ABSENT = object()
ids = st.sampled_from(["a", "b", "c"])
blocks = st.builds(lambda t: {"type": "text", "text": t}, json_text(max_size=3))
metas = st.one_of(
    st.none(), st.dictionaries(st.sampled_from(["k", "j"]), st.integers(0, 3), max_size=2)
)
raw_bytes = st.binary(max_size=6)


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Absent, null or a value: the three states of a patch field."""
    return st.one_of(st.just(ABSENT), st.none(), strategy)


def update(tag: str, **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    def build(values: dict[str, Any]) -> dict[str, Any]:
        return {"sessionUpdate": tag, **{k: v for k, v in values.items() if v is not ABSENT}}

    return st.fixed_dictionaries(fields).map(build)


def message_updates() -> st.SearchStrategy[dict[str, Any]]:
    whole = [
        update(tag, messageId=ids, content=maybe(st.lists(blocks, max_size=3)), _meta=maybe(metas))
        for tag in MESSAGE_TAGS
    ]
    chunks = [update(tag, messageId=ids, content=blocks, _meta=maybe(metas)) for tag in CHUNK_TAGS]
    return st.one_of(*whole, *chunks)


def tool_updates() -> st.SearchStrategy[dict[str, Any]]:
    items = st.builds(lambda b: {"type": "content", "content": b}, blocks)
    statuses = st.sampled_from(["pending", "in_progress", "completed", "failed", "cancelled", "_x"])
    return st.one_of(
        update(
            "tool_call_update",
            toolCallId=ids,
            title=maybe(json_text(max_size=3)),
            status=maybe(statuses),
            content=maybe(st.lists(items, max_size=2)),
            rawInput=maybe(st.dictionaries(json_text(max_size=2), st.integers(), max_size=2)),
        ),
        update("tool_call_content_chunk", toolCallId=ids, content=items),
    )


def terminal_updates() -> st.SearchStrategy[dict[str, Any]]:
    encoded = raw_bytes.map(lambda data: base64.b64encode(data).decode())
    return st.one_of(
        update(
            "terminal_update",
            terminalId=ids,
            command=maybe(json_text(max_size=3)),
            output=maybe(st.builds(lambda d, m: {"data": d, "_meta": m}, encoded, metas)),
            exitStatus=maybe(st.fixed_dictionaries({"exitCode": st.integers(0, 2)})),
        ),
        update("terminal_output_chunk", terminalId=ids, data=encoded),
    )


def other_updates() -> st.SearchStrategy[dict[str, Any]]:
    plans = st.fixed_dictionaries(
        {
            "type": st.just("items"),
            "planId": ids,
            "entries": st.lists(json_text(max_size=2), max_size=2),
        }
    )
    states = st.sampled_from(["running", "idle", "requires_action", "_custom"])
    stop_reasons = st.sampled_from(["end_turn", "cancelled", "_oops"])
    return st.one_of(
        update("plan_update", plan=plans),
        update(
            "usage_update",
            used=st.integers(0, 9),
            size=st.integers(0, 9),
            cost=maybe(st.just({"amount": 1.5, "currency": "EUR"})),
        ),
        update(
            "available_commands_update",
            availableCommands=st.lists(st.fixed_dictionaries({"name": ids}), max_size=2),
        ),
        update(
            "config_option_update",
            configOptions=st.lists(st.fixed_dictionaries({"configId": ids}), max_size=2),
        ),
        update(
            "session_info_update",
            title=maybe(json_text(max_size=3)),
            updatedAt=maybe(st.just("2026-08-01T00:00:00Z")),
        ),
        update("state_update", state=states, stopReason=maybe(stop_reasons)),
        update(
            "compaction_update",
            compactionId=ids,
            status=st.sampled_from(["in_progress", "completed"]),
            summary=maybe(st.lists(blocks, max_size=2)),
            error=maybe(st.text(max_size=3)),
        ),
        update("compaction_summary_chunk", compactionId=ids, content=blocks, _meta=maybe(metas)),
        update(
            "notice",
            severity=st.sampled_from(["info", "_custom"]),
            title=st.text(min_size=1, max_size=3),
            description=maybe(st.text(max_size=3)),
        ),
        update("_vendor_update", payload=maybe(st.integers())),
        update("future_update", anything=st.lists(st.integers(), max_size=2)),
    )


steps = st.one_of(
    message_updates(), tool_updates(), terminal_updates(), other_updates(), st.just("cancel")
)


@settings(max_examples=400, deadline=None)
@given(st.lists(steps, max_size=40))
def test_random_update_sequences_match_the_reference_model(sequence: list[Any]) -> None:
    state: SessionState[Any] = SessionState(RULES)
    reference = ReferenceModel()
    for step in sequence:
        if step == "cancel":
            state.mark_cancelled()
            reference.mark_cancelled()
        else:
            state.apply(step)
            reference.apply(step)
    assert state.snapshot() == reference.snapshot()


# -- cost, by counting ------------------------------------------------------------------------


class CopyCounter:
    """Stands in for a copying function (`copy_json`, `freeze_item`) and counts its calls."""

    def __init__(self, original: Any) -> None:
        self.nodes = 0
        self.original = original

    def __call__(self, value: Any) -> Any:
        self.nodes += 1
        return self.original(value)


def test_ten_thousand_chunks_cost_linear_copying_and_never_copy_the_accumulated_list(
    monkeypatch: Any,
) -> None:
    counter = CopyCounter(jsonvalue.copy_json)
    for module in (jsonvalue, records, state_module):
        monkeypatch.setattr(module, "copy_json", counter)
    freezes = CopyCounter(frozen.freeze_item)  # chunk items are kept frozen, not copied
    monkeypatch.setattr(state_module, "freeze_item", freezes)
    n = 10_000
    state: SessionState[Any] = SessionState(RULES)
    state.apply({"sessionUpdate": "agent_message", "messageId": "m", "content": []})
    state.apply({"sessionUpdate": "tool_call_update", "toolCallId": "t"})
    state.apply({"sessionUpdate": "terminal_update", "terminalId": "x", "output": {"data": ""}})
    message_list = state._records["message"]["m"].lists["content"]
    tool_list = state._records["toolCall"]["t"].lists["content"]
    terminal_bytes = state._records["terminal"]["x"].blobs["output"]
    assert terminal_bytes is not None
    counter.nodes = freezes.nodes = 0
    for _ in range(n):
        state.apply(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "m",
                "content": {"type": "text", "text": "x"},
            }
        )
        state.apply(
            {
                "sessionUpdate": "tool_call_content_chunk",
                "toolCallId": "t",
                "content": {"type": "content"},
            }
        )
        state.apply({"sessionUpdate": "terminal_output_chunk", "terminalId": "x", "data": "eA=="})
    # Each chunk freezes its own item once (one call per chunk: a flat object's scalars are
    # not visited), nothing for terminal bytes, and nothing is copied. A state or list copy
    # per update would visit about n*n/2 nodes instead.
    assert freezes.nodes == n * (1 + 1)
    assert counter.nodes == 0
    # The accumulated containers are the same objects, grown in place (no list copy).
    assert state._records["message"]["m"].lists["content"] is message_list
    assert state._records["toolCall"]["t"].lists["content"] is tool_list
    assert state._records["terminal"]["x"].blobs["output"] is terminal_bytes
    assert len(message_list) == len(tool_list) == len(terminal_bytes) == n
    snap = state.snapshot()
    assert len(snap["messages"][0]["content"]) == n
    assert base64.b64decode(snap["terminals"]["x"]["output"]) == b"x" * n
