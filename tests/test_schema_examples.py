"""Validate the JSON messages of the spec page against schema/acp.schema.json.

The page (`tests/fixtures/spec/prompt-lifecycle.txt`, kept byte-exact) shows each example
message as a JSON block that starts with `{` at the beginning of a line. Requests and
notifications are checked against the params definition of their method (from `x-methods`); a
response is checked against the result definition of the request with the same id.
"""

from __future__ import annotations

import copy
import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from jsonschema import Draft202012Validator, FormatChecker

REPO = Path(__file__).resolve().parents[1]
SCHEMA_PATH = REPO / "schema" / "acp.schema.json"
SPEC_PATH = REPO / "tests" / "fixtures" / "spec" / "prompt-lifecycle.txt"

# Counted by hand: the session/prompt request, its `{}` result, user_message, state running,
# plan_update, agent_message, agent_message_chunk, agent_thought, tool_call_update (pending),
# usage_update, state idle, tool_call_update (in_progress), tool_call_content_chunk,
# tool_call_update (completed), session/cancel.
EXPECTED_MESSAGES = 15

SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text())
METHODS = {row["method"]: row for row in SCHEMA["x-methods"]}


def _format_checker() -> FormatChecker:
    """The draft's checker plus the schemars number formats and offline uri/date-time checks."""
    checker = copy.deepcopy(Draft202012Validator.FORMAT_CHECKER)
    ranges = {
        "uint16": (0, 2**16 - 1),
        "uint32": (0, 2**32 - 1),
        "uint64": (0, 2**64 - 1),
        "int32": (-(2**31), 2**31 - 1),
        "int64": (-(2**63), 2**63 - 1),
    }
    for name, (lo, hi) in ranges.items():
        checker.checks(name)(
            lambda v, lo=lo, hi=hi: not isinstance(v, int) or isinstance(v, bool) or lo <= v <= hi
        )
    checker.checks("double")(lambda v: True)

    @checker.checks("uri")
    def _uri(v: object) -> bool:
        return not isinstance(v, str) or (bool(urlsplit(v).scheme) and " " not in v)

    @checker.checks("date-time")
    def _date_time(v: object) -> bool:
        if not isinstance(v, str):
            return True
        if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", v, re.I):
            return False
        datetime.fromisoformat(v.upper().replace("Z", "+00:00"))
        return True

    return checker


FORMATS = _format_checker()


def validator(def_name: str) -> Draft202012Validator:
    root = dict(SCHEMA)
    root["$ref"] = f"#/$defs/{def_name}"
    return Draft202012Validator(root, format_checker=FORMATS)


def errors(def_name: str, instance: Any) -> list[str]:
    return [e.message for e in validator(def_name).iter_errors(instance)]


def extract_messages(text: str) -> list[dict[str, Any]]:
    decoder = json.JSONDecoder()
    found = []
    pos = 0
    while True:
        match = re.compile(r"^\{", re.M).search(text, pos)
        if match is None:
            return found
        obj, end = decoder.raw_decode(text, match.start())
        found.append(obj)
        pos = end


@pytest.fixture(scope="module")
def messages() -> list[dict[str, Any]]:
    if not SPEC_PATH.is_file():
        pytest.skip(f"spec page not found at {SPEC_PATH}")
    return extract_messages(SPEC_PATH.read_text(encoding="utf-8"))


def test_schema_is_valid_2020_12() -> None:
    Draft202012Validator.check_schema(SCHEMA)


def test_message_count(messages: list[dict[str, Any]]) -> None:
    assert len(messages) == EXPECTED_MESSAGES


