"""Child sessions (subagents) on a v1 connection: sent as v2 sends them to a v1 client that can
follow them, and kept off the wire whole for one that cannot.

v1 has child sessions only in upstream's unstable schema, behind the client's `subagents`
capability. A v1 client follows them (`V1Children.followed`) when both hold: v1's tables take a
`subagent_update` (a package generated with `--unstable`: `tables_take_subagents`) and the
client advertised `clientCapabilities.subagents`. Then a parent's `subagent_update`,
`session_message` and `session_message_chunk` go out as they are (v1's shape is v2's) and each
child's own updates under its sessionId, as on v2.

Otherwise nothing of a child reaches the v1 wire, since the client could place none of it: the
parent's three updates are not sent, the child an announcement names is `hidden`, and the
child's dialect (`HiddenChild`) sends none of its updates and answers its permission requests
`cancelled` without asking (no approval). Each is logged. The author's calls succeed and every
update is still kept in its session's history, so a later v2 `session/resume` replays it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, Final

from pydantic import ValidationError

from ..wire.checks import wire_check
from ..wire.jsonvalue import JsonObject, JsonValue
from ..wire.protocol import (
    SESSION_MESSAGE,
    SESSION_MESSAGE_CHUNK,
    SESSION_UPDATE,
    SUBAGENT_UPDATE,
    UPDATE_TAG_FIELD,
)

logger = logging.getLogger(__name__)

SUBAGENT_TAGS: Final = frozenset({SUBAGENT_UPDATE, SESSION_MESSAGE, SESSION_MESSAGE_CHUNK})
SUBAGENTS_CAPABILITY: Final = ("subagents",)  # in v1's `clientCapabilities`
# The least `subagent_update` v1's unstable types take: whether the tables know the variant.
_PROBE: Final = {"sessionId": "p", "update": {UPDATE_TAG_FIELD: SUBAGENT_UPDATE, "sessionId": "c"}}
CANCELLED: Final[JsonObject] = {"outcome": {"outcome": "cancelled"}}


def tables_take_subagents(client_specs: Sequence[Any]) -> bool:
    """Whether v1's tables (`client_specs`: what a client is sent, `MethodSpec` rows) take a
    `subagent_update`: they do when generated with `--unstable`."""
    for spec in client_specs:
        if spec.method == SESSION_UPDATE and spec.kind == "notification":
            try:
                wire_check(spec.params_type)(_PROBE)
            except ValidationError:
                return False
            return True
    return False


class V1Children:
    """One v1 connection's child sessions: whether its client follows them (`followed`), and
    the ids of those it was not told of (`hidden`, as dict keys: no set to track)."""

    __slots__ = ("followed", "hidden")

    def __init__(self, followed: bool) -> None:
        self.followed = followed
        self.hidden: dict[str, None] = {}

    def held(self, session_id: str, tag: str, fields: Mapping[str, Any]) -> list[JsonObject]:
        """Nothing to send for a subagent update (`tag`) of session `session_id` the client
        cannot follow (logged); the child an announcement names is hidden from then on."""
        child = fields.get("sessionId") if tag == SUBAGENT_UPDATE else None
        if isinstance(child, str):
            self.hidden[child] = None
        logger.debug(
            "v1 session %r: %s not sent (the client follows no child sessions)", session_id, tag
        )
        return []


class HiddenChild:
    """The dialect of a child session its v1 client was not told of: sends nothing (logged)."""

    __slots__ = ("session_id",)

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id

    async def send_update(self, update: JsonObject, *, replay: bool = False) -> None:
        logger.debug(
            "v1 child session %r: %s not sent (its client was not told of it)",
            self.session_id,
            update.get(UPDATE_TAG_FIELD),
        )

    def takes_plain_chunk(self, update: JsonObject) -> bool:
        return False  # to `send_update`, which sends nothing

    async def request_permission(self, params: Mapping[str, JsonValue]) -> JsonValue:
        """Not asked (the client knows no such session): no approval, as a cancelled ask."""
        logger.debug(
            "v1 child session %r: permission not asked, taken as cancelled", self.session_id
        )
        return CANCELLED
