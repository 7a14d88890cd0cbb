"""v1's `authenticate`, `logout`, `session/set_config_option` and `session/set_mode` on the v1
wire, served by the author's typed v2 handlers (`auth/login`, `auth/logout`,
`session/set_config_option`; v1_agent_renamed), advertised only when the author wrote them,
and -32601 from an agent that did not."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "generated"))

import acp_bindings as acp  # noqa: E402
from acp_bindings.v1 import models as v1_models  # noqa: E402

from .configured_agent import ConfiguredAgent  # noqa: E402
from .streams import run  # noqa: E402
from .test_v1_agent import V1_INIT, V2_INIT, V1Client, connected  # noqa: E402


class PlainAgent(acp.Agent):
    async def on_prompt(self, session: acp.Session, prompt: acp.Prompt) -> str | None:
        return None


# A v1 client that shows boolean options (else it is sent them as selects: test_client_gates).
BOOLEAN_INIT = {**V1_INIT, "clientCapabilities": {"session": {"configOptions": {"boolean": {}}}}}


async def v1_session(
    agent: acp.Agent, init: dict[str, Any] = BOOLEAN_INIT
) -> tuple[V1Client, dict[str, Any], dict[str, Any]]:
    """A v1 client connected to `agent`: its `initialize` and `session/new` answers."""
    _, peer = await connected(agent.dispatcher)
    client = V1Client(peer)
    initialized = (await client.call("initialize", init))["result"]
    created = (await client.call("session/new", {"cwd": "/tmp", "mcpServers": []}))["result"]
    return client, initialized, created


def test_what_a_v1_client_is_offered() -> None:
    _, initialized, created = run(v1_session(ConfiguredAgent()))
    v1_models.InitializeResponse.model_validate(initialized)
    assert initialized["authMethods"] == [{"id": "browser", "name": "Log in with a browser"}]
    assert initialized["agentCapabilities"]["auth"] == {"logout": {}}
    v1_models.NewSessionResponse.model_validate(created)
    ids = [option["id"] for option in created["configOptions"]]
    assert ids == ["mode", "verbose"]  # v1 names v2's configId `id`
    assert created["modes"] == {
        "currentModeId": "ask",
        "availableModes": [
            {"id": "ask", "name": "Ask"},
            {"id": "code", "name": "Code", "description": "Edits files"},
        ],
    }


def test_authenticate_and_logout_reach_the_login_hooks() -> None:
    agent = ConfiguredAgent()

    async def main() -> list[Any]:
        client, _, _ = await v1_session(agent)
        return [
            await client.call("authenticate", {"methodId": "browser"}),
            await client.call("logout", {}),
        ]

    logged_in, logged_out = run(main())
    assert logged_in["result"] == {} and logged_out["result"] == {}
    assert agent.calls == [("auth/login", "browser"), ("auth/logout", None)]


def test_set_config_option_in_v1_words() -> None:
    agent = ConfiguredAgent()

    async def main() -> list[Any]:
        client, _, created = await v1_session(agent)
        session_id = created["sessionId"]
        select = {"sessionId": session_id, "configId": "mode", "value": "code"}
        boolean = {"sessionId": session_id, "configId": "verbose", "type": "boolean", "value": True}
        return [
            session_id,
            await client.call("session/set_config_option", select),
            await client.call("session/set_config_option", boolean),
        ]

    session_id, selected, switched = run(main())
    v1_models.SetSessionConfigOptionResponse.model_validate(switched["result"])
    options = {
        option["id"]: option["currentValue"] for option in switched["result"]["configOptions"]
    }
    assert options == {"mode": "code", "verbose": True}
    assert selected["result"]["configOptions"][0]["currentValue"] == "code"
    # v1's select value has no `type`; the author's v2 handler sees v2's `id`.
    assert [call[1] for call in agent.calls] == [
        {"sessionId": session_id, "configId": "mode", "type": "id", "value": "code"},
        {"sessionId": session_id, "configId": "verbose", "type": "boolean", "value": True},
    ]


def test_set_mode_sets_the_option_of_category_mode() -> None:
    agent = ConfiguredAgent()

    async def main() -> list[Any]:
        client, _, created = await v1_session(agent)
        session_id = created["sessionId"]
        return [
            session_id,
            await client.call("session/set_mode", {"sessionId": session_id, "modeId": "code"}),
            await client.call("session/set_mode", {"sessionId": "elsewhere", "modeId": "code"}),
            await client.call("session/close", {"sessionId": session_id}),
            await client.call("session/set_mode", {"sessionId": session_id, "modeId": "ask"}),
        ]

    session_id, switched, unknown, closed, after_close = run(main())
    assert switched["result"] == {}
    assert agent.calls == [
        (
            "session/set_config_option",
            {"sessionId": session_id, "configId": "mode", "type": "id", "value": "code"},
        )
    ]
    assert agent.options[session_id][0]["currentValue"] == "code"
    assert unknown["error"]["code"] == -32602  # no session here has a mode option by that id
    assert closed["result"] == {}
    assert after_close["error"]["code"] == -32602  # a closed session's options are forgotten
    assert len(agent.calls) == 1


def test_an_agent_without_the_hooks_offers_none_and_refuses_them() -> None:
    async def main() -> tuple[dict[str, Any], list[Any]]:
        client, initialized, created = await v1_session(PlainAgent())
        session_id = created["sessionId"]
        calls = [
            ("authenticate", {"methodId": "x"}),
            ("logout", {}),
            ("session/set_config_option", {"sessionId": session_id, "configId": "m", "value": "v"}),
            ("session/set_mode", {"sessionId": session_id, "modeId": "code"}),
        ]
        return initialized, [await client.call(method, params) for method, params in calls]

    initialized, answers = run(main())
    assert "auth" not in initialized["agentCapabilities"]
    assert initialized["authMethods"] == []
    assert [answer["error"]["code"] for answer in answers] == [-32601] * 4


def test_v2_clients_still_reach_the_same_hooks_by_their_v2_names() -> None:
    agent = ConfiguredAgent()

    async def main() -> list[Any]:
        _, peer = await connected(agent.dispatcher)
        client = V1Client(peer)  # a raw requester: nothing v1-specific in `call`
        initialized = (await client.call("initialize", V2_INIT))["result"]
        return [initialized, await client.call("auth/login", {"methodId": "browser"})]

    initialized, logged_in = run(main())
    assert initialized["authMethods"] == [
        {"type": "agent", "methodId": "browser", "name": "Log in with a browser"}
    ]
    assert logged_in["result"] == {}
    assert agent.calls == [("auth/login", "browser")]


def test_a_config_option_update_goes_out_in_v1_words() -> None:
    async def main() -> list[Any]:
        client, _, created = await v1_session(ConfiguredAgent())
        prompt = [{"type": "text", "text": "flip"}]
        await client.call("session/prompt", {"sessionId": created["sessionId"], "prompt": prompt})
        return client.updates

    (update,) = run(main())
    assert update["sessionUpdate"] == "config_option_update"
    v1_models.ConfigOptionUpdate.model_validate(update)
    values = {option["id"]: option["currentValue"] for option in update["configOptions"]}
    assert values == {"mode": "ask", "verbose": True}


def test_a_mode_the_agent_changes_is_told_as_current_mode_update() -> None:
    async def main() -> list[Any]:
        client, _, created = await v1_session(ConfiguredAgent())
        prompt = [{"type": "text", "text": "code"}]
        for _ in range(2):  # the second update leaves the mode as it was
            params = {"sessionId": created["sessionId"], "prompt": prompt}
            await client.call("session/prompt", params)
        return client.updates

    options, mode, unchanged = run(main())
    assert options["sessionUpdate"] == unchanged["sessionUpdate"] == "config_option_update"
    assert mode == {"sessionUpdate": "current_mode_update", "currentModeId": "code"}
    v1_models.CurrentModeUpdate.model_validate(mode)
