"""The lifecycle answers `session/prompt` in the shape the schema's prompt result requires:
the canonical schema (upstream's v2 as SDK 2.4.0 publishes it) requires the insertion receipt."""

from __future__ import annotations

from conftest import GeneratedPackage
from pipes_turn import prompt_turn


def test_the_canonical_schema_answers_with_the_insertion_receipt(
    canonical: GeneratedPackage,
) -> None:
    prompt_type = canonical.schema["$defs"]["PromptResponse"]
    assert "messageId" in prompt_type["required"]
    answer, stop, snap, exit_code = prompt_turn(canonical.module, canonical.out, canonical.name)
    assert stop == "end_turn" and exit_code == 0
    assert set(answer) == {"messageId"}
    canonical.submodule("_runtime.wire.convert").from_wire(canonical.models.PromptResponse, answer)
    assert [m["role"] for m in snap["messages"]] == ["user", "agent"]
    # the receipt names the user message the lifecycle reported for the prompt
    assert snap["messages"][0]["messageId"] == answer["messageId"]


def test_the_generated_hook_follows_the_schema(canonical: GeneratedPackage) -> None:
    agent = canonical.submodule("agent")
    prompt = canonical.module.Prompt(message_id="msg_user_1", content=[])
    assert agent.prompt_result(prompt) == {"messageId": "msg_user_1"}
