"""Tolerant reading of results: the answers a side reads back to the requests it sent. The
`x-deserialize-*` marks on result types are in the generated table, and the typed proxies
(`AgentProxy`, `ClientProxy`) repair a result that fails validation where the marks allow,
logging each repair; with `strict` (or where no mark covers the error) the call raises the
same pydantic ValidationError it always did. Each test shows a repair, so each fails when the
proxies do not repair results."""

from __future__ import annotations

import logging
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from pydantic import ValidationError
from runtime.streams import run
from tolerant_widgets import linked


class Answers:
    """The far end: answers each request with the result given for its method."""

    def __init__(self, results: dict[str, Any]) -> None:
        self.results = results

    async def handle_request(self, method: str, params: Any) -> Any:
        return self.results[method]

    async def handle_notification(self, method: str, params: Any) -> None:
        return None


def _call(
    module: ModuleType, side: Any, results: dict[str, Any], call: Callable[[Any], Any]
) -> Any:
    """Connect `side` (a Client or Agent of `module`) to `Answers(results)` and return what
    `call(side)` (a typed proxy call) returns, or the ValidationError it raises."""

    async def main() -> Any:
        async with linked(module) as (ours, theirs):
            ours.dispatcher = side.dispatcher(ours)
            theirs.dispatcher = Answers(results)
            ours.start()
            theirs.start()
            try:
                return await call(side)
            except ValidationError as error:
                return error

    return run(main())


def _wire(module: ModuleType, model: Any) -> Any:
    wire: Any = __import__(f"{module.__name__}._runtime.wire.convert", fromlist=["to_wire"])
    return wire.to_wire(model)


def _from_wire_error(module: ModuleType, tp: Any, data: Any) -> ValidationError:
    """The error the proxies raised before results were repaired: plain `from_wire`."""
    wire: Any = __import__(f"{module.__name__}._runtime.wire.convert", fromlist=["from_wire"])
    with pytest.raises(ValidationError) as caught:
        wire.from_wire(tp, data)
    return caught.value


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


# --- the table ---------------------------------------------------------------------------


def test_result_repairs_cover_exactly_the_results_that_lead_to_a_mark(
    widgets: ModuleType,
) -> None:
    tolerance = widgets.tolerance
    assert set(tolerance.client_result_repairs()) == {"widget/open"}  # not `widget/plain`
    assert set(tolerance.agent_result_repairs()) == {"widget/ask"}  # not `widget/peek`
    classes = tolerance.TOLERANCE.classes
    assert "PlainWidgetResponse" not in classes and "PeekWidgetResponse" not in classes
    opened = classes["OpenWidgetResponse"]
    assert set(opened) == {"tags", "server"}  # `count` leads to no mark
    assert opened["tags"].default_on_null and opened["server"].type == "Server"
    assert set(classes["AskWidgetResponse"]) == {"note"}
    # ... and the client's proxy uses it.
    answer = _open(widgets, strict=False, result={"tags": None})
    assert isinstance(answer, widgets.models.OpenWidgetResponse)


# --- the widget schema: a client's and an agent's proxy ----------------------------------


OPENED_WITH_NULLS = {"tags": None, "server": {"name": "s", "args": None}, "count": 1}


def _open(module: ModuleType, *, strict: bool, result: Any) -> Any:
    client = module.Client()
    client.strict = strict
    params = module.models.OpenWidgetRequest(path="/p")
    return _call(module, client, {"widget/open": result}, lambda c: c.agent.widget_open(params))


