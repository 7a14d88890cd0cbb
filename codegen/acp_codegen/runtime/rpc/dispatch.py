"""Route incoming calls to Python handlers: the `Dispatcher` hook and a table-driven one.

A `Connection` only needs a `Dispatcher`. `TableDispatcher` is the one generated code uses: it
looks the method up in a `MethodSpec` table, validates params with the spec's type (a model
class or a union alias, via `wire.from_wire`; a failure becomes -32602 naming the offending
field) and awaits `handler.<spec.handler>(params=<model>)`. Extension methods (`_` prefix)
not in the table go to `handler.ext_method(method, params)` /
`handler.ext_notification(method, params)` when the handler has them.

`ValidatingDispatcher` puts the same tables' checks (and tolerant repairs) in front of a
dispatcher that works on wire JSON (the lifecycles), handing on the params it checked. A
dispatcher may also offer synchronous notification handlers (`inline_notifications`) and name
the requests it answers without suspending (`synchronous_requests`); the connection uses
both to skip a coroutine or a task per message.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from enum import Enum
from typing import Final, Protocol, TypeAlias

from pydantic import ValidationError

from ..wire.checks import Check, pre_check, wire_check
from ..wire.convert import from_wire, to_wire
from ..wire.errors import Problem, RpcError
from ..wire.jsonvalue import JsonParams, non_finite_location
from ..wire.tables import MethodSpec
from ..wire.tolerant import ParamsRepair

logger = logging.getLogger(__name__)

EXTENSION_PREFIX = "_"


class Dispatcher(Protocol):
    async def handle_request(self, method: str, params: JsonParams) -> object:
        """Return the result (a pydantic model or JSON data); raise `RpcError` to answer with
        that error (`RpcError.method_not_found(method)` for methods this side lacks)."""
        ...

    async def handle_notification(self, method: str, params: JsonParams) -> None:
        """Handle a notification; unknown ones should be ignored. Runs inline in the reader
        loop, so it must not await a response from the peer (spawn a task for that)."""
        ...


MethodTable: TypeAlias = Mapping[str, MethodSpec] | Iterable[MethodSpec]

# A synchronous notification handler (see `inline_notifications`).
InlineHandler: TypeAlias = Callable[[JsonParams], object]
# A table method's handler: generated handlers take their params model as one keyword argument.
Handler: TypeAlias = Callable[..., Awaitable[object]]
# An extension hook (`ext_method` / `ext_notification`): the method and its raw params.
ExtensionHook: TypeAlias = Callable[[str, JsonParams], Awaitable[object]]


def inline_notifications(dispatcher: object) -> dict[str, InlineHandler]:
    """The notifications `dispatcher` can handle synchronously, by method.

    A dispatcher may offer `inline_notifications()`: handlers that do, without awaiting, exactly
    what `await handle_notification(method, params)` would do. The connection calls them
    directly for the bulk of the traffic (`session/update` on a client): a coroutine per hop
    of the dispatcher chain was most of the time spent on each update outside its validation
    and merge. Dispatchers without the method are always awaited."""
    offer = getattr(dispatcher, "inline_notifications", None)
    if offer is None:
        return {}
    handlers: dict[str, InlineHandler] = offer()
    return dict(handlers)


def synchronous_requests(dispatcher: object) -> frozenset[str]:
    """The requests `dispatcher` answers without ever suspending and without running an
    author's code, by method: the connection drives their handling within the read that
    brought them, without a task (see `IncomingMessages`). A dispatcher may offer
    `synchronous_requests()`; without it every request runs as a task."""
    offer = getattr(dispatcher, "synchronous_requests", None)
    if offer is None:
        return frozenset()
    methods: frozenset[str] = frozenset(offer())
    return methods


def index_methods(methods: MethodTable) -> dict[tuple[str, str], MethodSpec]:
    """Rows by (wire name, kind): one name may be both a request and a notification."""
    rows = methods.values() if isinstance(methods, Mapping) else methods
    return {(spec.method, spec.kind): spec for spec in rows}


def validation_problems(error: ValidationError) -> list[Problem]:
    """The JSON-safe part of pydantic's errors: where (loc), what (msg) and which check (type)."""
    return [
        {"loc": list(item["loc"]), "msg": item["msg"], "type": item["type"]}
        for item in error.errors(include_url=False)
    ]


class TableDispatcher:
    """Dispatch by a `MethodSpec` table to coroutine methods of `handler`.

    Lookup order: the table (when the handler has the spec's method), then `fallback`, then the
    handler's `ext_method`/`ext_notification` for `_` methods. Otherwise requests get -32601
    and notifications are dropped.
    """

    def __init__(
        self,
        methods: MethodTable,
        handler: object,
        *,
        fallback: Dispatcher | None = None,
    ) -> None:
        self._methods = index_methods(methods)
        self._handler = handler
        self._fallback = fallback

    def _lookup(self, method: str, kind: str) -> tuple[MethodSpec, Handler] | None:
        spec = self._methods.get((method, kind))
        if spec is None:
            return None
        function: Handler | None = getattr(self._handler, spec.handler, None)
        return None if function is None else (spec, function)

    def _extension(self, method: str, hook: str) -> ExtensionHook | None:
        if not method.startswith(EXTENSION_PREFIX):
            return None
        function: ExtensionHook | None = getattr(self._handler, hook, None)
        return function

    async def handle_request(self, method: str, params: JsonParams) -> object:
        found = self._lookup(method, "request")
        if found is None:
            if self._fallback is not None:
                return await self._fallback.handle_request(method, params)
            extension = self._extension(method, "ext_method")
            if extension is not None:
                return await extension(method, params)
            raise RpcError.method_not_found(method)
        spec, function = found
        try:
            model = from_wire(spec.params_type, params)
        except ValidationError as error:
            raise RpcError.invalid_params(validation_problems(error)) from None
        # Generated handlers take their params as one keyword-only argument.
        return to_wire(await function(params=model), spec.result_type)

    async def handle_notification(self, method: str, params: JsonParams) -> None:
        found = self._lookup(method, "notification")
        if found is None:
            if self._fallback is not None:
                await self._fallback.handle_notification(method, params)
                return
            extension = self._extension(method, "ext_notification")
            if extension is not None:
                await extension(method, params)
            else:
                logger.debug("ignoring notification %r: no handler", method)
            return
        spec, function = found
        try:
            model = from_wire(spec.params_type, params)
        except ValidationError as error:
            logger.warning("dropping notification %r with invalid params: %s", method, error)
            return
        await function(params=model)


