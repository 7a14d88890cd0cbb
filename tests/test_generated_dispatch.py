"""The committed package's dispatchers and proxies: routing, validation and JSON-RPC errors."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "generated"))

import acp_bindings as acp  # noqa: E402
from acp_bindings import models  # noqa: E402
from acp_bindings._runtime.rpc.task_owner import TaskOwner  # noqa: E402


class ListingAgent(acp.Agent):
    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def session_list(
        self, *, params: models.ListSessionsRequest
    ) -> models.ListSessionsResponse:
        self.seen.append(params)
        return models.ListSessionsResponse(sessions=[])

    async def ext_notification(self, method: str, params: Any) -> None:
        self.seen.append((method, params))


def call(coro: Any) -> Any:
    return asyncio.run(coro)


def test_a_request_reaches_its_typed_handler_and_the_result_is_wire_json() -> None:
    agent = ListingAgent()
    result = call(acp.AgentDispatcher(agent).handle_request("session/list", {"cwd": "/w"}))
    assert result == {"sessions": []}
    (params,) = agent.seen
    assert isinstance(params, models.ListSessionsRequest) and params.cwd == "/w"


def test_invalid_params_answer_32602_with_the_field_location() -> None:
    dispatcher = acp.AgentDispatcher(ListingAgent())
    with pytest.raises(acp.RpcError) as caught:
        call(dispatcher.handle_request("session/list", {"cwd": 5}))
    assert caught.value.code == -32602
    assert [problem["loc"] for problem in caught.value.data] == [["cwd"]]


def test_python_field_names_are_not_wire_names() -> None:
    dispatcher = acp.AgentDispatcher(acp.Agent())
    with pytest.raises(acp.RpcError) as caught:
        call(dispatcher.handle_request("auth/login", {"method_id": "m"}))
    assert caught.value.code == -32602
    assert [problem["loc"] for problem in caught.value.data] == [["methodId"]]


def test_methods_without_a_handler_and_unknown_methods_answer_32601() -> None:
    dispatcher = acp.AgentDispatcher(acp.Agent())
    for method in ("session/list", "nope/nothing", "_vendor/thing"):
        with pytest.raises(acp.RpcError) as caught:
            call(dispatcher.handle_request(method, {}))
        assert caught.value.code == -32601, method


def test_extension_notifications_reach_the_hook_and_unknown_ones_are_ignored() -> None:
    agent = ListingAgent()
    dispatcher = acp.AgentDispatcher(agent)
    call(dispatcher.handle_notification("_vendor/ping", {"n": 1}))
    call(dispatcher.handle_notification("no/such", {}))
    assert agent.seen == [("_vendor/ping", {"n": 1})]


def test_the_client_side_routes_by_its_own_table() -> None:
    # session/list is handled by agents: a client answers it with -32601.
    with pytest.raises(acp.RpcError) as caught:
        call(acp.ClientDispatcher(acp.Client()).handle_request("session/list", {}))
    assert caught.value.code == -32601


def test_a_proxy_sends_wire_json_and_parses_the_result() -> None:
    class Recorder:
        def __init__(self) -> None:
            self.sent: list[tuple[str, Any]] = []

        async def request(self, method: str, params: Any) -> Any:
            self.sent.append((method, params))
            return {"outcome": {"outcome": "selected", "optionId": "ok"}}

        async def notify(self, method: str, params: Any) -> None:
            self.sent.append((method, params))

    peer = Recorder()
    proxy = acp.ClientProxy(peer)
    request = models.RequestPermissionRequest(
        session_id="s",
        title="Run?",
        options=[models.PermissionOption(option_id="ok", name="OK", kind="allow_once")],
    )
    answer = call(proxy.session_request_permission(request))
    assert isinstance(answer.outcome, models.SelectedPermissionOutcome)
    assert peer.sent == [
        (
            "session/request_permission",
            {
                "sessionId": "s",
                "title": "Run?",
                "options": [{"optionId": "ok", "name": "OK", "kind": "allow_once"}],
            },
        )
    ]


class _Wire:
    """Stands in for a connection where a test sends nothing to the peer (its `tasks` owns
    what the agent side starts, as a connection's does)."""

    def __init__(self) -> None:
        self.tasks = TaskOwner("a test's connection")

    async def request(self, method: str, params: Any) -> Any:
        raise AssertionError(f"unexpected request {method}")

    async def notify(self, method: str, params: Any) -> None:
        raise AssertionError(f"unexpected notification {method}")


@pytest.mark.parametrize("asked", [2, 3, 65535])
def test_initialize_answers_the_highest_version_at_or_below_the_one_asked(asked: int) -> None:
    dispatcher = acp.Agent().dispatcher(_Wire())  # type: ignore[arg-type]
    params = {"protocolVersion": asked, "info": {"name": "c", "version": "1"}}
    answer = call(dispatcher.handle_request("initialize", params))
    assert answer["protocolVersion"] == 2
    assert answer["info"] == {"name": "acp-agent", "version": "0.0.0"}
    models.InitializeResponse.model_validate(answer)


def test_initialize_below_every_served_version_is_refused_before_validation() -> None:
    """A v0 `initialize` (no `info`) gets -32022, never a validation error of a served one."""
    dispatcher = acp.Agent().dispatcher(_Wire())  # type: ignore[arg-type]
    with pytest.raises(acp.RpcError) as caught:
        call(dispatcher.handle_request("initialize", {"protocolVersion": 0}))
    assert caught.value.code == -32022
    assert caught.value.data == {"requested": 0, "supported": [1, 2]}
    models.UnsupportedProtocolVersionErrorData.model_validate(caught.value.data)


def test_the_lifecycle_sits_behind_the_schema_types() -> None:
    dispatcher = acp.Agent().dispatcher(_Wire())  # type: ignore[arg-type]
    with pytest.raises(acp.RpcError) as caught:  # uint16: out of range
        call(dispatcher.handle_request("initialize", {"protocolVersion": 70000, "info": {}}))
    assert caught.value.code == -32602
    assert ["protocolVersion"] in [problem["loc"] for problem in caught.value.data]
    with pytest.raises(acp.RpcError) as caught:  # before initialize
        call(dispatcher.handle_request("session/new", {"cwd": "/w"}))
    assert caught.value.code == -32600


def test_every_session_update_is_checked_even_after_the_validator_is_cached(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The client's dispatcher builds each notification's validator once and keeps it: later
    notifications of the same method are still checked (a bad one is dropped, not folded)."""
    from acp_bindings._runtime.client.client_side import ClientSession

    client = acp.Client()
    dispatcher = client.dispatcher(_Wire())  # type: ignore[arg-type]
    session = ClientSession[Any](client.lifecycle, "s1")
    client.lifecycle.sessions["s1"] = session

    def chunk(text: Any) -> dict[str, Any]:
        content = {"type": "text", "text": text}
        update = {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": content}
        return {"sessionId": "s1", "update": update}

    call(dispatcher.handle_notification("session/update", chunk("a")))
    call(dispatcher.handle_notification("session/update", chunk(5)))  # text must be a string
    call(dispatcher.handle_notification("session/update", None))  # checked as {}: no sessionId
    call(dispatcher.handle_notification("session/update", chunk("b")))
    [message] = session.snapshot()["messages"]
    assert [part["text"] for part in message["content"]] == ["a", "b"]
    assert sum("dropping notification 'session/update'" in r.message for r in caplog.records) == 2
