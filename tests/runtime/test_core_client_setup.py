"""What the client makes of its setup answers: the core's rules (core/client_setup.py), called
directly (no event loop, no connection)."""

from __future__ import annotations

from acp_codegen._bindings._runtime.core.client_setup import (
    hello_fallback,
    hello_misfit,
    rebuilds_state,
    setup_fields,
    setup_updates,
)
from acp_codegen._bindings._runtime.wire.jsonvalue import JsonObject
from acp_codegen._bindings._runtime.wire.tables import MergeRule
from acp_codegen._bindings.merge_rules import MERGE_RULES

COMMAND: JsonObject = {"type": "command", "name": "deploy", "description": "ship"}


def test_the_merge_rules_say_which_answer_members_the_state_keeps() -> None:
    fields = setup_fields(MERGE_RULES)
    assert dict(fields) == {
        "availableCommands": "available_commands_update",
        "configOptions": "config_option_update",
    }
    # A keyed replace (one plan of many) or a rule taking the whole update is not an answer's.
    rules = {
        "plan_update": MergeRule("plan_update", "plan", "replace", key="/plan/id", source="/plan"),
        "usage_update": MergeRule("usage_update", "usage", "replace"),
        "deep": MergeRule("deep", "sessionInfo", "replace", source="/a/b"),
    }
    assert setup_fields(rules) == ()


def test_an_answer_becomes_the_updates_that_say_what_it_carries() -> None:
    fields = setup_fields(MERGE_RULES)
    answer: JsonObject = {"sessionId": "s1", "availableCommands": [COMMAND], "configOptions": None}
    assert setup_updates(fields, answer) == [
        {"sessionUpdate": "available_commands_update", "availableCommands": [COMMAND]}
    ]  # null and absent members say nothing; an empty list says "none now"
    assert setup_updates(fields, {"configOptions": []}) == [
        {"sessionUpdate": "config_option_update", "configOptions": []}
    ]
    assert setup_updates(fields, {"availableCommands": "x"}) == []
    assert setup_updates(fields, None) == []


def test_only_a_whole_replay_rebuilds() -> None:
    assert rebuilds_state("session/load", {"sessionId": "s1"})
    assert rebuilds_state("session/resume", {"replayFrom": {"type": "start"}})
    assert not rebuilds_state("session/resume", {})
    assert not rebuilds_state("session/resume", {"replayFrom": {"type": "_since", "id": "m3"}})
    assert not rebuilds_state("session/new", {"replayFrom": {"type": "start"}})


def test_only_a_missing_required_member_makes_a_body_another_versions() -> None:
    missing = {"loc": ("info",), "msg": "Field required", "type": "missing", "input": {}}
    wrong = {"loc": ("capabilities",), "msg": "bad", "type": "model_type", "input": []}
    deep = {"loc": ("capabilities", "session"), "msg": "bad", "type": "missing", "input": {}}
    assert hello_misfit(2, [wrong, deep]) is None  # a broken v2 answer, read tolerantly
    said = hello_misfit(2, [missing, wrong, deep])
    assert said == "its body is not a version 2 answer (missing info)"


def test_a_misfit_falls_back_to_v1_only_when_offered_and_fitting() -> None:
    misfit = "its body is not a version 2 answer (missing info)"
    spoken, said = hello_fallback(2, misfit, 1, None)
    assert spoken == 1 and "speaks version 1" in said and "agent's fault" in said
    for fallback, fallback_misfit in ((None, None), (1, "not v1 either"), (2, None)):
        spoken, said = hello_fallback(2, misfit, fallback, fallback_misfit)
        assert spoken is None
        assert said.startswith("the agent answered protocol version 2, but its body is not")
