"""Which connection a session serves, and what every other connection may do with it.

An agent served remotely shares its sessions between its connections (session_store.py), and
one bearer token admits every client alike; still, a session serves only the connection it is
*attached to*, its owner: the one that opened it (`session/new`), or last resumed it
(`session/resume`, v1's `session/load`). On stdio the one connection owns every session.

- A request whose params name a session (`sessionId`) attached to another live connection is
  refused with -32002 (as an unknown session is), the message saying how to take it over; a
  notification (`session/cancel`, an extension's) cannot be answered: it is ignored and
  logged. That holds for every method, v1 and v2, the author's typed handlers included,
  except `session/resume` and `session/load`, which take the session over.
- A detached session (its connection ended) serves nobody until it is resumed: only resume
  and load (which attach it), `session/close` (it is closed already) and `session/delete` are
  served for it; anything else is refused with -32002 "resume it first".
- `session/list` shows a connection its own sessions and the detached ones (which it may
  resume), never those attached to another live connection: their ids, directories and titles
  are that client's business.
- Taking a session over is explicit and told: the work the old owner was running is cancelled
  (it ends `cancelled` there, its permission requests withdrawn), then the old connection gets
  `taken_over_notice()` for the session, and from then on the session's messages go to the new
  one. Our client marks the session closed on that notice (`ClientSession.taken_over`).
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Final

from pydantic import ValidationError

from ..rpc.outgoing_checks import OutgoingChecks
from ..rpc.peer import Peer
from ..wire.errors import ConnectionClosed, ErrorCode, RpcError
from ..wire.protocol import (
    NOTICE,
    SESSION_CLOSE,
    SESSION_DELETE,
    SESSION_RESUME,
    SESSION_UPDATE,
    TAKEN_OVER_META,
    UPDATE_TAG_FIELD,
)
from .agent_session import AgentSession

logger = logging.getLogger(__name__)

SESSION_LOAD: Final = "session/load"  # v1's resume with replay
TAKE_OVER: Final = frozenset({SESSION_RESUME, SESSION_LOAD})
SERVED_DETACHED: Final = TAKE_OVER | {SESSION_CLOSE, SESSION_DELETE}
ATTACHED_ELSEWHERE: Final = (
    "Session is attached to another connection; session/resume (session/load on v1) "
    "takes it over"
)
DETACHED: Final = "Session is detached (its connection ended); resume it first"


def live(peer: Peer | None) -> bool:
    """Whether `peer` is a connection still open (a peer without `closed` is taken as open)."""
    return peer is not None and not getattr(peer, "closed", False)


def visible_to(session: AgentSession, peer: Peer) -> bool:
    """Whether `session/list` on `peer` shows `session`: its own, or detached."""
    return session.owner is peer or not live(session.owner)


def refusal(session: AgentSession, method: str, peer: Peer) -> RpcError | None:
    """Why `peer` may not send `method` naming `session` (None: it may)."""
    owner = session.owner
    if owner is peer or method in TAKE_OVER:
        return None
    if live(owner):
        return RpcError(
            ErrorCode.RESOURCE_NOT_FOUND, ATTACHED_ELSEWHERE, {"sessionId": session.session_id}
        )
    if method in SERVED_DETACHED:
        return None
    return RpcError(ErrorCode.RESOURCE_NOT_FOUND, DETACHED, {"sessionId": session.session_id})


def invalid(loc: list[str | int], message: str) -> RpcError:
    return RpcError.invalid_params([{"loc": loc, "msg": message, "type": "value_error"}])


def unknown_session(session_id: str, why: str = "Unknown session") -> RpcError:
    return RpcError(ErrorCode.RESOURCE_NOT_FOUND, why, {"sessionId": session_id})


def session_id_of(params: Any) -> str:
    """The `sessionId` a request's params name (-32602 when it is not a string)."""
    session_id = params.get("sessionId") if isinstance(params, dict) else None
    if not isinstance(session_id, str):
        raise invalid(["sessionId"], "sessionId must be a string")
    return session_id


def session_named(params: Any, sessions: dict[str, AgentSession]) -> AgentSession | None:
    """The known session `params` name by `sessionId` (None: none, or one not known here)."""
    session_id = params.get("sessionId") if isinstance(params, dict) else None
    return sessions.get(session_id) if isinstance(session_id, str) else None


def ignored(method: str, session: AgentSession) -> None:
    logger.warning(
        "%s for session %s ignored: the session is not attached to this connection",
        method,
        session.session_id,
    )


def taken_over_notice() -> dict[str, Any]:
    """What the old connection of a session taken over is told (a live `notice`, kept in no
    history; v1's notice has the same shape)."""
    return {
        UPDATE_TAG_FIELD: NOTICE,
        "severity": "warning",
        "title": "Session taken over by another connection",
        "description": (
            "Another connection resumed this session: its updates go there now, and what "
            "this connection sends for it is refused. Resume it here to take it back."
        ),
        "_meta": {TAKEN_OVER_META: True},
    }


async def tell_taken_over(session: AgentSession, checks: OutgoingChecks) -> None:
    """Tell the connection `session` was attached to that it is not any more (a live notice,
    in that connection's dialect, kept in no history)."""
    update = taken_over_notice()
    dialect = session.dialect
    with contextlib.suppress(ConnectionClosed, ConnectionError, ValidationError):
        if dialect is not None:
            await dialect.send_update(update)
            return
        params = {"sessionId": session.session_id, "update": update}
        checks.session_update(params)
        await session.peer.notify(SESSION_UPDATE, params)
