"""The ACP prompt-lifecycle vocabulary the lifecycles speak (v2's, prompt-lifecycle page; plus
v1's `session/load`), and the few readings of it both sides share: the option a permission
outcome selected, a take-over notice. (Which prompt content an agent's capabilities allow is a
protocol decision: core/prompt_content.py.)

The modules that *emit* or *react to* lifecycle messages use these names: both lifecycles
(agent/, client/), the v1 dialect, the outgoing checks (plain text chunks) and, for what
idle and cancelling mean to tool calls, the session state. How updates merge into state never
depends on them (that comes from `MergeRule` rows).
"""

from __future__ import annotations

from typing import Final

from .jsonvalue import JsonValue, to_json

SUPPORTED_PROTOCOL_VERSIONS: Final = (2,)

# Methods.
INITIALIZE: Final = "initialize"
SESSION_NEW: Final = "session/new"
SESSION_RESUME: Final = "session/resume"
SESSION_LOAD: Final = "session/load"  # v1's reattach with replay (v2: session/resume)
SESSION_LIST: Final = "session/list"
SESSION_CLOSE: Final = "session/close"
SESSION_DELETE: Final = "session/delete"
SESSION_PROMPT: Final = "session/prompt"
SESSION_CANCEL: Final = "session/cancel"
SESSION_UPDATE: Final = "session/update"
REQUEST_PERMISSION: Final = "session/request_permission"
# Cancelling one tool call or terminal; the params name it by this field.
CANCELLABLE: Final = {"tool_call/cancel": "toolCallId", "terminal/cancel": "terminalId"}

# Session update tags this runtime emits (agent side).
UPDATE_TAG_FIELD: Final = "sessionUpdate"
USER_MESSAGE: Final = "user_message"
AGENT_MESSAGE: Final = "agent_message"
AGENT_MESSAGE_CHUNK: Final = "agent_message_chunk"
AGENT_THOUGHT: Final = "agent_thought"
AGENT_THOUGHT_CHUNK: Final = "agent_thought_chunk"
STATE_UPDATE: Final = "state_update"
TOOL_CALL_UPDATE: Final = "tool_call_update"
TOOL_CALL_CONTENT_CHUNK: Final = "tool_call_content_chunk"
TERMINAL_UPDATE: Final = "terminal_update"
TERMINAL_OUTPUT_CHUNK: Final = "terminal_output_chunk"
PLAN_UPDATE: Final = "plan_update"
PLAN_REMOVED: Final = "plan_removed"
SUBAGENT_UPDATE: Final = "subagent_update"
SESSION_MESSAGE: Final = "session_message"
SESSION_MESSAGE_CHUNK: Final = "session_message_chunk"
USAGE_UPDATE: Final = "usage_update"
SESSION_INFO_UPDATE: Final = "session_info_update"
NOTICE: Final = "notice"
# v2 (after 2.4.0): ends the replay of a `session/resume` with `replayFrom` (sessions.py).
REPLAY_COMPLETE: Final = "replay_complete"
# The `_meta` member of the notice an agent sends a connection whose session another
# connection took over (session_owner.py); our client marks the session closed on it.
TAKEN_OVER_META: Final = "sessionTakenOver"
# The `_meta` member of a child session's (a subagent's) `SessionInfo` in `session/list` and of
# its stored setup that names its parent: upstream's SessionInfo has no field for it.
PARENT_SESSION_META: Final = "parentSessionId"

# Session states and stop reasons.
STATE_RUNNING: Final = "running"
STATE_IDLE: Final = "idle"
STATE_REQUIRES_ACTION: Final = "requires_action"
STOP_END_TURN: Final = "end_turn"
STOP_CANCELLED: Final = "cancelled"
# Custom stop reason (custom values start with `_`) for a turn handler that raised.
STOP_INTERNAL_ERROR: Final = "_internal_error"

# Tool call statuses.
TOOL_CALL_CANCELLED: Final = "cancelled"
FINISHED_TOOL_CALL_STATUSES: Final = frozenset({"completed", "failed", TOOL_CALL_CANCELLED})

# Permission outcomes.
OUTCOME_CANCELLED: Final = "cancelled"
OUTCOME_SELECTED: Final = "selected"


def selected_option(outcome: object) -> str | None:
    """The chosen optionId of a permission outcome, or None. Anything but a well-formed
    `selected` outcome (cancelled, unknown future outcomes) is never read as approval."""
    wire: JsonValue = to_json(outcome)  # a generated outcome model reads the same as its JSON
    if isinstance(wire, dict) and wire.get("outcome") == OUTCOME_SELECTED:
        option = wire.get("optionId")
        return option if isinstance(option, str) else None
    return None


def is_taken_over_notice(update: object) -> bool:
    """Whether `update` tells that another connection took the session over."""
    if not isinstance(update, dict) or update.get(UPDATE_TAG_FIELD) != NOTICE:
        return False
    meta = update.get("_meta")
    return isinstance(meta, dict) and meta.get(TAKEN_OVER_META) is True
