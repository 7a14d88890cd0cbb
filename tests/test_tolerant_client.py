"""Tolerant reading of what a client receives besides `session/update`: the `x-deserialize-*`
marks on the params of requests and notifications the client handles are in the generated
table, and the generated `Client` repairs such params (logging each repair) before its
lifecycle and handlers see them, unless `strict`. What no mark covers is still -32602 (or a
dropped notification). Each test also shows a repair, so each fails without client repairs."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

import pytest
from runtime.streams import run
from tolerant_widgets import linked, rpc_error

CWD = "/work"
ERROR = object()  # stands for "answered -32602" in the expected outcomes


def _wire(module: ModuleType, model: Any) -> Any:
    """What a handler got, as wire JSON (with the package's own runtime)."""
    wire: Any = __import__(f"{module.__name__}._runtime.wire.convert", fromlist=["to_wire"])
    return wire.to_wire(model)


Call = tuple[str, str, Any]  # (kind, method, params)


async def _send(module: ModuleType, connection: Any, calls: list[Call]) -> list[Any]:
    """Send `calls` in order; the outcome of each: its answer, ERROR for -32602, None for a
    notification."""
    error_type = rpc_error(module)
    outcomes: list[Any] = []
    for kind, method, params in calls:
        if kind == "notification":
            await connection.notify(method, params)
            outcomes.append(None)
            continue
        try:
            outcomes.append(await connection.request(method, params))
        except error_type as error:
            assert error.code == -32602, error  # type: ignore[attr-defined]
            outcomes.append(ERROR)
    return outcomes


def _exchange(module: ModuleType, near: Any, calls: list[Call]) -> list[Any]:
    """Serve `near` (a Client or Agent of `module`) and send it `calls` from the other end;
    their outcomes (`_send`)."""

    async def main() -> list[Any]:
        async with linked(module) as (ours, theirs):
            ours.dispatcher = near.dispatcher(ours)
            ours.start()
            theirs.start()
            return await _send(module, theirs, calls)

    return run(main())


# --- the table ---------------------------------------------------------------------------


def test_client_repairs_cover_exactly_the_received_params_that_lead_to_a_mark(
    widgets: ModuleType,
) -> None:
    tolerance = widgets.tolerance
    assert set(tolerance.client_request_repairs()) == {"widget/ask"}
    assert set(tolerance.client_notification_repairs()) == {"widget/nudge"}
    assert set(tolerance.params_repairs()) == {"session/update"}  # not repeated above
    assert set(tolerance.agent_request_repairs()) == {"widget/open"}  # each side its own
    classes = tolerance.TOLERANCE.classes
    assert "PeekWidgetRequest" not in classes
    asking = classes["AskWidgetRequest"]
    assert set(asking) == {"tags", "server"}  # `label` leads to no mark
    assert asking["tags"].default_on_null and asking["server"].type == "Server"


def test_the_upstream_table_reaches_what_the_client_receives(up240: ModuleType) -> None:
    tolerance = up240.tolerance
    requests = tolerance.client_request_repairs()
    assert {"session/request_permission", "elicitation/create"} <= set(requests)
    assert "session/new" not in requests  # the agent receives it
    notifications = tolerance.client_notification_repairs()
    assert "auth/status_update" in notifications and "session/update" not in notifications
    classes = tolerance.TOLERANCE.classes
    assert classes["RequestPermissionRequest"]["description"].default_on_error
    assert classes["RequestPermissionRequest"]["options"].type == "PermissionOption"
    accounts = classes["AuthStatusUpdateNotification"]["accounts"]
    assert accounts.skip_invalid_items and accounts.type == "AuthAccount"


# --- a generated client without the v2 lifecycle: the typed handlers ----------------------


def _widget_client(module: ModuleType, *, strict: bool) -> tuple[Any, list[tuple[str, Any]]]:
    seen: list[tuple[str, Any]] = []

    class Client(module.Client):  # type: ignore[name-defined,misc]
        async def widget_ask(self, *, params: Any) -> Any:
            seen.append(("widget/ask", _wire(module, params)))
            return {}

        async def widget_peek(self, *, params: Any) -> Any:
            seen.append(("widget/peek", _wire(module, params)))
            return {}

        async def widget_nudge(self, *, params: Any) -> None:
            seen.append(("widget/nudge", _wire(module, params)))

    client = Client()
    client.strict = strict
    return client, seen


ASK_WITH_NULLS = {"label": "a", "tags": None, "server": {"name": "s", "args": None}}


def test_a_client_reads_the_marked_nulls_of_a_request_as_absent(
    widgets: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    client, seen = _widget_client(widgets, strict=False)
    with caplog.at_level(logging.WARNING):
        outcomes = _exchange(widgets, client, [("request", "widget/ask", ASK_WITH_NULLS)])
    assert outcomes == [{}]
    assert seen == [("widget/ask", {"label": "a", "server": {"name": "s"}})]
    logged = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    for where in ("/tags", "/server/args"):
        assert any(
            m.startswith("widget/ask: null read as absent") and m.endswith(f"at {where!r}")
            for m in logged
        ), logged


def test_a_strict_client_answers_the_marked_nulls_with_invalid_params(
    widgets: ModuleType,
) -> None:
    outcomes = []
    for strict in (False, True):
        client, seen = _widget_client(widgets, strict=strict)
        outcomes += _exchange(widgets, client, [("request", "widget/ask", ASK_WITH_NULLS)])
        outcomes.append(len(seen))
    assert outcomes == [{}, 1, ERROR, 0]


def test_what_no_mark_covers_is_still_invalid_params(widgets: ModuleType) -> None:
    client, seen = _widget_client(widgets, strict=False)
    calls: list[Call] = [
        ("request", "widget/ask", {"label": 5}),  # no mark
        ("request", "widget/ask", {"tags": 5}),  # default-on-null covers only null
        ("request", "widget/ask", {"tags": [None]}),  # nor an item of the list
        ("request", "widget/ask", {"tags": None, "label": 5}),  # a repair cannot cover it all
        ("request", "widget/peek", {"label": None}),  # params that lead to no mark
        ("request", "widget/ask", {"tags": None}),  # while the mark is still honoured
    ]
    outcomes = _exchange(widgets, client, calls)
    assert outcomes == [ERROR, ERROR, ERROR, ERROR, ERROR, {}]
    assert seen == [("widget/ask", {})]


def test_a_marked_notification_is_repaired_and_an_unmarked_one_dropped(
    widgets: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[Call] = [
        ("notification", "widget/nudge", {"note": 5, "count": 1}),
        ("notification", "widget/nudge", {"count": "many"}),  # no mark: dropped
        ("request", "widget/ask", {}),  # answered after both notifications were handled
    ]
    heard = {}
    for strict in (False, True):
        client, seen = _widget_client(widgets, strict=strict)
        with caplog.at_level(logging.WARNING):
            _exchange(widgets, client, calls)
        heard[strict] = seen
    assert heard[False] == [("widget/nudge", {"count": 1}), ("widget/ask", {})]
    assert heard[True] == [("widget/ask", {})]
    assert "widget/nudge: invalid value left out" in caplog.text


# --- a generated client with the v2 lifecycle (upstream sdk 2.4.0) ------------------------


def _lifecycle_client(
    module: ModuleType, *, strict: bool, calls: Callable[[str], list[Call]]
) -> tuple[list[Any], list[Any]]:
    """A Client connected to a generated Agent with one session; the agent end then sends
    `calls(session id)`. (outcomes, what the client's permission hook and handlers got)."""
    seen: list[Any] = []

    class Client(module.Client):  # type: ignore[name-defined,misc]
        async def on_permission(self, session: Any, request: Any) -> Mapping[str, Any]:
            seen.append(request.params)
            module.client.permission_request(request)  # its model reads the params
            return {"outcome": "selected", "optionId": "ok"}

        async def auth_status_update(self, *, params: Any) -> None:
            seen.append(_wire(module, params))

    class Agent(module.Agent):  # type: ignore[name-defined,misc]
        async def on_prompt(self, session: Any, prompt: Any) -> str | None:
            return None

    client = Client()
    client.strict = strict

    async def main() -> list[Any]:
        async with linked(module) as (ours, theirs):
            ours.dispatcher = client.dispatcher(ours)
            theirs.dispatcher = Agent().dispatcher(theirs)
            ours.start()
            theirs.start()
            await client.lifecycle.initialize()
            session = await client.lifecycle.new_session(CWD)
            return await _send(module, theirs, calls(session.session_id))

    return run(main()), seen


OPTION = {"optionId": "ok", "name": "OK", "kind": "allow_once"}


def _asks(description: Any, **option: Any) -> Callable[[str], list[Call]]:
    def calls(session_id: str) -> list[Call]:
        params = {
            "sessionId": session_id,
            "title": "Run it?",
            "description": description,
            "options": [{**OPTION, **option}],
        }
        return [("request", "session/request_permission", params)]

    return calls


SELECTED = {"outcome": {"outcome": "selected", "optionId": "ok"}}


def test_a_permission_request_with_bad_marked_values_is_answered(
    up240: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        outcomes, seen = _lifecycle_client(up240, strict=False, calls=_asks(5, _meta=7))
    assert outcomes == [SELECTED]
    (params,) = seen
    assert "description" not in params and params["options"] == [OPTION]
    logged = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(m.startswith("session/request_permission: invalid value left out") for m in logged)
    assert any(m.endswith("at '/description'") for m in logged), logged
    assert any(m.endswith("at '/options/0/_meta'") for m in logged), logged


def test_a_strict_client_answers_the_permission_request_with_invalid_params(
    up240: ModuleType,
) -> None:
    outcomes = {}
    for strict in (False, True):
        outcomes[strict] = _lifecycle_client(up240, strict=strict, calls=_asks(5))
    assert outcomes[False] == ([SELECTED], [outcomes[False][1][0]])
    assert outcomes[True] == ([ERROR], [])


def test_a_permission_request_is_still_strict_where_unmarked(up240: ModuleType) -> None:
    def calls(session_id: str) -> list[Call]:
        ask = {"sessionId": session_id, "title": "Run it?", "options": [OPTION]}
        return [
            ("request", "session/request_permission", {**ask, "title": 5}),
            ("request", "session/request_permission", {**ask, "options": [{**OPTION, "kind": 5}]}),
            ("request", "session/request_permission", {**ask, "description": 5}),
        ]

    outcomes, seen = _lifecycle_client(up240, strict=False, calls=calls)
    assert outcomes == [ERROR, ERROR, SELECTED] and len(seen) == 1


def test_a_bad_account_of_an_auth_status_update_is_skipped(
    up240: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    good = {"label": "API key"}
    update = {"state": "authenticated", "accounts": [{"label": 5}, good]}

    def calls(session_id: str) -> list[Call]:
        return [
            ("notification", "auth/status_update", update),
            ("request", "session/request_permission", _asks(None)(session_id)[0][2]),
        ]

    with caplog.at_level(logging.WARNING):
        outcomes, seen = _lifecycle_client(up240, strict=False, calls=calls)
    assert outcomes == [None, SELECTED] and seen[0] == {**update, "accounts": [good]}
    assert "auth/status_update: invalid item skipped" in caplog.text
    assert "/accounts/0" in caplog.text
    outcomes, seen = _lifecycle_client(up240, strict=True, calls=calls)
    assert len(seen) == 1  # the update was dropped whole; the permission request was heard


# --- upstream v1: no lifecycle, and the fs / terminal requests ----------------------------


def _v1_client(module: ModuleType, *, strict: bool) -> tuple[Any, list[tuple[str, Any]]]:
    seen: list[tuple[str, Any]] = []
    models = module.models

    class Client(module.Client):  # type: ignore[name-defined,misc]
        async def fs_read_text_file(self, *, params: Any) -> Any:
            seen.append(("fs/read_text_file", _wire(module, params)))
            return models.ReadTextFileResponse(content="text")

        async def terminal_create(self, *, params: Any) -> Any:
            seen.append(("terminal/create", _wire(module, params)))
            return models.CreateTerminalResponse(terminal_id="t1")

    client = Client()
    client.strict = strict
    return client, seen


READ = {"sessionId": "s1", "path": "/a.txt"}


def test_a_v1_client_leaves_out_bad_marked_values_of_fs_and_terminal_requests(
    up_v1: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    create = {"sessionId": "s1", "command": "ls", "args": ["-l", 5], "env": [{"name": "A"}]}
    calls: list[Call] = [
        ("request", "fs/read_text_file", {**READ, "line": -1, "limit": "all"}),
        ("request", "terminal/create", create),
        ("request", "fs/read_text_file", {**READ, "path": 5}),  # no mark
    ]
    client, seen = _v1_client(up_v1, strict=False)
    with caplog.at_level(logging.WARNING):
        outcomes = _exchange(up_v1, client, calls)
    assert outcomes == [{"content": "text"}, {"terminalId": "t1"}, ERROR]
    assert seen == [
        ("fs/read_text_file", READ),
        ("terminal/create", {"sessionId": "s1", "command": "ls", "args": ["-l"], "env": []}),
    ]
    for where in ("/line", "/limit", "/args/1", "/env/0"):
        assert f"at {where!r}" in caplog.text, where
    client, seen = _v1_client(up_v1, strict=True)
    assert _exchange(up_v1, client, calls) == [ERROR, ERROR, ERROR] and seen == []


def _v1_agent(module: ModuleType, *, strict: bool) -> tuple[Any, list[Any]]:
    seen: list[Any] = []

    class Agent(module.Agent):  # type: ignore[name-defined,misc]
        async def session_new(self, *, params: Any) -> Any:
            seen.append(_wire(module, params))
            return module.models.NewSessionResponse(session_id="s1")

    agent = Agent()
    agent.strict = strict
    return agent, seen


def test_a_v1_agent_skips_a_bad_mcp_server_unless_strict(
    up_v1: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    good = {"name": "files", "command": "/bin/files", "args": [], "env": []}
    params = {"cwd": CWD, "mcpServers": [{"name": "no command"}, good]}
    outcomes = {}
    for strict in (False, True):
        agent, seen = _v1_agent(up_v1, strict=strict)
        with caplog.at_level(logging.WARNING):
            outcomes[strict] = (_exchange(up_v1, agent, [("request", "session/new", params)]), seen)
    assert outcomes[False] == ([{"sessionId": "s1"}], [{"cwd": CWD, "mcpServers": [good]}])
    assert outcomes[True] == ([ERROR], [])
    assert "session/new: invalid item skipped" in caplog.text and "/mcpServers/0" in caplog.text
