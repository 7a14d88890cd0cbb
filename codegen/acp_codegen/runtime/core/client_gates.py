"""What a client advertised it can take, and the form an agent sends it otherwise, with no I/O.

A client's `initialize` capabilities gate part of what an agent may send it (`GATES`, per
version; docs/protocol-versions.md has the table). A client that did not advertise a gate gets:

- a boolean config option (v1 `session.configOptions.boolean`): a select of the values
  `"true"` and `"false"`; the client sets it as a select, and the author's handler is asked
  the boolean (`boolean_from_select`);
- a `notice` (v1 `session.notices`) or a `compaction_*` update (v1 `session.compaction`):
  nothing, the author can ask `allows` first and say it otherwise;
- a `prompt_suggestions_update` (`session.promptSuggestions`, both versions; unstable): nothing;
- a login method of type `terminal` (`auth.terminal`, both versions): left out of `authMethods`;
- an `elicitation/create` in `form` or `url` mode (`elicitation.form` / `.url`, both versions):
  refused before it is sent (`refusal` says why; the agent's proxy raises it).

An advertised capability is `true` or an object (`{}`); absent, `null` or `false` is not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from ..wire.jsonvalue import JsonObject, JsonValue

V1_ONLY: Final = (1,)
EVERY_VERSION: Final = (1, 2)


@dataclass(frozen=True, slots=True)
class Gate:
    """One capability path in the client's `initialize` and what it gates, per version."""

    name: str
    path: tuple[str, ...]
    versions: tuple[int, ...]


BOOLEAN_OPTIONS: Final = Gate(
    "boolean config options", ("session", "configOptions", "boolean"), V1_ONLY
)
NOTICES: Final = Gate("notices", ("session", "notices"), V1_ONLY)
COMPACTION: Final = Gate("compaction updates", ("session", "compaction"), V1_ONLY)
TERMINAL_LOGIN: Final = Gate("terminal login methods", ("auth", "terminal"), EVERY_VERSION)
FORM_ELICITATION: Final = Gate("form elicitation", ("elicitation", "form"), EVERY_VERSION)
URL_ELICITATION: Final = Gate("URL elicitation", ("elicitation", "url"), EVERY_VERSION)
# Unstable (upstream after 2.4.0): only a client that offers suggestions is sent them.
PROMPT_SUGGESTIONS: Final = Gate(
    "prompt suggestions", ("session", "promptSuggestions"), EVERY_VERSION
)
PROMPT_SUGGESTIONS_UPDATE: Final = "prompt_suggestions_update"
GATES: Final = (
    BOOLEAN_OPTIONS,
    NOTICES,
    COMPACTION,
    TERMINAL_LOGIN,
    FORM_ELICITATION,
    URL_ELICITATION,
    PROMPT_SUGGESTIONS,
)

ELICIT: Final = "elicitation/create"
ELICITATION_MODES: Final[Mapping[str, Gate]] = {"form": FORM_ELICITATION, "url": URL_ELICITATION}
# Session update kinds a gate holds back entirely.
GATED_UPDATES: Final[Mapping[str, Gate]] = {
    "notice": NOTICES,
    "compaction_update": COMPACTION,
    "compaction_summary_chunk": COMPACTION,
    PROMPT_SUGGESTIONS_UPDATE: PROMPT_SUGGESTIONS,
}
BOOLEAN, SELECT = "boolean", "select"
# The select a boolean option becomes, its values in this order.
TRUE_VALUE, FALSE_VALUE = "true", "false"
SELECT_VALUES: Final = (
    {"value": TRUE_VALUE, "name": "On"},
    {"value": FALSE_VALUE, "name": "Off"},
)


def advertised(capabilities: JsonValue, path: Sequence[str]) -> bool:
    """Whether `capabilities` holds `true` or an object at `path`."""
    value = capabilities
    for key in path:
        if not isinstance(value, dict):
            return False
        value = value.get(key)
    return value is True or isinstance(value, dict)


class ClientGates:
    """The gates one client (`capabilities`, as its `initialize` named them on `version`) opened.
    A gate of another version than the connection's is open: it holds nothing back there."""

    __slots__ = ("_closed", "capabilities", "version")

    def __init__(self, version: int, capabilities: JsonValue) -> None:
        self.version, self.capabilities = version, capabilities
        self._closed = frozenset(
            gate.name
            for gate in GATES
            if version in gate.versions and not advertised(capabilities, gate.path)
        )

    def allows(self, gate: Gate) -> bool:
        return gate.name not in self._closed

    @property
    def closed(self) -> frozenset[str]:
        """The names of the gates this client left closed (what it gets in another form)."""
        return self._closed

    def holds_back(self, tag: object) -> Gate | None:
        """The closed gate that holds back session updates of kind `tag` (None: they go)."""
        gate = GATED_UPDATES.get(tag) if isinstance(tag, str) else None
        return gate if gate is not None and gate.name in self._closed else None

    def config_options(self, options: JsonValue) -> JsonValue:
        """`options` with each boolean option as a select of `"true"` / `"false"` when this
        client did not advertise boolean options (otherwise `options` itself)."""
        if BOOLEAN_OPTIONS.name not in self._closed or not isinstance(options, list):
            return options
        return [boolean_as_select(option) for option in options]

    def refusal(self, method: str, params: object) -> str | None:
        """Why request `method` with `params` must not be sent to this client (None: it may)."""
        if method != ELICIT or not isinstance(params, dict):
            return None
        mode = params.get("mode")
        gate = ELICITATION_MODES.get(mode) if isinstance(mode, str) else None
        if gate is None or gate.name not in self._closed:
            return None
        return f"the client did not advertise {'.'.join(gate.path)} ({gate.name})"

    def auth_methods(self, methods: list[JsonValue]) -> list[JsonValue]:
        """The login methods this client can use: `terminal` ones only with `auth.terminal`."""
        if TERMINAL_LOGIN.name not in self._closed:
            return methods
        return [m for m in methods if not (isinstance(m, dict) and m.get("type") == "terminal")]


def boolean_as_select(option: JsonValue) -> JsonValue:
    """A boolean config option as a select of `"true"` / `"false"`; any other option as it is."""
    if not isinstance(option, dict) or option.get("type") != BOOLEAN:
        return option
    current = option.get("currentValue")
    values: list[JsonValue] = [dict(value) for value in SELECT_VALUES]
    return {
        **option,
        "type": SELECT,
        "currentValue": TRUE_VALUE if current is True else FALSE_VALUE,
        "options": values,
    }


def boolean_from_select(option: JsonValue, params: JsonObject) -> JsonObject:
    """`session/set_config_option` params as the author's handler takes them: a select value
    (`"true"` / `"false"`) set on `option`, a boolean option the client was shown as a select,
    becomes the boolean it stands for; other params are returned as they are."""
    value = params.get("value")
    is_boolean = isinstance(option, dict) and option.get("type") == BOOLEAN
    if not is_boolean or params.get("type") == BOOLEAN or value not in (TRUE_VALUE, FALSE_VALUE):
        return params
    return {**params, "type": BOOLEAN, "value": value == TRUE_VALUE}


def option_named(options: JsonValue, config_id: JsonValue) -> JsonValue:
    """The option (v2 form, `configId`) of `options` whose id is `config_id`, else None."""
    for option in options if isinstance(options, list) else ():
        if isinstance(option, dict) and option.get("configId") == config_id:
            return option
    return None
