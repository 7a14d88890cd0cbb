"""The session store for a fleet: one PostgreSQL database shared by every agent process
(psycopg 3, its async API; the `postgres` extra, imported only when a store is made).

Making the store connects once and applies the migrations (postgres_schema.py), so a wrong
URL, a server that is down or a schema newer than the runtime is reported at start. Every
later call is one transaction on a connection of the store's pool (postgres_pool.py), awaited
on the event loop, every wait bounded: a server that is down, stuck or unreachable answers
`StoreUnavailable`, never a hang.

The lease is one conditional `UPDATE` (free, expired, the caller's, or `take_over`): the row
lock makes two claims take turns and the second sees the first's owner, so of two processes
only one holds a session. An append is one statement (one round trip): it locks the record
where the caller owns it (none: nothing written, `LeaseLost`), inserts the batch as one row (a
JSON array keyed by its first update's number) `ON CONFLICT DO NOTHING` and updates the
record, counting only a row kept: a batch retried is kept once.
Times are the database server's clock (one for the whole fleet) unless a `clock` is given.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

from ..wire.jsonvalue import JsonValue
from .durable import (
    DEFAULT_LEASE_SECONDS,
    KEYS_KEPT,
    Batch,
    LeaseLost,
    StoredSession,
    StoreLimits,
)
from .postgres_pool import Connection, PostgresPool
from .postgres_schema import migrate
from .rows import RECORD_COLUMNS, history_body, json_text, stored_record

# The transaction's time: the server's clock, or the injected one (a parameter, when given).
_NOW: Final = "COALESCE(%(now)s::float8, EXTRACT(EPOCH FROM now())::float8)"
# The session's row, where the caller holds its lease.
_HELD: Final = "WHERE session_id = %(sid)s AND owner = %(owner)s"
# A batch in one statement: the lease's row locked (`held`: the lease held, or no row, and
# then nothing is inserted and nothing returned), the batch inserted `ON CONFLICT DO NOTHING`
# (a batch retried: kept once), its prompts' keys with it, and the record updated, its byte
# count by the row kept.
_LOCK: Final = f"held AS (SELECT session_id FROM acp_sessions {_HELD} FOR UPDATE)"
_ADD_ROWS: Final = (
    "added AS (INSERT INTO acp_history (session_id, seq, count, size, body) "
    "SELECT session_id, %(seq)s, %(count)s, %(size)s, %(body)s FROM held "
    "ON CONFLICT DO NOTHING RETURNING size)"
)
_COUNT_ADDED: Final = ", bytes = bytes + (SELECT COALESCE(SUM(size), 0) FROM added)"
_ADD_KEYS: Final = (
    "keyed AS (INSERT INTO acp_prompt_keys (session_id, key, message_id, created_at) "
    f"SELECT session_id, k.key, k.mid, {_NOW} FROM held, "
    "unnest(%(keys)s::text[], %(mids)s::text[]) AS k(key, mid) ON CONFLICT DO NOTHING)"
)
# How many keys the session had before (the statement's snapshot): with the batch's, at most
# that many now.
_KEYS_HELD: Final = "(SELECT COUNT(*) FROM acp_prompt_keys WHERE session_id = %(sid)s)"


class PostgresStore:
    """A `DurableStore` in the PostgreSQL database `url` names (libpq's URL or key=value)."""

    def __init__(
        self,
        url: str,
        limits: StoreLimits | None = None,
        *,
        timeout: float = 5.0,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        clock: Callable[[], float] | None = None,
        max_connections: int = 4,
    ) -> None:
        self.limits = limits or StoreLimits()
        self.lease_seconds = lease_seconds
        self.clock = clock
        self._pool = PostgresPool(url, timeout=timeout, max_connections=max_connections)
        self.name = self._pool.name
        self._run = self._pool.run
        self._pool.start(migrate)  # at start: a bad URL or a server that is down says so

    def __repr__(self) -> str:
        return f"PostgresStore({self.name!r})"

    def _now(self) -> float | None:
        return None if self.clock is None else self.clock()

    # -- DurableStore ----------------------------------------------------------------------------

    async def create(self, record: StoredSession) -> None:
        async def change(db: Connection) -> None:
            now = self._now()
            await self._drop(db, [record.session_id])
            await db.execute(
                "INSERT INTO acp_sessions (session_id, cwd, title, setup, config, data, "
                "last_state, owner, lease_until, created_at, updated_at, next_seq) VALUES "
                f"(%(sid)s, %(cwd)s, %(title)s, %(setup)s, %(config)s, %(data)s, %(state)s, "
                f"%(owner)s, {_NOW} + %(lease)s, {_NOW}, "
                f"COALESCE(%(updated)s::float8, {_NOW}), 0)",
                {
                    "sid": record.session_id, "cwd": record.cwd, "title": record.title,
                    "setup": json_text(record.setup), "config": json_text(record.config),
                    "data": json_text(record.data), "state": json_text(record.last_state),
                    "owner": record.owner, "lease": self.lease_seconds, "now": now,
                    "updated": record.updated_at or None,
                },
            )  # fmt: skip
            await self._expire(db, now)
            cap = self.limits.max_sessions
            if cap is not None:
                cursor = await db.execute(
                    "SELECT session_id FROM acp_sessions WHERE session_id <> %s "
                    "ORDER BY updated_at, session_id "
                    "LIMIT GREATEST((SELECT COUNT(*) FROM acp_sessions) - %s, 0)",
                    (record.session_id, cap),
                )
                await self._drop(db, [sid for (sid,) in await cursor.fetchall()])

        await self._run(change)

    async def append(self, batch: Batch) -> None:
        # One row per batch (a JSON array): a long turn is a few rows, not one per update. And
        # one statement, its own transaction, so one round trip: a turn's last write waits on
        # the batch before it, and each trip waits its turn on a busy event loop.
        count = len(batch.updates)
        sets = (
            f"updated_at = {_NOW}, lease_until = {_NOW} + %(lease)s, "
            "next_seq = GREATEST(next_seq, %(next)s)"
        )
        values: dict[str, Any] = {
            "sid": batch.session_id, "owner": batch.owner, "now": self._now(),
            "lease": self.lease_seconds, "next": batch.first_seq + count,
        }  # fmt: skip
        if batch.title is not None or batch.cleared_title:
            sets += ", title = %(title)s"
            values["title"] = batch.title
        if batch.last_state is not None:
            sets += ", last_state = %(state)s"
            values["state"] = json_text(batch.last_state)
        if batch.config is not None:
            sets += ", config = %(config)s"
            values["config"] = json_text(batch.config)
        ctes, keys = [_LOCK], batch.prompt_keys
        if count:
            encoded = history_body(batch)  # the wire's own bytes, mostly (rows.py)
            values.update(seq=batch.first_seq, count=count, size=len(encoded))
            values["body"] = encoded.decode()
            ctes.append(_ADD_ROWS)
            sets += _COUNT_ADDED
        if keys:  # with the batch: kept if and only if it is
            values.update(keys=[k for k, _ in keys], mids=[m for _, m in keys])
            ctes.append(_ADD_KEYS)
        query = (  # our own fragments, values bound
            f"WITH {', '.join(ctes)} UPDATE acp_sessions SET {sets} {_HELD} "
            f"RETURNING bytes, {_KEYS_HELD if keys else 0}"
        ).encode()

        async def write(db: Connection) -> tuple[int, int]:
            cursor = await db.execute(query, values)
            row = await cursor.fetchone()
            if row is None:  # not this process's: the statement wrote nothing
                raise LeaseLost(
                    f"session {batch.session_id} is no longer this process's to write (another "
                    "took it over, or the store's limits dropped it)"
                )
            return int(row[0]), int(row[1]) + len(keys)

        size, kept = await self._run(write, one_statement=True)
        limit = self.limits.max_session_bytes
        if count and limit is not None and size > limit:  # retention: a statement of its own
            await self._run(lambda db: self._trim(db, batch.session_id, limit), one_statement=True)
        if keys and kept > KEYS_KEPT:  # the newest KEYS_KEPT stay, as a session keeps them
            await self._run(lambda db: self._prune_keys(db, batch.session_id), one_statement=True)

    @staticmethod
    async def _prune_keys(db: Connection, session_id: str) -> None:
        await db.execute(
            "DELETE FROM acp_prompt_keys WHERE session_id = %(sid)s AND key NOT IN "
            "(SELECT key FROM acp_prompt_keys WHERE session_id = %(sid)s "
            "ORDER BY created_at DESC, key LIMIT %(kept)s)",
            {"sid": session_id, "kept": KEYS_KEPT},
        )

    @staticmethod
    async def _trim(db: Connection, session_id: str, limit: int) -> None:
        """Drop the session's oldest batches past `limit` bytes (the newest that fit stay)."""
        await db.execute(
            "WITH cut AS (DELETE FROM acp_history h USING (SELECT seq FROM (SELECT seq, "
            "SUM(size) OVER (ORDER BY seq DESC) AS kept FROM acp_history "
            "WHERE session_id = %(sid)s) newest WHERE kept > %(limit)s) old "
            "WHERE h.session_id = %(sid)s AND h.seq = old.seq RETURNING h.size) "
            "UPDATE acp_sessions SET bytes = bytes - (SELECT COALESCE(SUM(size), 0) FROM cut) "
            "WHERE session_id = %(sid)s",
            {"sid": session_id, "limit": limit},
        )

    async def load(self, session_id: str) -> StoredSession | None:
        await self._sweep()

        async def query(db: Connection) -> StoredSession | None:
            cursor = await db.execute(
                f"SELECT {RECORD_COLUMNS} FROM acp_sessions WHERE session_id = %s", (session_id,)
            )
            row = await cursor.fetchone()
            if row is None:
                return None
            record = stored_record(row)
            cursor = await db.execute(
                "SELECT body FROM acp_history WHERE session_id = %s ORDER BY seq", (session_id,)
            )
            for (body,) in await cursor.fetchall():
                record.history += json.loads(body)
            cursor = await db.execute(
                "SELECT key, message_id FROM acp_prompt_keys WHERE session_id = %s "
                "ORDER BY created_at, key",
                (session_id,),
            )
            record.prompt_keys = {str(k): str(m) for k, m in await cursor.fetchall()}
            return record

        return await self._run(query, read_only=True)

    async def list(self, cwd: str | None = None) -> list[StoredSession]:
        await self._sweep()

        async def query(db: Connection) -> list[StoredSession]:
            if cwd is None:
                cursor = await db.execute(
                    f"SELECT {RECORD_COLUMNS} FROM acp_sessions ORDER BY updated_at, session_id"
                )
            else:
                cursor = await db.execute(
                    f"SELECT {RECORD_COLUMNS} FROM acp_sessions WHERE cwd = %s "
                    "ORDER BY updated_at, session_id",
                    (cwd,),
                )
            return [stored_record(row) for row in await cursor.fetchall()]

        return await self._run(query, read_only=True)

    async def _sweep(self) -> None:
        if self.limits.max_age_seconds is not None:
            await self._run(lambda db: self._expire(db, self._now()))

    async def _expire(self, db: Connection, now: float | None) -> None:
        age = self.limits.max_age_seconds
        if age is None:
            return
        cursor = await db.execute(
            f"SELECT session_id FROM acp_sessions WHERE updated_at < {_NOW} - %(age)s",
            {"now": now, "age": age},
        )
        await self._drop(db, [sid for (sid,) in await cursor.fetchall()])

    @staticmethod
    async def _drop(db: Connection, session_ids: Iterable[str]) -> None:
        ids = list(session_ids)
        if not ids:
            return
        await db.execute("DELETE FROM acp_history WHERE session_id = ANY(%s)", (ids,))
        await db.execute("DELETE FROM acp_prompt_keys WHERE session_id = ANY(%s)", (ids,))
        await db.execute("DELETE FROM acp_sessions WHERE session_id = ANY(%s)", (ids,))

    async def delete(self, session_id: str) -> None:
        await self._run(lambda db: self._drop(db, [session_id]))

    async def save_data(self, session_id: str, data: JsonValue) -> None:
        async def change(db: Connection) -> None:
            await db.execute(
                "UPDATE acp_sessions SET data = %s WHERE session_id = %s",
                (json_text(data), session_id),
            )

        await self._run(change)

    async def claim(self, session_id: str, owner: str, *, take_over: bool = False) -> int | None:
        async def change(db: Connection) -> int | None:
            cursor = await db.execute(
                f"UPDATE acp_sessions SET owner = %(owner)s, lease_until = {_NOW} + %(lease)s "
                "WHERE session_id = %(sid)s AND (%(take)s OR owner IS NULL "
                f"OR owner = %(owner)s OR lease_until < {_NOW}) RETURNING next_seq",
                {
                    "owner": owner, "sid": session_id, "take": take_over,
                    "lease": self.lease_seconds, "now": self._now(),
                },
            )  # fmt: skip
            row = await cursor.fetchone()
            return None if row is None else int(row[0])

        return await self._run(change)

    async def renew(self, owner: str, session_ids: Sequence[str]) -> set[str]:
        async def change(db: Connection) -> set[str]:
            cursor = await db.execute(
                f"UPDATE acp_sessions SET lease_until = {_NOW} + %(lease)s "
                "WHERE owner = %(owner)s AND session_id = ANY(%(ids)s) RETURNING session_id",
                {
                    "owner": owner, "ids": list(session_ids), "lease": self.lease_seconds,
                    "now": self._now(),
                },
            )  # fmt: skip
            return {str(sid) for (sid,) in await cursor.fetchall()}

        return await self._run(change)

    async def release(self, session_id: str, owner: str) -> None:
        async def change(db: Connection) -> None:
            await db.execute(
                "UPDATE acp_sessions SET owner = NULL, lease_until = NULL "
                "WHERE session_id = %s AND owner = %s",
                (session_id, owner),
            )

        await self._run(change)

    async def remember_prompt(self, session_id: str, key: str, message_id: str) -> str:
        async def change(db: Connection) -> str:
            await db.execute(
                "INSERT INTO acp_prompt_keys (session_id, key, message_id, created_at) "
                f"VALUES (%(sid)s, %(key)s, %(mid)s, {_NOW}) ON CONFLICT DO NOTHING",
                {"sid": session_id, "key": key, "mid": message_id, "now": self._now()},
            )
            return await self._answer(db, session_id, key) or message_id

        return await self._run(change)

    async def prompt_answer(self, session_id: str, key: str) -> str | None:
        return await self._run(lambda db: self._answer(db, session_id, key), read_only=True)

    @staticmethod
    async def _answer(db: Connection, session_id: str, key: str) -> str | None:
        cursor = await db.execute(
            "SELECT message_id FROM acp_prompt_keys WHERE session_id = %s AND key = %s",
            (session_id, key),
        )
        row = await cursor.fetchone()
        return None if row is None else str(row[0])

    async def close(self) -> None:
        await self._pool.close()
