"""Where v1 and v2 are put together, for the generated package to call with its tables.

The generated `Agent` and `Client` build v2's lifecycle (`AgentSide`, `ClientSide`) and hand it
here with v1's tables (`V1Tables`, from the generated `.v1` subpackage). Both sides are then
put together the same way: the v1 adapter is made over the lifecycle from the tables, and the
lifecycle's `versioned(v2)` routes each connection's messages to v2's checks or to the
adapter's (`checked()`), by the version its `initialize` settles on.

- agent: `versioned_agent` makes the `V1AgentSide` and returns `AgentSide.versioned`;
  `client_services` is what the author's typed v1 client services (`Agent.client_services`)
  send through.
- client: `v1_client_options` are `ClientSide`'s v1 arguments (the tables, from which it makes
  its `V1ClientWire`; the application's handlers of v1's client services, and which of them it
  overrides); the generated `Client` then returns `ClientSide.versioned`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

from ..agent.agent_side import AgentSide
from ..rpc.dispatch import Dispatcher, MethodTable, TableDispatcher, index_methods
from .agent_side import V1AgentSide
from .client_services import ServicesPeer
from .client_wire import V1Tables
from .constants import V1, WITH_V1

__all__ = [
    "V1",
    "WITH_V1",
    "V1ClientOptions",
    "V1Tables",
    "client_services",
    "overridden",
    "overrides",
    "v1_client_options",
    "versioned_agent",
]


def overridden(obj: object, base: type, handler: str) -> bool:
    """Whether `obj`'s class overrides `base`'s method `handler` (an author's typed handler)."""
    return getattr(type(obj), handler, None) is not getattr(base, handler, None)


def overrides(agent: object, base: type, specs: MethodTable, method: str) -> bool:
    """Whether `agent`'s class overrides `base`'s typed handler of request `method`."""
    spec = index_methods(specs).get((method, "request"))
    return spec is not None and overridden(agent, base, spec.handler)


# -- agent ----------------------------------------------------------------------------------------


def client_services(side: AgentSide) -> ServicesPeer:
    """The peer the typed v1 client services send through: only on a v1 connection, only
    what the client advertised (read from `side` at each call)."""
    return ServicesPeer(
        side.connection, lambda: side.protocol_version, lambda: side.client_capabilities
    )


def versioned_agent(
    side: AgentSide,
    v2: Dispatcher,
    tables: V1Tables,
    *,
    agent: object,
    base: type,
    typed: Dispatcher,
    specs: MethodTable,
) -> Dispatcher:
    """The connection's dispatcher: `v2` (`side` behind v2's checks) and, when `side` serves
    v1, a `V1AgentSide` over the same `side` behind v1's checks (`tables`, with the repairs of
    what an agent receives), chosen by the version `initialize` negotiates. v1's methods v2
    renamed (`authenticate`, `logout`, `session/set_mode`...) are served by `typed`, the
    handlers of `agent` (an instance of a subclass of `base`, the generated `Agent`) for v2's
    methods (`specs`), when `agent` overrides them."""
    if V1 not in side.protocol_versions:
        return v2
    v1 = V1AgentSide(
        side, tables, typed, serves=lambda method: overrides(agent, base, specs, method)
    )
    return side.versioned(v2, v1)


# -- client ---------------------------------------------------------------------------------------


class V1ClientOptions(TypedDict):
    """`ClientSide`'s v1 arguments (see there)."""

    v1: V1Tables | None
    v1_services: Dispatcher | None
    v1_handled: list[str]


def v1_client_options(
    client: object,
    base: type,
    handlers: Mapping[str, str],
    tables: V1Tables | None,
) -> V1ClientOptions:
    """`ClientSide`'s v1 arguments for `client` (an instance of a subclass of `base`, the
    generated `Client`): `tables` (None: v1 not accepted), the dispatcher of its handlers of
    v1's client services (`handlers`: method -> handler name), and the methods whose handler
    it overrides, which are advertised to v1 agents."""
    services = None
    if tables is not None:
        rows = [spec for spec in tables.client_specs if spec.method in handlers]
        services = TableDispatcher(rows, client)
    handled = [method for method, handler in handlers.items() if overridden(client, base, handler)]
    return {"v1": tables, "v1_services": services, "v1_handled": handled}
