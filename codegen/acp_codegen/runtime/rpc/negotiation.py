"""Protocol version negotiation at `initialize`: the rules live in the core
(`core.versions`); this module names them where the lifecycles and generated agents have
always imported them from."""

from __future__ import annotations

from ..core.versions import (
    PROTOCOL_V1,
    PROTOCOL_VERSION_FIELD,
    UNSUPPORTED_PROTOCOL_VERSION,
    negotiate,
    requested_version,
)

__all__ = [
    "PROTOCOL_V1",
    "PROTOCOL_VERSION_FIELD",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "negotiate",
    "requested_version",
]
