"""The durable session store's interface: what the runtime asks of any database it keeps
sessions in, and the values it speaks in.

A store keeps, per session: its record (`StoredSession`: identity, cwd, title, the setup
params, config options, the process serving it and until when, the last state report, the
author's own JSON), its history (the updates sent, in order, each under a sequence number the
writer gives it: an append of a number already stored changes nothing, so a batch retried
after an unclear failure is never kept twice), and the idempotency keys of its prompts with
the messageId each was answered with (the newest `KEYS_KEPT`, written in a batch, and put
back on the session when it is loaded).

Every method is a coroutine that returns once its change is committed (or raises
`StoreUnavailable`, having changed nothing), so "acknowledged" always means "written". An
implementation runs its blocking calls off the event loop (a thread of its own for SQLite; an
async driver for a server database) and bounds every wait (a lock, a full disk), so a caller
gets an answer or an error, never a hang.

Retention (`StoreLimits`) is the store's: it drops a session's oldest history (whole batches)
past `max_session_bytes`, sessions untouched for `max_age_seconds`, and past `max_sessions` the
least recently updated ones. A dropped session is forgotten like an unknown one.

The lease (`claim`, `release`) says which process serves a session: `claim` takes it when it
is free, expired or already the caller's (or, with `take_over`, whatever holds it), and an
`append` by a process that no longer holds it raises `LeaseLost`: of two processes that both
think they serve a session, only one writes. A process names itself with `owner_name()`.
Writes renew the lease; so does `renew`, which a process calls every third of
`lease_seconds` for all the sessions it serves at once (agent/durable_sessions.py), so a session
served idle is not taken without a takeover, and the process learns of one that was.
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, Protocol

from ..wire.jsonvalue import JsonObject, JsonValue

DEFAULT_LEASE_SECONDS: Final = 300.0
KEYS_KEPT: Final = 1024  # a session's newest idempotency keys a store keeps (as in memory)


class StoreUnavailable(Exception):
    """The store could not do what was asked (down, full, locked past its timeout, corrupt);
    nothing of the call was kept. The message says why, for the client's error answer."""


class LeaseLost(StoreUnavailable):
    """Another process holds the session now (it took the session over): stop writing it."""


@dataclass(frozen=True, slots=True)
class StoreLimits:
    """What a store keeps (see the module doc); None: no bound on that count."""

    max_session_bytes: int | None = 64 << 20  # bytes of a session's history JSON
    max_age_seconds: float | None = 30 * 24 * 3600.0  # since the session last changed
    max_sessions: int | None = 10_000

    def __post_init__(self) -> None:
        for name in ("max_session_bytes", "max_age_seconds", "max_sessions"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"session store limit {name} must be positive, not {value}")


@dataclass(slots=True)
class StoredSession:
    """One session's record (`history` filled only by `load`)."""

    session_id: str
    cwd: str | None = None
    title: str | None = None
    setup: JsonObject = field(default_factory=dict)  # the session/new (or resume) params
    config: JsonValue = None  # the config options last reported to the client
    data: JsonValue = None  # the author's own (AgentSession.data)
    last_state: JsonObject | None = None  # the latest state report
    owner: str | None = None  # the process serving it (the lease's holder)
    updated_at: float = 0.0  # seconds since the epoch
    next_seq: int = 0  # the sequence number the next appended update gets
    history: list[JsonObject] = field(default_factory=list)
    # Idempotency key -> messageId, oldest first (filled only by `load`; `KEYS_KEPT` newest).
    prompt_keys: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Batch:
    """Updates to append to one session, numbered from `first_seq`, with the record's fields
    that changed meanwhile (None: unchanged; a title cleared is `cleared_title`). The store
    sets the record's `updated_at` (its clock: retention counts by it)."""

    session_id: str
    first_seq: int
    updates: Sequence[JsonObject]
    owner: str
    title: str | None = None
    cleared_title: bool = False
    last_state: JsonObject | None = None
    config: JsonValue = None
    # Prompts' idempotency keys accepted since the last batch, with their messageIds: kept in
    # the same transaction as the batch's updates.
    prompt_keys: Sequence[tuple[str, str]] = ()
    # Beside `updates` (or empty): the `session/update` notification each was sent in, as
    # written (bytes; anything else: none), whose update part a store keeps instead of
    # encoding the update again (rows.history_body).
    frames: Sequence[object] = ()


class DurableStore(Protocol):
    """What the runtime asks of a session database (see the module doc)."""

    limits: StoreLimits
    lease_seconds: float  # how long a claim, a write or a renewal holds the lease

    async def create(self, record: StoredSession) -> None:
        """Keep a new session (replacing one of the same id), then apply `max_sessions`."""
        ...

    async def append(self, batch: Batch) -> None:
        """Append `batch.updates` in order, update the record, apply `max_session_bytes`.
        Raises `LeaseLost` when `batch.owner` does not hold the session."""
        ...

    async def load(self, session_id: str) -> StoredSession | None:
        """The session with its history in order; None when unknown, dropped or too old."""
        ...

    async def list(self, cwd: str | None = None) -> list[StoredSession]:
        """The records (no history) of the sessions kept, least recently updated first,
        those in `cwd` only when given."""
        ...

    async def delete(self, session_id: str) -> None: ...

    async def save_data(self, session_id: str, data: JsonValue) -> None:
        """Replace the author's own JSON for the session."""
        ...

    async def claim(self, session_id: str, owner: str, *, take_over: bool = False) -> int | None:
        """Take the session's lease for `owner` (see the module doc). Returns the sequence
        number its next update gets (the holder compares it with what it wrote itself: equal,
        nobody else wrote meanwhile); None: held elsewhere, or unknown."""
        ...

    async def renew(self, owner: str, session_ids: Sequence[str]) -> set[str]:
        """Extend `owner`'s lease of each of `session_ids` it still holds, in one statement;
        returns those (an id missing: another process holds it now, or it was dropped)."""
        ...

    async def release(self, session_id: str, owner: str) -> None:
        """Give the lease up, if `owner` holds it."""
        ...

    async def remember_prompt(self, session_id: str, key: str, message_id: str) -> str:
        """Keep `key` -> `message_id` for the session unless the key is known: returns the
        messageId the key was first answered with (`message_id` when new)."""
        ...

    async def prompt_answer(self, session_id: str, key: str) -> str | None:
        """The messageId a prompt with this idempotency key was answered with, if any."""
        ...

    async def close(self) -> None:
        """Finish what is in flight and let the database go."""
        ...


def owner_name() -> str:
    """This process, as a lease holder: host, pid and a random part (pids are reused)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
