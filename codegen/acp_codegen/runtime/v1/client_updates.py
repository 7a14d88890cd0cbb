"""Reading a v1 agent's session updates as the v2 updates the session state folds.

The client keeps one `SessionState` (and one typed snapshot) for both protocol versions; a v1
connection feeds it through `V1UpdateReader`, which turns each v1 update (already checked
against v1's types) into zero or more v2-shaped updates:

- message chunks: consecutive chunks of one role form one message. v1 chunks may carry a
  `messageId` (v1 2.4.0); a chunk without one continues the current message of its role, or
  starts a message under an id the reader makes up (a random UUID, so no wire id can forge
  it). A chunk of another role or a tool call ends the current message.
- `tool_call` creates a tool call, `tool_call_update` patches one; a field left out stays
  absent (the protocol's default, e.g. `status` pending, on both versions). v1 has no
  "clear": a null field there means "unchanged", so nulls are dropped before the v2 upsert
  (where null would clear). A v1 `diff` (a file's old and new text) becomes v2's (the
  changed path, and the change as a git patch).
- `plan` replaces the session's single plan (v1 has one per session; it is kept under the
  plan id `V1_PLAN_ID`).
- v1's session modes have no v2 update: the mode state (from `session/new` and
  `current_mode_update`) is shown as a select config option of category `mode`, unless the
  agent lists a mode option of its own. v1 config options name their id `id` (v2: `configId`).
- v1's commands are untagged (v2: `type: command`), their free-text input too (`text`).
- Everything else (`usage_update`, `session_info_update`, `notice`, compactions, unknown
  tags) is already shaped as in v2 and passes through.

The session's state (running, requires_action, idle with a stop reason) has no v1 update at
all: `v1.client_wire` synthesizes it from the prompt and permission requests.
"""

from __future__ import annotations

import difflib
import uuid
from collections.abc import Mapping
from typing import Final

from ..wire.jsonvalue import JsonObject, JsonValue
from ..wire.protocol import (
    AGENT_MESSAGE_CHUNK,
    AGENT_THOUGHT_CHUNK,
    PLAN_UPDATE,
    STATE_UPDATE,
    TOOL_CALL_UPDATE,
    UPDATE_TAG_FIELD,
    USER_MESSAGE,
)
from .constants import (
    AVAILABLE_COMMANDS_UPDATE,
    CONFIG_OPTION_UPDATE,
    CURRENT_MODE_UPDATE,
    MODE_CATEGORY,
    MODE_CONFIG_ID,
    MODEL_CATEGORY,
    MODEL_CONFIG_ID,
    MODELS,
    USER_MESSAGE_CHUNK,
    V1_PLAN,
    V1_PLAN_ID,
    V1_TOOL_CALL,
)

CHUNK_ROLES: Final[Mapping[str, str]] = {
    USER_MESSAGE_CHUNK: "user",
    AGENT_MESSAGE_CHUNK: "agent",
    AGENT_THOUGHT_CHUNK: "thought",
}


def new_message_id() -> str:
    return str(uuid.uuid4())


def _without_nulls(update: Mapping[str, JsonValue]) -> JsonObject:
    return {name: value for name, value in update.items() if value is not None}


def _lines(text: str) -> list[str]:
    """`text`'s lines, ends kept, split at newlines alone: `splitlines` also splits at CR, form
    feeds and separators, which are the file's text (a patch that broke there would show lines
    the file does not have)."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def _diff(item: JsonObject) -> JsonObject:
    """A v1 tool call `diff` (`path`, `oldText` or null for a new file, `newText`) as v2's."""
    path, old, new = item.get("path"), item.get("oldText"), item.get("newText")
    if not isinstance(path, str) or not isinstance(new, str) or not isinstance(old, str | None):
        return item  # not v1's shape: kept as it came
    lines = difflib.unified_diff(
        _lines(old or ""),
        _lines(new),
        "/dev/null" if old is None else f"a{path}",
        f"b{path}",
    )
    patch = f"diff --git a{path} b{path}\n" + "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
    converted: JsonObject = {
        "type": "diff",
        "changes": [{"operation": "add" if old is None else "modify", "path": path}],
        "patch": {"format": "git_patch", "text": patch},
    }
    if item.get("_meta") is not None:
        converted["_meta"] = item["_meta"]
    return converted


