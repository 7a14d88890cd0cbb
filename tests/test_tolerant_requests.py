"""Tolerant reading of what an agent receives: the `x-deserialize-*` marks on the params of
requests and notifications the agent handles are in the generated table, and the generated
`Agent` repairs such params (logging each repair) before its lifecycle and handlers see them,
unless `strict`. What no mark covers is still -32602."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Mapping
from typing import Any

import pytest
from acp_codegen.runtime.rpc.dispatch import ValidatingDispatcher
from acp_codegen.runtime.wire.errors import RpcError
from acp_codegen.runtime.wire.tables import MethodSpec
from conftest import GeneratedPackage
from pydantic import ValidationError
from runtime.streams import run, stream_pair

CWD = "/work"


# --- the table ---------------------------------------------------------------------------


def test_agent_repairs_cover_exactly_the_received_params_that_lead_to_a_mark(widgets: Any) -> None:
    tolerance = widgets.tolerance
    assert set(tolerance.agent_request_repairs()) == {"widget/open"}
    assert set(tolerance.agent_notification_repairs()) == {"widget/poke"}
    assert set(tolerance.params_repairs()) == {"session/update"}  # the client's, as before
    classes = tolerance.TOLERANCE.classes
    assert "PlainWidgetRequest" not in classes and "Plain" not in classes
    opening = classes["OpenWidgetRequest"]
    assert set(opening) == {"tags", "server"}  # only the paths that lead to a mark
    assert opening["tags"].default_on_null and not opening["tags"].default_on_error
    assert opening["server"].type == "Server" and not opening["server"].default_on_null
    assert classes["Server"]["args"].default_on_null


def test_the_upstream_table_reaches_the_session_set_up_marks(up240: Any) -> None:
    tolerance = up240.tolerance
    table = tolerance.TOLERANCE
    requests = tolerance.agent_request_repairs()
    assert {"session/new", "session/resume", "session/fork"} <= set(requests)
    assert "session/request_permission" not in requests  # marked, but the client receives it
    assert "session/cancel" in tolerance.agent_notification_repairs()
    servers = table.classes["NewSessionRequest"]["mcpServers"]
    assert servers.default_on_null and servers.type == "McpServer"
    assert table.unions["McpServer"]["stdio"] == "McpServerStdio"
    tolerant = importlib.import_module(f"{up240.__name__}._runtime.wire.tolerant")
    # Through the server union down to a stdio server's args; an item of it is not covered.
    repair = tolerant.plan_repair(table, ("mcpServers", 0, "stdio", "args"), "NewSessionRequest")
    assert (repair.path, repair.when_null) == (("mcpServers", 0, "args"), True)
    assert (
        tolerant.plan_repair(table, ("mcpServers", 0, "stdio", "args", 1), "NewSessionRequest")
        is None
    )
    assert tolerant.plan_repair(table, ("cwd",), "NewSessionRequest") is None


# --- the dispatcher ----------------------------------------------------------------------


class Recorder:
    def __init__(self) -> None:
        self.requests: list[tuple[str, Any]] = []

    async def handle_request(self, method: str, params: Any) -> Any:
        self.requests.append((method, params))
        return {}

    async def handle_notification(self, method: str, params: Any) -> None:
        return None


SPEC = MethodSpec("note/count", "agent", "request", dict[str, int], None, "count")


def _digits(params: Any, error: ValidationError) -> Any | None:
    """Repairs digit strings (and nothing else)."""
    if not isinstance(params, dict) or not all(isinstance(v, (int, str)) for v in params.values()):
        return None
    if not all(isinstance(v, int) or v.isdigit() for v in params.values()):
        return None
    return {k: int(v) for k, v in params.items()}


def test_the_inner_dispatcher_gets_the_repaired_request_params() -> None:
    inner = Recorder()
    dispatcher = ValidatingDispatcher([SPEC], inner, request_repairs={"note/count": _digits})

    async def scenario() -> int:
        await dispatcher.handle_request("note/count", {"a": 1})
        await dispatcher.handle_request("note/count", {"a": "2"})
        with pytest.raises(RpcError) as raised:
            await dispatcher.handle_request("note/count", {"a": "x"})
        return raised.value.code

    assert run(scenario()) == -32602
    assert inner.requests == [("note/count", {"a": 1}), ("note/count", {"a": 2})]


def test_notification_repairs_do_not_apply_to_a_request_of_the_same_name() -> None:
    inner = Recorder()
    dispatcher = ValidatingDispatcher([SPEC], inner, {"note/count": _digits})

    async def scenario() -> None:
        await dispatcher.handle_request("note/count", {"a": "2"})

    with pytest.raises(RpcError) as raised:
        run(scenario())
    assert raised.value.code == -32602 and inner.requests == []


# --- a generated agent -------------------------------------------------------------------


def _errors(module: Any) -> Any:
    return importlib.import_module(f"{module.__name__}._runtime.wire.errors")


def _new_session(module: Any, params: dict[str, Any], *, strict: bool) -> tuple[Any, list[Any]]:
    """(the `session/new` answer or the RpcError, the setup params the agent's session got)."""
    seen: list[Any] = []

    class Agent(module.Agent):  # type: ignore[misc]
        async def on_prompt(self, session: Any, prompt: Any) -> str | None:
            return None

        async def on_new_session(self, session: Any) -> Mapping[str, Any] | None:
            seen.append(session.engine.setup)
            return None

    agent = Agent()
    agent.strict = strict

    async def main() -> Any:
        # The package's own runtime on both ends: it knows the package's RpcError.
        connection_type = importlib.import_module(f"{module.__name__}._runtime.rpc.connection")
        (ra, wa), (rb, wb) = await stream_pair()
        connection = connection_type.Connection(ra, wa)
        served = connection_type.Connection(rb, wb)
        client = module.Client()
        connection.dispatcher = client.dispatcher(connection)
        served.dispatcher = agent.dispatcher(served)
        connection.start()
        served.start()
        try:
            await client.lifecycle.initialize()
            return await connection.request("session/new", params)
        except _errors(module).RpcError as error:
            return error
        finally:
            await connection.close()
            await served.close()

    return run(main()), seen


STDIO = {"type": "stdio", "name": "files", "command": "mcp-files"}


def test_a_null_marked_array_in_session_new_is_read_as_absent(
    up240: Any, caplog: pytest.LogCaptureFixture
) -> None:
    params = {"cwd": CWD, "mcpServers": None, "additionalDirectories": None}
    with caplog.at_level(logging.WARNING):
        answer, seen = _new_session(up240, params, strict=False)
    assert isinstance(answer, dict) and answer["sessionId"], answer
    assert seen == [{"cwd": CWD}]  # the lifecycle got the repaired params
    logged = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(
        "session/new" in m and "null read as absent" in m and "/mcpServers" in m for m in logged
    )
    assert any("/additionalDirectories" in m for m in logged)


def test_a_null_nested_in_a_server_is_read_as_absent(
    up240: Any, caplog: pytest.LogCaptureFixture
) -> None:
    params = {"cwd": CWD, "mcpServers": [{**STDIO, "args": None, "env": None}]}
    with caplog.at_level(logging.WARNING):
        answer, seen = _new_session(up240, params, strict=False)
    assert isinstance(answer, dict) and answer["sessionId"], answer
    assert seen == [{"cwd": CWD, "mcpServers": [STDIO]}]
    assert "/mcpServers/0/args" in caplog.text and "/mcpServers/0/env" in caplog.text


def test_a_strict_agent_answers_the_null_with_invalid_params(up240: Any) -> None:
    answer, seen = _new_session(up240, {"cwd": CWD, "mcpServers": None}, strict=True)
    assert isinstance(answer, _errors(up240).RpcError), answer
    assert answer.code == -32602 and seen == []
    assert [p["loc"] for p in answer.data] == [["mcpServers"]]


@pytest.mark.parametrize(
    ("params", "loc"),
    [
        ({"cwd": 5}, ["cwd"]),  # no mark
        ({"cwd": CWD, "mcpServers": 5}, ["mcpServers"]),  # default-on-null covers only null
        ({"cwd": CWD, "mcpServers": [{**STDIO, "args": [None]}]}, None),  # an item of args
    ],
)
def test_what_no_mark_covers_is_still_invalid_params(
    up240: Any, params: dict[str, Any], loc: list[Any] | None
) -> None:
    answer, seen = _new_session(up240, params, strict=False)
    assert isinstance(answer, _errors(up240).RpcError), answer
    assert answer.code == -32602 and seen == []
    if loc is not None:
        assert loc in [p["loc"] for p in answer.data]


def test_our_schema_reads_mcp_servers_as_upstream_2_4_0_marks_them(
    canonical: GeneratedPackage, caplog: pytest.LogCaptureFixture
) -> None:
    """schema/acp.schema.json marks `mcpServers` as upstream 2.4.0 does: a `null` list is read
    as absent, but a bad server is no longer skipped (2.4.0 dropped that mark): -32602."""
    good = {"type": "stdio", "name": "files", "command": "/bin/files"}
    with caplog.at_level(logging.WARNING):
        answer, seen = _new_session(
            canonical.module, {"cwd": CWD, "mcpServers": None}, strict=False
        )
    assert isinstance(answer, dict) and seen == [{"cwd": CWD}], answer
    params = {"cwd": CWD, "mcpServers": [{"type": "stdio", "name": "no command"}, good]}
    answer, seen = _new_session(canonical.module, params, strict=False)
    assert isinstance(answer, _errors(canonical.module).RpcError) and answer.code == -32602
    assert seen == []
