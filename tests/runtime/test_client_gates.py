"""What a client did not advertise it can take is never sent to it in that form (one test per
gate, on each version it exists in; core/client_gates.py, docs/protocol-versions.md):

- v1 `session.configOptions.boolean`: boolean options go as selects of "true"/"false", and a
  select value set on one reaches the author's handler as the boolean;
- v1 `session.notices`, `session.compaction`: those updates are not sent;
- `auth.terminal` (v1 and v2): terminal login methods are left out of `authMethods`;
- `elicitation.form` / `.url` (v1 and v2): the agent's proxy refuses `elicitation/create` in
  that mode with `ClientLacksCapability`, nothing sent.

The decisions are the core's, checked first without an event loop; then on the wire."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "generated"))

import acp_bindings as acp  # noqa: E402
from acp_bindings import models  # noqa: E402
from acp_bindings._runtime.core.client_gates import (  # noqa: E402
    BOOLEAN_OPTIONS,
    COMPACTION,
    FORM_ELICITATION,
    NOTICES,
    PROMPT_SUGGESTIONS,
    TERMINAL_LOGIN,
    URL_ELICITATION,
    ClientGates,
    boolean_as_select,
    boolean_from_select,
)
from acp_bindings._runtime.wire.convert import from_wire  # noqa: E402
from acp_bindings._runtime.wire.jsonvalue import JsonObject, JsonValue  # noqa: E402
from acp_bindings.session import BOOLEAN_OPTIONS as SESSION_BOOLEAN_OPTIONS  # noqa: E402
from acp_bindings.session import NOTICES as SESSION_NOTICES  # noqa: E402
from acp_bindings.v1 import models as v1_models  # noqa: E402

from .configured_agent import GatedAgent  # noqa: E402
from .streams import run  # noqa: E402
from .test_v1_agent import V1_INIT, V2_INIT, V1Client, connected  # noqa: E402

# Everything v1's client capabilities can open that gates what an agent sends.
V1_ALL: JsonObject = {
    "session": {
        "configOptions": {"boolean": {}},
        "notices": {},
        "compaction": {},
        "promptSuggestions": {},
    },
    "auth": {"terminal": True},
    "elicitation": {"form": {}, "url": {}},
}
FORM: JsonObject = {
    "message": "Name?",
    "mode": "form",
    "sessionId": "s1",
    "requestedSchema": {"type": "object", "properties": {}},
}
URL: JsonObject = {
    "message": "Open",
    "mode": "url",
    "sessionId": "s1",
    "url": "https://x",
    "elicitationId": "e",
}


# -- the core's decisions ----------------------------------------------------------------------


def test_a_gate_is_open_when_advertised_as_true_or_an_object() -> None:
    assert ClientGates(1, {"session": {"notices": {}}}).allows(NOTICES)
    assert ClientGates(1, {"auth": {"terminal": True}}).allows(TERMINAL_LOGIN)
    absents: list[JsonValue] = [None, {}, {"session": None}, {"session": {"notices": None}}]
    for absent in absents:
        assert not ClientGates(1, absent).allows(NOTICES)
    assert not ClientGates(1, {"auth": {"terminal": False}}).allows(TERMINAL_LOGIN)
    assert ClientGates(1, {}).closed == {
        BOOLEAN_OPTIONS.name,
        NOTICES.name,
        COMPACTION.name,
        TERMINAL_LOGIN.name,
        FORM_ELICITATION.name,
        URL_ELICITATION.name,
        PROMPT_SUGGESTIONS.name,
    }
    # v2's only session gate is prompt suggestions (unstable).
    assert ClientGates(2, {}).closed == {
        TERMINAL_LOGIN.name,
        FORM_ELICITATION.name,
        URL_ELICITATION.name,
        PROMPT_SUGGESTIONS.name,
    }
    assert ClientGates(1, V1_ALL).closed == frozenset()


def test_held_back_update_kinds() -> None:
    closed, open_ = ClientGates(1, {}), ClientGates(1, V1_ALL)
    for tag, gate in (
        ("notice", NOTICES),
        ("compaction_update", COMPACTION),
        ("compaction_summary_chunk", COMPACTION),
    ):
        assert closed.holds_back(tag) == gate
        assert open_.holds_back(tag) is None
    assert closed.holds_back("agent_message_chunk") is None
    assert ClientGates(2, {}).holds_back("notice") is None


def test_a_boolean_option_as_a_select_and_back() -> None:
    option: JsonObject = {
        "configId": "verbose",
        "name": "Verbose",
        "type": "boolean",
        "currentValue": True,
    }
    shown = boolean_as_select(option)
    assert shown == {
        "configId": "verbose",
        "name": "Verbose",
        "type": "select",
        "currentValue": "true",
        "options": [{"value": "true", "name": "On"}, {"value": "false", "name": "Off"}],
    }
    asked: JsonObject = {"sessionId": "s", "configId": "verbose", "type": "id", "value": "false"}
    assert boolean_from_select(option, asked) == {**asked, "type": "boolean", "value": False}
    # A select option, or a value that is no boolean's, is asked as it is.
    select: JsonObject = {"configId": "mode", "type": "select", "currentValue": "a", "options": []}
    assert boolean_from_select(select, asked) == asked
    assert boolean_from_select(option, {**asked, "value": "maybe"})["type"] == "id"
    assert ClientGates(1, V1_ALL).config_options([option]) == [option]
    assert ClientGates(2, {}).config_options([option]) == [option]


def test_terminal_logins_are_left_out_without_auth_terminal() -> None:
    methods: list[Any] = [{"id": "b", "name": "B"}, {"id": "t", "name": "T", "type": "terminal"}]
    assert ClientGates(1, {}).auth_methods(methods) == methods[:1]
    assert ClientGates(2, {"auth": {"terminal": {}}}).auth_methods(methods) == methods


@pytest.mark.parametrize("version", [1, 2])
def test_an_elicitation_is_refused_in_a_mode_not_advertised(version: int) -> None:
    only_url = ClientGates(version, {"elicitation": {"url": {}}})
    refusal = only_url.refusal("elicitation/create", FORM)
    assert refusal == "the client did not advertise elicitation.form (form elicitation)"
    assert only_url.refusal("elicitation/create", URL) is None
    assert only_url.refusal("session/request_permission", FORM) is None
    assert ClientGates(version, V1_ALL).refusal("elicitation/create", FORM) is None


# -- on the wire -------------------------------------------------------------------------------


async def v1_turn(agent: acp.Agent, capabilities: Any) -> dict[str, Any]:
    """initialize (with `capabilities`), session/new, set the boolean option on (as the client
    was shown it), one prompt: every answer and update the client got."""
    _, peer = await connected(agent.dispatcher)
    client = V1Client(peer)
    init = {**V1_INIT, "clientCapabilities": capabilities}
    initialized = (await client.call("initialize", init))["result"]
    created = (await client.call("session/new", {"cwd": "/tmp", "mcpServers": []}))["result"]
    session_id = created["sessionId"]
    (verbose,) = [o for o in created["configOptions"] if o["id"] == "verbose"]
    on: dict[str, Any] = {"type": "boolean", "value": True}
    if verbose["type"] == "select":
        on = {"value": "true"}  # a v1 select value has no type
    params = {"sessionId": session_id, "configId": "verbose", **on}
    switched = (await client.call("session/set_config_option", params))["result"]
    prompted = await client.call("session/prompt", {"sessionId": session_id, "prompt": []})
    assert prompted["result"] == {"stopReason": "end_turn"}, prompted
    return {
        "initialized": initialized,
        "created": created,
        "switched": switched,
        "updates": client.updates,
    }


def verbose_of(options: list[dict[str, Any]]) -> dict[str, Any]:
    (verbose,) = [option for option in options if option["id"] == "verbose"]
    return verbose


def test_a_v1_client_without_the_capabilities_gets_the_degraded_forms() -> None:
    agent = GatedAgent()
    seen = run(v1_turn(agent, {}))
    v1_models.InitializeResponse.model_validate(seen["initialized"])
    assert [m["id"] for m in seen["initialized"]["authMethods"]] == ["browser"]
    assert verbose_of(seen["created"]["configOptions"]) == {
        "id": "verbose",
        "name": "Verbose",
        "type": "select",
        "currentValue": "false",
        "options": [{"value": "true", "name": "On"}, {"value": "false", "name": "Off"}],
    }
    # The author's handler was asked the boolean; the answer shows it as the select again.
    (call,) = [c for c in agent.calls if c[0] == "session/set_config_option"]
    assert call[1]["type"] == "boolean" and call[1]["value"] is True
    assert verbose_of(seen["switched"]["configOptions"])["currentValue"] == "true"
    tags = [update["sessionUpdate"] for update in seen["updates"]]
    assert "notice" not in tags and "compaction_update" not in tags
    (told,) = [u for u in seen["updates"] if u["sessionUpdate"] == "config_option_update"]
    assert verbose_of(told["configOptions"])["currentValue"] == "false"  # the turn turned it off
    assert verbose_of(told["configOptions"])["type"] == "select"
    for update in seen["updates"]:
        v1_models.SessionNotification.model_validate({"sessionId": "s", "update": update})


def test_a_v1_client_with_the_capabilities_gets_everything() -> None:
    agent = GatedAgent()
    seen = run(v1_turn(agent, V1_ALL))
    assert [m["id"] for m in seen["initialized"]["authMethods"]] == ["browser", "tty"]
    assert verbose_of(seen["created"]["configOptions"])["type"] == "boolean"
    assert verbose_of(seen["switched"]["configOptions"])["currentValue"] is True
    tags = [update["sessionUpdate"] for update in seen["updates"]]
    assert "notice" in tags and "compaction_update" in tags
    (told,) = [u for u in seen["updates"] if u["sessionUpdate"] == "config_option_update"]
    assert verbose_of(told["configOptions"])["currentValue"] is False


@pytest.mark.parametrize("terminal", [None, {}])
def test_a_v2_client_is_offered_terminal_logins_only_with_auth_terminal(terminal: Any) -> None:
    async def main() -> Any:
        _, peer = await connected(GatedAgent().dispatcher)
        capabilities = {} if terminal is None else {"auth": {"terminal": terminal}}
        init = {**V2_INIT, "capabilities": capabilities}
        return (await V1Client(peer).call("initialize", init))["result"]

    initialized = run(main())
    models.InitializeResponse.model_validate(initialized)
    offered = [method["methodId"] for method in initialized["authMethods"]]
    assert offered == (["browser"] if terminal is None else ["browser", "tty"])


@pytest.mark.parametrize("version", [1, 2])
def test_the_agents_proxy_sends_only_the_elicitation_modes_advertised(version: int) -> None:
    init = (
        {**V1_INIT, "clientCapabilities": {"elicitation": {"url": {}}}}
        if version == 1
        else {**V2_INIT, "capabilities": {"elicitation": {"url": {}}}}
    )

    async def main() -> dict[str, Any]:
        agent = GatedAgent()
        _, peer = await connected(agent.dispatcher)
        await V1Client(peer).call("initialize", init)
        form = from_wire(models.CreateElicitationRequest, FORM)
        with pytest.raises(acp.ClientLacksCapability, match=r"elicitation\.form"):
            await agent.client.elicitation_create(form)
        url = from_wire(models.CreateElicitationRequest, URL)
        asked = asyncio.create_task(agent.client.elicitation_create(url))
        sent: dict[str, Any] = await peer.recv()  # the refused form request never went out
        asked.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asked
        return sent

    sent = run(main())
    assert sent["method"] == "elicitation/create" and sent["params"]["mode"] == "url"


class AskingAgent(GatedAgent):
    """Asks, in each turn, whether the client takes notices and boolean options."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[bool, bool]] = []

    async def on_prompt(self, session: acp.Session, prompt: acp.Prompt) -> str | None:
        allows = session.client_allows
        self.asked.append((allows(SESSION_NOTICES), allows(SESSION_BOOLEAN_OPTIONS)))
        return await super().on_prompt(session, prompt)


@pytest.mark.parametrize(
    ("capabilities", "allowed"), [({}, (False, False)), (V1_ALL, (True, True))]
)
def test_the_author_can_ask_what_the_client_advertised(
    capabilities: Any, allowed: tuple[bool, bool]
) -> None:
    agent = AskingAgent()
    run(v1_turn(agent, capabilities))
    assert agent.asked == [allowed]
