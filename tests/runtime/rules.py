"""The merge-rule table for runtime tests, row for row from docs/design.md section 2."""

from __future__ import annotations

from acp_codegen.runtime.wire.tables import MergeRule


def _message_rules(role: str, whole_tag: str, chunk_tag: str) -> dict[str, MergeRule]:
    return {
        whole_tag: MergeRule(
            tag=whole_tag, entity="message", op="upsert", key="/messageId", role=role
        ),
        chunk_tag: MergeRule(
            tag=chunk_tag,
            entity="message",
            op="append",
            key="/messageId",
            field="content",
            role=role,
        ),
    }


RULES: dict[str, MergeRule] = {
    **_message_rules("user", "user_message", "user_message_chunk"),
    **_message_rules("agent", "agent_message", "agent_message_chunk"),
    **_message_rules("thought", "agent_thought", "agent_thought_chunk"),
    "state_update": MergeRule(tag="state_update", entity="state", op="replace"),
    "tool_call_update": MergeRule(
        tag="tool_call_update", entity="toolCall", op="upsert", key="/toolCallId"
    ),
    "tool_call_content_chunk": MergeRule(
        tag="tool_call_content_chunk",
        entity="toolCall",
        op="append",
        key="/toolCallId",
        field="content",
    ),
    "terminal_update": MergeRule(
        tag="terminal_update",
        entity="terminal",
        op="upsert",
        key="/terminalId",
        bytes_fields=(("output", "/data"),),
    ),
    "terminal_output_chunk": MergeRule(
        tag="terminal_output_chunk",
        entity="terminal",
        op="append",
        key="/terminalId",
        field="output",
        source="/data",
        encoding="base64",
    ),
    "plan_update": MergeRule(
        tag="plan_update", entity="plan", op="replace", key="/plan/planId", source="/plan"
    ),
    "usage_update": MergeRule(tag="usage_update", entity="usage", op="replace"),
    "available_commands_update": MergeRule(
        tag="available_commands_update",
        entity="availableCommands",
        op="replace",
        source="/availableCommands",
    ),
    "config_option_update": MergeRule(
        tag="config_option_update", entity="configOptions", op="replace", source="/configOptions"
    ),
    "session_info_update": MergeRule(tag="session_info_update", entity="sessionInfo", op="upsert"),
    "compaction_update": MergeRule(
        tag="compaction_update", entity="compaction", op="upsert", key="/compactionId"
    ),
    "compaction_summary_chunk": MergeRule(
        tag="compaction_summary_chunk",
        entity="compaction",
        op="append",
        key="/compactionId",
        field="summary",
        source="/content",
    ),
    "notice": MergeRule(tag="notice", entity="notice", op="append"),
    "plan_removed": MergeRule(tag="plan_removed", entity="plan", op="remove", key="/planId"),
    "subagent_update": MergeRule(
        tag="subagent_update", entity="subagent", op="upsert", key="/sessionId"
    ),
    **_message_rules("session", "session_message", "session_message_chunk"),
}