def test_spec_messages_validate(messages: list[dict[str, Any]]) -> None:
    requests: dict[Any, str] = {}
    checked = 0
    for msg in messages:
        assert msg.get("jsonrpc") == "2.0", msg
        if "method" in msg:
            row = METHODS[msg["method"]]
            assert ("id" in msg) == (row["kind"] == "request"), msg
            if "id" in msg:
                requests[msg["id"]] = msg["method"]
            problems = errors(row["params"], msg.get("params"))
        else:
            assert "result" in msg, msg
            row = METHODS[requests[msg["id"]]]
            problems = errors(row["result"], msg["result"])
            if row["method"] == "session/prompt":  # upstream replaced the page's `{}`
                assert [p for p in problems if "messageId" in p] == problems != [], problems
                problems = []
        assert problems == [], f"{json.dumps(msg)[:120]}: {problems}"
        checked += 1
    assert checked == EXPECTED_MESSAGES
    assert requests == {2: "session/prompt"}


def test_the_pages_empty_prompt_answer_became_the_receipt(messages: list[dict[str, Any]]) -> None:
    """The page answers `session/prompt` with `{}`; upstream's 2.4.0 schema (which wins) requires
    the insertion receipt, so that one example is refused for the missing `messageId` alone."""
    (response,) = [m for m in messages if "result" in m]
    assert response == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert SCHEMA["$defs"]["PromptResponse"]["required"] == ["messageId"]
    assert errors("PromptResponse", {"messageId": "msg_1"}) == []


# ---------------------------------------------------------------- hand-written messages

UPDATE = METHODS["session/update"]["params"]


def update(payload: dict[str, Any]) -> dict[str, Any]:
    return {"sessionId": "sess_1", "update": payload}


def test_malformed_known_tag_does_not_fall_back_to_other() -> None:
    bad = update({"sessionUpdate": "agent_message_chunk", "messageId": "m1"})
    assert errors(UPDATE, bad)


def test_unknown_custom_tag_is_accepted() -> None:
    assert errors(UPDATE, update({"sessionUpdate": "_my_update", "anything": [1, 2]})) == []


def test_usage_currency_is_any_code_text() -> None:
    """Upstream 2.4.0 dropped the ISO 4217 pattern: any string is a currency code."""
    cost = {"sessionUpdate": "usage_update", "used": 1, "size": 2}
    good = update({**cost, "cost": {"amount": 0.5, "currency": "usd"}})
    assert errors(UPDATE, good) == []
    bad = copy.deepcopy(good)
    bad["update"]["cost"]["currency"] = 840
    assert errors(UPDATE, bad)


@pytest.mark.parametrize(
    "payload",
    [
        {"sessionUpdate": "state_update", "state": "idle", "stopReason": "_budget_exhausted"},
        {"sessionUpdate": "state_update", "state": "idle"},
        {"sessionUpdate": "state_update", "state": "requires_action"},
        {"sessionUpdate": "agent_message", "messageId": "m1", "content": None},
        {"sessionUpdate": "agent_message", "messageId": "m1"},
        {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "title": None, "kind": None},
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "t1", "data": "aGk="},
    ],
)
def test_valid_updates(payload: dict[str, Any]) -> None:
    assert errors(UPDATE, update(payload)) == []


@pytest.mark.parametrize(
    "payload",
    [
        {
            "sessionUpdate": "user_message_chunk",
            "content": {"type": "text", "text": "hi"},
        },  # no messageId
        {"sessionUpdate": "state_update"},  # no state
        {"sessionUpdate": "tool_call_update", "title": "x"},  # no toolCallId
        {"sessionUpdate": "usage_update", "used": -1, "size": 2},
        {"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": {"type": "text"}},
        {"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "p"}},  # no entries
    ],
)
def test_invalid_updates(payload: dict[str, Any]) -> None:
    assert errors(UPDATE, update(payload))


def test_prompt_request_needs_prompt() -> None:
    assert errors(METHODS["session/prompt"]["params"], {"sessionId": "s"})


def test_formats_are_checked() -> None:
    bad_time = update({"sessionUpdate": "session_info_update", "updatedAt": "yesterday"})
    assert errors(UPDATE, bad_time)
    link = {"type": "resource_link", "name": "x", "uri": "not a uri"}
    assert errors(METHODS["session/prompt"]["params"], {"sessionId": "s", "prompt": [link]})
    init = {"protocolVersion": 70000, "info": {"name": "a", "version": "1"}}
    assert errors(METHODS["initialize"]["params"], init)