def _tool_content(content: JsonValue) -> JsonValue:
    if not isinstance(content, list):
        return content
    return [
        _diff(item) if isinstance(item, dict) and item.get("type") == "diff" else item
        for item in content
    ]


def _command(command: JsonValue) -> JsonValue:
    """A v1 command (untagged, its input untagged free text) as v2's `command`."""
    if not isinstance(command, dict) or "type" in command:
        return command
    tagged = {"type": "command", **command}
    given = command.get("input")
    if isinstance(given, dict) and "type" not in given:
        tagged["input"] = {"type": "text", **given}
    elif given is None:
        tagged.pop("input", None)
    return tagged


def _config_options(options: JsonValue) -> list[JsonValue]:
    """v1 config options as v2's: `id` becomes `configId`; anything else is as it came."""
    if not isinstance(options, list):
        return []
    converted: list[JsonValue] = []
    for option in options:
        if isinstance(option, dict) and "id" in option and "configId" not in option:
            option = {("configId" if name == "id" else name): v for name, v in option.items()}
        converted.append(option)
    return converted


class V1UpdateReader:
    """One session's reader: the message being continued and the mode/config state it shows."""

    def __init__(self) -> None:
        self._open_role: str | None = None  # role of the message chunks continue, if any
        self._open_id: str | None = None
        self._modes: JsonObject | None = None  # v1 SessionModeState
        self._models: JsonObject | None = None  # older unstable v1's SessionModelState
        self._agent_options: list[JsonValue] | None = None  # the agent's own config options

    def read(self, update: JsonObject) -> list[JsonObject]:
        """The v2 updates that say what this v1 update says (in order). `update` is handed
        over (decoded for us, referenced nowhere else): it may be changed and returned."""
        tag = update.get(UPDATE_TAG_FIELD)
        if not isinstance(tag, str):
            return [update]  # the state names what is wrong with it
        role = CHUNK_ROLES.get(tag)
        if role is not None:
            return [self._chunk(role, update)]
        if tag in (V1_TOOL_CALL, TOOL_CALL_UPDATE):
            self.end_message()
            return [self._tool_call(update)]
        if tag == V1_PLAN:
            plan = {"type": "items", "planId": V1_PLAN_ID, "entries": update.get("entries", [])}
            if update.get("_meta") is not None:
                plan["_meta"] = update["_meta"]
            return [{UPDATE_TAG_FIELD: PLAN_UPDATE, "plan": plan}]
        if tag == CURRENT_MODE_UPDATE:
            if self._modes is None:
                return []  # a mode change for an agent that listed no modes: nothing to show
            self._modes = {**self._modes, "currentModeId": update.get("currentModeId")}
            return [self.options_update()]
        if tag == AVAILABLE_COMMANDS_UPDATE:
            commands = update.get("availableCommands")
            if isinstance(commands, list):
                return [{**update, "availableCommands": [_command(c) for c in commands]}]
        if tag == CONFIG_OPTION_UPDATE:
            self._agent_options = _config_options(update.get("configOptions"))
            return [self.options_update()]
        return [update]

    def end_message(self) -> None:
        """The next chunk starts a new message (a tool call or a new prompt came between)."""
        self._open_role = self._open_id = None

    def user_prompt(self, content: list[JsonValue]) -> tuple[str, JsonObject]:
        """The client's own record of a prompt it sends (v1 agents echo nothing): the id it
        gets and the `user_message` update that inserts it."""
        self.end_message()
        message_id = new_message_id()
        return message_id, {
            UPDATE_TAG_FIELD: USER_MESSAGE,
            "messageId": message_id,
            "content": content,
        }

    def session_setup(self, result: JsonValue) -> list[JsonObject]:
        """Updates for what a v1 `session/new` (or load/resume) result says: modes, models
        (older unstable v1) and config options."""
        if not isinstance(result, dict):
            return []
        modes, models = result.get("modes"), result.get(MODELS)
        if isinstance(modes, dict):
            self._modes = modes
        if isinstance(models, dict):
            self._models = models
        if isinstance(result.get("configOptions"), list):
            self._agent_options = _config_options(result["configOptions"])
        if self._modes is None and self._models is None and self._agent_options is None:
            return []
        return [self.options_update()]

    def options_update(self) -> JsonObject:
        options = list(self._agent_options or [])
        has_mode = any(
            isinstance(option, dict) and option.get("category") == MODE_CATEGORY
            for option in options
        )
        if self._modes is not None and not has_mode:
            options.append(self._mode_option(self._modes))
        has_model = any(
            isinstance(option, dict) and option.get("category") == MODEL_CATEGORY
            for option in options
        )
        if self._models is not None and not has_model:
            options.append(_model_option(self._models))
        return {UPDATE_TAG_FIELD: CONFIG_OPTION_UPDATE, "configOptions": options}

    @staticmethod
    def _mode_option(modes: Mapping[str, JsonValue]) -> JsonObject:
        available = modes.get("availableModes")
        choices: list[JsonValue] = [
            _without_nulls(
                {
                    "value": mode.get("id"),
                    "name": mode.get("name"),
                    "description": mode.get("description"),
                }
            )
            for mode in (available if isinstance(available, list) else [])
            if isinstance(mode, dict)
        ]
        return {
            "type": "select",
            "configId": MODE_CONFIG_ID,
            "name": "Mode",
            "category": MODE_CATEGORY,
            "currentValue": modes.get("currentModeId"),
            "options": choices,
        }

    def _chunk(self, role: str, update: JsonObject) -> JsonObject:
        given = update.get("messageId")
        if isinstance(given, str):  # already what v2 says: taken as it is
            self._open_role, self._open_id = role, given
            return update
        if self._open_role == role and self._open_id is not None:
            message_id = self._open_id
        else:
            message_id = new_message_id()
        self._open_role, self._open_id = role, message_id
        update["messageId"] = message_id  # decoded for us: changed in place, not copied
        return update

    @staticmethod
    def _tool_call(update: JsonObject) -> JsonObject:
        # Decoded for us, so changed in place; copied only to drop nulls (rare).
        fields = _without_nulls(update) if None in update.values() else update
        if "content" in fields:
            fields["content"] = _tool_content(fields["content"])
        fields[UPDATE_TAG_FIELD] = TOOL_CALL_UPDATE
        return fields