def test_a_client_reads_the_marked_nulls_of_a_result_as_absent(
    widgets: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        answer = _open(widgets, strict=False, result=OPENED_WITH_NULLS)
    assert isinstance(answer, widgets.models.OpenWidgetResponse)
    assert _wire(widgets, answer) == {"server": {"name": "s"}, "count": 1}
    logged = _warnings(caplog)
    for where in ("/tags", "/server/args"):
        assert any(
            m.startswith("widget/open result: null read as absent") and m.endswith(f"at {where!r}")
            for m in logged
        ), logged


def test_a_strict_client_raises_on_the_marked_nulls_as_before(widgets: ModuleType) -> None:
    outcomes = {
        strict: _open(widgets, strict=strict, result=OPENED_WITH_NULLS) for strict in (False, True)
    }
    assert isinstance(outcomes[False], widgets.models.OpenWidgetResponse)
    error = outcomes[True]
    assert isinstance(error, ValidationError)
    before = _from_wire_error(widgets, widgets.models.OpenWidgetResponse, OPENED_WITH_NULLS)
    assert error.title == before.title and error.errors() == before.errors()


def test_what_no_mark_covers_raises_the_error_as_before(widgets: ModuleType) -> None:
    results = [
        {"count": "many"},  # no mark
        {"tags": 5},  # default-on-null covers only null
        {"tags": [None]},  # nor an item of the list
        {"tags": None, "count": "many"},  # a repair cannot cover it all
        {"tags": None, "count": 3},  # while the mark is still honoured
    ]
    outcomes = [_open(widgets, strict=False, result=result) for result in results]
    for result, error in zip(results[:-1], outcomes[:-1], strict=True):
        assert isinstance(error, ValidationError), result
        before = _from_wire_error(widgets, widgets.models.OpenWidgetResponse, result)
        assert error.errors() == before.errors()
    assert _wire(widgets, outcomes[-1]) == {"count": 3}


def test_an_agent_leaves_out_a_bad_marked_value_of_a_result_unless_strict(
    widgets: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    outcomes = {}
    for strict in (False, True):
        agent = widgets.Agent()
        agent.strict = strict
        params = widgets.models.AskWidgetRequest(label="a")
        with caplog.at_level(logging.WARNING):
            outcomes[strict] = _call(
                widgets,
                agent,
                {"widget/ask": {"note": 5, "count": 2}},
                lambda a, params=params: a.client.widget_ask(params),
            )
    assert _wire(widgets, outcomes[False]) == {"count": 2}
    assert isinstance(outcomes[True], ValidationError)
    assert any(
        m.startswith("widget/ask result: invalid value left out") and m.endswith("at '/note'")
        for m in _warnings(caplog)
    )


# --- upstream sdk 2.4.0: a terminal auth method in the initialize result ------------------


TERMINAL = {"type": "terminal", "methodId": "tui", "name": "Log in", "args": None, "env": None}
AGENT = {"type": "agent", "methodId": "key", "name": "API key"}
INITIALIZED = {
    "protocolVersion": 2,
    "info": {"name": "agent", "version": "1"},
    "authMethods": [TERMINAL, AGENT],
}


def _initialize(module: ModuleType, *, strict: bool) -> Any:
    client = module.Client()
    client.strict = strict
    models = module.models
    params = models.InitializeRequest(
        protocol_version=2, info=models.Implementation(name="client", version="1")
    )
    return _call(module, client, {"initialize": INITIALIZED}, lambda c: c.agent.initialize(params))


def test_a_client_reads_null_args_and_env_of_a_terminal_auth_method_as_absent(
    v240: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        answer = _initialize(v240, strict=False)
    assert isinstance(answer, v240.models.InitializeResponse)
    terminal, agent = answer.auth_methods
    assert _wire(v240, terminal) == {
        "type": "terminal",
        "methodId": "tui",
        "name": "Log in",
    }
    assert _wire(v240, agent) == AGENT  # the other method is kept as it was
    logged = _warnings(caplog)
    for where in ("/authMethods/0/args", "/authMethods/0/env"):
        assert any(
            m.startswith("initialize result: null read as absent") and m.endswith(f"at {where!r}")
            for m in logged
        ), logged


def test_a_strict_client_fails_on_the_initialize_result_as_before(v240: ModuleType) -> None:
    assert isinstance(_initialize(v240, strict=False), v240.models.InitializeResponse)
    error = _initialize(v240, strict=True)
    assert isinstance(error, ValidationError)
    before = _from_wire_error(v240, v240.models.InitializeResponse, INITIALIZED)
    assert error.title == before.title and error.errors() == before.errors()