class _Dropped(Enum):
    """`ValidatingDispatcher._checked`'s answer when the params did not fit."""

    DROPPED = "dropped"


_DROPPED: Final = _Dropped.DROPPED
_NOT_FINITE = "number out of range: JSON here must be a finite double"


class ValidatingDispatcher:
    """Checks the params of table methods against their types, then hands the raw params on.

    Lifecycle dispatchers (`AgentSide`, `ClientSide`) work on wire JSON; this puts the schema's
    types in front of them, so a malformed `session/prompt` is -32602 with the field's location.
    `repairs` (notifications) and `request_repairs` (requests), by method, may turn params that
    fail the check into valid ones (tolerant reading; each logs what it did): the inner
    dispatcher gets the repaired params, and what they cannot repair is dropped or -32602.
    """

    def __init__(
        self,
        methods: MethodTable,
        inner: Dispatcher,
        repairs: Mapping[str, ParamsRepair] | None = None,
        *,
        request_repairs: Mapping[str, ParamsRepair] | None = None,
        screen: Callable[[str, JsonParams], None] | None = None,
    ) -> None:
        self._methods = index_methods(methods)
        # Checks of a request that come before its params are validated (e.g. the version an
        # `initialize` asks for, so a client of another version gets -32022, not -32602).
        self._screen = screen
        # Params types of notifications by name: looked up for every update a client receives.
        self._notification_types = {
            method: spec.params_type
            for (method, kind), spec in self._methods.items()
            if kind == "notification"
        }
        # Their checks, built on first use (`wire_check`: no model instances built).
        self._notification_checks: dict[str, Check] = {}
        self.inner = inner
        # Notifications whose params may be repaired instead of dropped (tolerant reading).
        self._repairs = dict(repairs or {})
        # Requests whose params may be repaired instead of answered with -32602.
        self._request_repairs = dict(request_repairs or {})

    async def handle_request(self, method: str, params: JsonParams) -> object:
        spec = self._methods.get((method, "request"))
        if self._screen is not None:
            self._screen(method, params)
        if spec is not None:
            try:
                wire_check(spec.params_type)({} if params is None else params)
            except ValidationError as error:
                repair = self._request_repairs.get(method)
                fixed = repair(params, error) if repair is not None else None
                if fixed is None:
                    raise RpcError.invalid_params(validation_problems(error)) from None
                params = fixed
            out_of_range = non_finite_location(params)
            if out_of_range is not None:  # its answer or echo could never be written
                problem: Problem = {
                    "loc": out_of_range,
                    "msg": _NOT_FINITE,
                    "type": "finite_number",
                }
                raise RpcError.invalid_params([problem])
        return await self.inner.handle_request(method, params)

    async def handle_notification(self, method: str, params: JsonParams) -> None:
        checked = self._checked(method, params)
        if checked is not _DROPPED:
            await self.inner.handle_notification(method, checked)

    def synchronous_requests(self) -> frozenset[str]:
        """The inner dispatcher's (the checks in front of them never suspend)."""
        return synchronous_requests(self.inner)

    def inline_notifications(self) -> dict[str, InlineHandler]:
        """The inner dispatcher's synchronous handlers, each behind the same check."""
        return {
            method: self._inline(method, handler)
            for method, handler in inline_notifications(self.inner).items()
        }

    def _inline(self, method: str, handler: InlineHandler) -> InlineHandler:
        if method not in self._notification_types:
            return handler
        pre = pre_check(self._notification_types[method])  # no frame of ours when it passes
        checked = self._checked

        def check_then_handle(params: JsonParams) -> None:
            try:
                pre({} if params is None else params)
            except Exception:  # the fast form's verdict is not final: the full check decides
                outcome = checked(method, params)  # checks again, then repairs or drops
                if outcome is _DROPPED:
                    return
                params = outcome
            handler(params)

        return check_then_handle

    def _check_of(self, method: str) -> Check:
        check = self._notification_checks.get(method)
        if check is None:
            check = wire_check(self._notification_types[method])
            self._notification_checks[method] = check
        return check

    def _checked(self, method: str, params: JsonParams) -> JsonParams | _Dropped:
        """`params` when they fit the method's type (or repaired params), else `_DROPPED`."""
        if method not in self._notification_types:
            return params
        try:
            # As `from_wire`: missing params are {}.
            self._check_of(method)({} if params is None else params)
        except ValidationError as error:
            repair = self._repairs.get(method)
            fixed = repair(params, error) if repair is not None else None
            if fixed is None:
                logger.warning("dropping notification %r with invalid params: %s", method, error)
                return _DROPPED
            return fixed
        return params