def state_update(state: str, stop_reason: str | None = None) -> JsonObject:
    """A v2 `state_update`, which v1 never sends: the client synthesizes it."""
    update: JsonObject = {UPDATE_TAG_FIELD: STATE_UPDATE, "state": state}
    if stop_reason is not None:
        update["stopReason"] = stop_reason
    return update


def _model_option(models: Mapping[str, JsonValue]) -> JsonObject:
    """Older unstable v1's model selection (`availableModels`, `currentModelId`) as v2 shows a
    model choice: a select config option of category `model`."""
    available = models.get("availableModels")
    choices: list[JsonValue] = [
        _without_nulls(
            {
                "value": model.get("modelId"),
                "name": model.get("name"),
                "description": model.get("description"),
            }
        )
        for model in (available if isinstance(available, list) else [])
        if isinstance(model, dict)
    ]
    return {
        "type": "select",
        "configId": MODEL_CONFIG_ID,
        "name": "Model",
        "category": MODEL_CATEGORY,
        "currentValue": models.get("currentModelId"),
        "options": choices,
    }


def model_chosen(options: object, model_id: str) -> JsonObject:
    """The `config_option_update` that shows `model_id` as the current value of the model
    option `options` hold (after `session/set_model`, which v1 answers with nothing)."""
    listed: list[JsonValue] = list(options) if isinstance(options, list) else []
    return {
        UPDATE_TAG_FIELD: CONFIG_OPTION_UPDATE,
        "configOptions": [
            (
                {**option, "currentValue": model_id}
                if isinstance(option, dict) and option.get("configId") == MODEL_CONFIG_ID
                else option
            )
            for option in listed
        ],
    }
