"""v1's methods whose meaning v2 kept under another name or shape, served to a v1 client by the
author's typed v2 handlers:

- `authenticate {methodId}` -> `auth/login`: only the name changes;
- `logout {}` -> `auth/logout`: only the name changes;
- `session/set_config_option` -> `session/set_config_option`: a select value (v1 gives it no
  `type`) gets `type: "id"`, or, set on a boolean option shown to a client without boolean
  options as a select (core/client_gates.py), the boolean it stands for; the options
  answered call v2's `configId` `id` (boolean ones as selects to such a client);
- `session/set_mode {modeId}` -> `session/set_config_option` on the session's option of
  category `mode`, set to `modeId` (v2 has no modes: a mode is such an option);
- `session/set_model {modelId}` (older unstable v1; only in a package generated with
  `--unstable`, whose v1 tables have it) -> the same on the option of category `model`.

A method whose handler the author did not override is answered -32601, as before.
`RenamedMethods.options` keeps each session's options as the agent last gave them (answers to
session/new, load, resume, set_config_option; config_option_update), which is where set_mode
finds the mode option; a session's v1 `modes` and `current_mode_update` come from it too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from ..agent.sessions import invalid
from ..core.client_gates import BOOLEAN_OPTIONS, ClientGates, boolean_from_select, option_named
from ..rpc.dispatch import Dispatcher
from ..wire.errors import RpcError
from ..wire.jsonvalue import JsonObject, JsonValue, copy_json
from .constants import (
    MODE_CATEGORY,
    MODEL_CATEGORY,
    SET_CONFIG_OPTION,
    SET_MODE,
    SET_MODEL,
    V1,
    V2_HANDLER,
)


def v1_config_options(options: JsonValue) -> JsonValue:
    """v2 config options in v1's words: `configId` is v1's `id`; the rest is the same."""
    if not isinstance(options, list):
        return options
    converted: list[JsonValue] = [
        (
            {("id" if name == "configId" else name): value for name, value in option.items()}
            if isinstance(option, dict)
            else option
        )
        for option in options
    ]
    return converted


def v1_auth_methods(methods: list[dict[str, Any]]) -> list[JsonValue]:
    """v2 login methods in v1's words: `methodId` is v1's `id`, and v1's agent-run method is
    the untagged one (v2 tags it `type: "agent"`)."""
    converted: list[JsonValue] = []
    for method in methods:
        v1 = {("id" if name == "methodId" else name): value for name, value in method.items()}
        if v1.get("type") == "agent":
            del v1["type"]
        converted.append(v1)
    return converted


def mode_option(options: JsonValue, category: str = MODE_CATEGORY) -> JsonObject | None:
    """The option (v2 form) of `category` (`mode`) with a flat list of values, if any."""
    for option in options if isinstance(options, list) else ():
        if not isinstance(option, dict) or option.get("category") != category:
            continue
        values = option.get("options")
        flat = isinstance(values, list) and all(
            isinstance(value, dict) and "value" in value for value in values
        )
        if option.get("type") == "select" and flat and isinstance(option.get("configId"), str):
            return option
    return None


def v1_modes(options: JsonValue) -> JsonObject | None:
    """v1's `modes` (SessionModeState) for the mode option among `options`, if there is one."""
    return _v1_choice(options, MODE_CATEGORY, "id", ("currentModeId", "availableModes"))


def v1_models(options: JsonValue) -> JsonObject | None:
    """Older unstable v1's `models` (SessionModelState) for the option of category `model`
    among `options`, if there is one."""
    return _v1_choice(options, MODEL_CATEGORY, "modelId", ("currentModelId", "availableModels"))


def _v1_choice(
    options: JsonValue, category: str, id_key: str, names: tuple[str, str]
) -> JsonObject | None:
    """A select option of `category` as v1 states a choice: the current id and each value as
    `{id_key, name, description?}`, under `names` (current, available)."""
    option = mode_option(options, category)
    if option is None:
        return None
    available: list[JsonValue] = []
    values = option["options"]
    for value in values if isinstance(values, list) else ():
        if not isinstance(value, dict):
            continue  # mode_option took only a list of objects
        item: JsonObject = {id_key: value["value"], "name": value.get("name", value["value"])}
        if isinstance(value.get("description"), str):
            item["description"] = value["description"]
        available.append(item)
    current, listed = names
    return {current: option.get("currentValue"), listed: available}


