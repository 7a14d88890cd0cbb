"""v1's names, in one place: its version number, the methods and fields v2 renamed or removed,
the update kinds v2 has not, and the capabilities v1's client services need.

Both adapters (`agent_side`, `client_wire`) and the modules they use read them from here, and
so does the generated package (`from ..._runtime.v1.constants import V1`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from ..wire.protocol import SUPPORTED_PROTOCOL_VERSIONS

V1: Final = 1  # the version before upstream's v2, which `v1/` speaks
# The versions a generated package that carries `.v1` serves (agent) or accepts (client).
WITH_V1: Final = (V1, *SUPPORTED_PROTOCOL_VERSIONS)

# `initialize`: v1's names for what v2 calls `capabilities` and `info`, on each side.
CLIENT_CAPABILITIES: Final = "clientCapabilities"
CLIENT_INFO: Final = "clientInfo"
AGENT_CAPABILITIES: Final = "agentCapabilities"
AGENT_INFO: Final = "agentInfo"
PROMPT_CAPABILITIES: Final = "promptCapabilities"
# v1's prompt capabilities (booleans; v2's are objects under `session.prompt`).
PROMPT_CAPABILITY_NAMES: Final = ("image", "audio", "embeddedContext")

# v1's methods whose meaning v2 kept under another name or shape (see `agent_renamed`).
AUTHENTICATE: Final = "authenticate"
LOGOUT: Final = "logout"
SET_CONFIG_OPTION: Final = "session/set_config_option"
SET_MODE: Final = "session/set_mode"
SET_MODEL: Final = "session/set_model"  # older unstable v1 (gemini-cli, qwen-code)
# v1 method -> the v2 method whose typed handler serves it.
V2_HANDLER: Final[Mapping[str, str]] = {
    AUTHENTICATE: "auth/login",
    LOGOUT: "auth/logout",
    SET_CONFIG_OPTION: SET_CONFIG_OPTION,
    SET_MODE: SET_CONFIG_OPTION,
    SET_MODEL: SET_CONFIG_OPTION,
}

# v1's update kinds v2 names otherwise or lacks.
V1_TOOL_CALL: Final = "tool_call"
V1_PLAN: Final = "plan"
V1_PLAN_ID: Final = "plan"  # the id a v1 session's one plan gets (v1 plans have none)
USER_MESSAGE_CHUNK: Final = "user_message_chunk"
CONFIG_OPTION_UPDATE: Final = "config_option_update"
CURRENT_MODE_UPDATE: Final = "current_mode_update"
AVAILABLE_COMMANDS_UPDATE: Final = "available_commands_update"
AVAILABLE_COMMANDS: Final = "availableCommands"  # a v2 result field, a v1 update
# v2 has no modes: a v1 mode is a select config option of this category.
MODE_CATEGORY: Final = "mode"
MODE_CONFIG_ID: Final = "mode"  # the id of the config option a v1 session's modes become
# Older unstable v1 (gemini-cli, qwen-code): a setup answer's `models`, shown as a select config
# option of this category, as upstream's later model choice is.
MODELS: Final = "models"
MODEL_CATEGORY: Final = "model"
MODEL_CONFIG_ID: Final = "model"

# v1's client services (v2 removed them) and the path in `clientCapabilities` each needs.
FS_READ: Final = "fs/read_text_file"
FS_WRITE: Final = "fs/write_text_file"
TERMINAL_METHODS: Final = (
    "terminal/create",
    "terminal/output",
    "terminal/release",
    "terminal/wait_for_exit",
    "terminal/kill",
)
SERVICE_CAPABILITY: Final[Mapping[str, tuple[str, ...]]] = {
    FS_READ: ("fs", "readTextFile"),
    FS_WRITE: ("fs", "writeTextFile"),
    **dict.fromkeys(TERMINAL_METHODS, ("terminal",)),
}
