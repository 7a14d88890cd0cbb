"""The lifecycle answers `session/prompt` in the shape the schema's prompt result requires."""

from __future__ import annotations

from conftest import GeneratedPackage
from pipes_turn import prompt_turn


def test_the_canonical_schema_keeps_answering_an_empty_object(
    canonical: GeneratedPackage,
) -> None:
    prompt_type = canonical.schema["$defs"]["PromptResponse"]
    assert "messageId" not in (prompt_type.get("required") or [])
    answer, stop, snap, exit_code = prompt_turn(canonical.module, canonical.out, canonical.name)
    assert answer == {} and stop == "end_turn" and exit_code == 0
    canonical.submodule("_runtime.wire").from_wire(canonical.models.PromptResponse, answer)
    assert [m["role"] for m in snap["messages"]] == ["user", "agent"]


def test_the_generated_hook_follows_the_schema(canonical: GeneratedPackage) -> None:
    agent = canonical.submodule("agent")
    prompt = canonical.module.Prompt(message_id="msg_user_1", content=[])
    assert agent.prompt_result(prompt) == {}