class RenamedMethods:
    """Serves the table above through `typed` (the author's v2 handlers); `serves(v2_method)`
    says whether the author overrode that handler."""

    def __init__(
        self,
        typed: Dispatcher | None,
        serves: Callable[[str], bool],
        gates: Callable[[], ClientGates] = lambda: ClientGates(V1, None),
    ) -> None:
        self._typed = typed
        self._serves = serves
        self._gates = gates  # what the connection's client advertised (read at each call)
        self.options: dict[str, list[JsonValue]] = {}  # by session id, v2 form

    def served(self, v1_method: str) -> bool:
        return self._typed is not None and self._serves(V2_HANDLER[v1_method])

    def remember(self, session_id: JsonValue, result: JsonValue) -> None:
        """Keep the options an answer about session `session_id` carried (v2 form)."""
        if isinstance(session_id, str) and isinstance(result, dict):
            options = result.get("configOptions")
            if isinstance(options, list):  # a copy: the author may change theirs in place
                self.options[session_id] = copy_json(options)

    def updated(self, session_id: str, options: JsonValue) -> str | None:
        """The agent told the client `options` (a `config_option_update`): keep them; the mode
        to tell a v1 client with `current_mode_update`, when it was offered modes (set_mode is
        served) and the mode option's value changed (None otherwise)."""
        before = mode_option(self.options.get(session_id))
        self.remember(session_id, {"configOptions": options})
        after = mode_option(options)
        if after is None or not self.served(SET_MODE):
            return None
        value = after.get("currentValue")
        unchanged = before is not None and before.get("currentValue") == value
        return None if unchanged or not isinstance(value, str) else value

    def forget(self, session_id: JsonValue) -> None:
        """The session was closed or deleted: its options go (a resume answers them anew)."""
        if isinstance(session_id, str):
            self.options.pop(session_id, None)

    async def handle(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if self._typed is None or not self.served(method):
            raise RpcError.method_not_found(method)
        v2_method = V2_HANDLER[method]
        if method == SET_MODE:
            asked = self._mode_params(params)
        elif method == SET_MODEL:
            asked = self._mode_params(params, MODEL_CATEGORY, "modelId")
        elif method == SET_CONFIG_OPTION:
            asked = dict(params) if "type" in params else {**params, "type": "id"}
            session_id = params.get("sessionId")
            if isinstance(session_id, str) and not self._gates().allows(BOOLEAN_OPTIONS):
                # a boolean option this client was shown as a select
                shown = option_named(self.options.get(session_id), params.get("configId"))
                asked = boolean_from_select(shown, asked)
        else:
            asked = dict(params)
        # The typed dispatcher answers these v2 methods with a JSON object (or None: `or {}`).
        result = cast(dict[str, Any], await self._typed.handle_request(v2_method, asked))
        if v2_method != SET_CONFIG_OPTION:
            return dict(result or {})
        self.remember(params.get("sessionId"), result)
        if method in (SET_MODE, SET_MODEL):  # v1's answer is empty; the options stay known
            return {key: value for key, value in (result or {}).items() if key == "_meta"}
        options = self._gates().config_options(v1_config_options(result["configOptions"]))
        return {**(result or {}), "configOptions": options}

    def _mode_params(
        self, params: dict[str, Any], category: str = MODE_CATEGORY, field: str = "modeId"
    ) -> dict[str, Any]:
        session_id = params.get("sessionId")
        known = self.options.get(session_id) if isinstance(session_id, str) else None
        option = mode_option(known, category)
        if option is None:
            why = f"session {session_id!r} has no option of category {category}"
            raise invalid(["sessionId"], why)
        asked = {"sessionId": session_id, "configId": option["configId"], "type": "id"}
        asked["value"] = params.get(field)
        if "_meta" in params:
            asked["_meta"] = params["_meta"]
        return asked
