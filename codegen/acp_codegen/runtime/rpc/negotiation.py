"""Protocol version negotiation at `initialize`, as upstream's v2 schema specifies it: the agent
answers the highest version it serves at or below the one the client asked for; when it serves
none, `initialize` fails with -32022 and `{requested, supported}`. The version is read before
anything else of the params, so a client of another version never gets this version's
validation errors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from ..wire.errors import RpcError

UNSUPPORTED_PROTOCOL_VERSION: Final = -32022
PROTOCOL_VERSION_FIELD: Final = "protocolVersion"
_MAX_VERSION: Final = 65535  # upstream's ProtocolVersion is a uint16


def requested_version(params: Any) -> int:
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


def negotiate(params: Any, supported: Sequence[int]) -> int:
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
