"""The version rules, with no I/O: which protocol version a connection settles on, and which
version's dispatcher a message goes to.

At `initialize` (upstream's v2 schema): the agent answers the highest version it serves at or
below the one the client asked for; when it serves none, `initialize` fails with -32022 and
`{requested, supported}`. The version is read before anything else of the params, so a client
of another version never gets this version's validation errors.

Before `initialize`: the session methods are refused (-32600, `check_initialized`).

Routing: until a version is settled every message goes to the default version's dispatcher,
except an `initialize` on a connection that negotiates: it goes to the version it will settle
on, so a v1 client's `initialize` is checked against v1's types. Once settled, everything goes
to the settled version (rpc/version_router.py is the adapter that does the routing).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Final

from ..wire.errors import RpcError

UNSUPPORTED_PROTOCOL_VERSION: Final = -32022
PROTOCOL_VERSION_FIELD: Final = "protocolVersion"
INITIALIZE_FIRST: Final = "initialize must come first"
_MAX_VERSION: Final = 65535  # upstream's ProtocolVersion is a uint16


def requested_version(params: object) -> int:
    """The version a client's `initialize` params ask for; -32602 when it is not one."""
    requested = params.get(PROTOCOL_VERSION_FIELD) if isinstance(params, dict) else None
    if (
        not isinstance(requested, int)
        or isinstance(requested, bool)
        or not 0 <= requested <= _MAX_VERSION
    ):
        raise RpcError.invalid_params(
            [
                {
                    "loc": [PROTOCOL_VERSION_FIELD],
                    "msg": f"{PROTOCOL_VERSION_FIELD} must be an integer from 0 to {_MAX_VERSION}",
                    "type": "protocol_version",
                }
            ]
        )
    return requested


def negotiate(params: object, supported: Sequence[int]) -> int:
    """The version to serve for these `initialize` params (see above); raises `RpcError`."""
    requested = requested_version(params)
    served = [version for version in supported if version <= requested]
    if not served:
        raise RpcError(
            UNSUPPORTED_PROTOCOL_VERSION,
            f"protocol version {requested} is not supported; this agent serves "
            f"{', '.join(map(str, sorted(supported)))}",
            {"requested": requested, "supported": sorted(supported)},
        )
    return max(served)


def check_initialized(initialized: bool) -> None:
    """Before `initialize` was answered nothing about a session means anything (no version is
    settled): a session method is refused with -32600."""
    if not initialized:
        raise RpcError.invalid_request(INITIALIZE_FIRST)


def routed_version(settled: int | None, default: int) -> int:
    """The version whose dispatcher takes a message other than a negotiating `initialize`."""
    return default if settled is None else settled


def initialize_version(
    settled: int | None, default: int, will_settle_on: int | None, served: Collection[int]
) -> int:
    """The version whose dispatcher takes an `initialize`: before a version is settled, the
    one it will settle on (`will_settle_on`, None when this side does not negotiate) if
    served; otherwise the routed version."""
    if settled is None and will_settle_on is not None and will_settle_on in served:
        return will_settle_on
    return routed_version(settled, default)
