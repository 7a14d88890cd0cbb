"""The embedded session store: one SQLite file (stdlib `sqlite3`, WAL).

The file is opened, and its migrations applied (sqlite_schema.py), when the store is made, so
a bad path or a corrupt file is reported at start. Every later call runs on the store's own
thread (one connection, its calls one after another) while the event loop goes on; each write
is one `BEGIN IMMEDIATE` transaction, committed before the call returns. Several processes on
one machine may share the file: WAL lets readers run beside the writer, and a writer waits
for another's transaction at most `busy_timeout` seconds, then fails with `StoreUnavailable`
("database is locked") instead of hanging. Any sqlite3 error becomes `StoreUnavailable`
naming the file and the cause; the transaction is rolled back.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from ..wire.jsonvalue import JsonValue
from .durable import (
    DEFAULT_LEASE_SECONDS,
    KEYS_KEPT,
    Batch,
    LeaseLost,
    StoredSession,
    StoreLimits,
    StoreUnavailable,
)
from .rows import RECORD_COLUMNS, history_body, json_text, stored_record
from .sqlite_schema import migrate

T = TypeVar("T")


def _text(value: str | None) -> str | None:
    """A plain-text field (a cwd, title or key a peer chose) as SQLite can hold it: a lone
    surrogate is kept as its escape (`\\ud800`), every other string as it is."""
    if value is None or value.isascii():
        return value
    try:
        value.encode()
    except UnicodeEncodeError:
        return value.encode("utf-8", "backslashreplace").decode()
    return value


class SqliteStore:
    """A `DurableStore` in the SQLite file at `path` (made if absent)."""

    def __init__(
        self,
        path: str | Path,
        limits: StoreLimits | None = None,
        *,
        busy_timeout: float = 5.0,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = Path(path)
        self.limits = limits or StoreLimits()
        self.busy_timeout = busy_timeout
        self.lease_seconds = lease_seconds
        self.clock = clock
        self._local = threading.local()
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="acp-session-store")
        self._guarded(self._connect).close()  # migrated now, at start: a bad file says so

    def __repr__(self) -> str:
        return f"SqliteStore({str(self.path)!r})"

    # -- the thread ------------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None)
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            # WAL with NORMAL: a commit survives the process being killed (not a power cut)
            connection.execute("PRAGMA synchronous=NORMAL")
            migrate(connection)
        except BaseException:
            connection.close()
            raise
        return connection

    def _open(self) -> sqlite3.Connection:
        """The store thread's connection (made by its first call)."""
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._local.connection = self._connect()
        return connection

    def _guarded(self, call: Callable[[], T]) -> T:
        try:
            return call()
        except (sqlite3.Error, ValueError) as error:  # ValueError: what the driver cannot bind
            raise StoreUnavailable(f"session store {self.path}: {error}") from error

    def _write(self, change: Callable[[sqlite3.Connection], T]) -> T:
        def transaction() -> T:
            connection = self._open()
            connection.execute("BEGIN IMMEDIATE")
            try:
                result = change(connection)
                connection.execute("COMMIT")
            except BaseException:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                raise
            return result

        return self._guarded(transaction)

    def _read(self, query: Callable[[sqlite3.Connection], T]) -> T:
        return self._guarded(lambda: query(self._open()))

    async def _run(self, call: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, call)

    # -- DurableStore ----------------------------------------------------------------------------

    async def create(self, record: StoredSession) -> None:
        await self._run(partial(self._write, partial(self._create, record)))

    def _create(self, record: StoredSession, db: sqlite3.Connection) -> None:
        now = self.clock()
        self._drop(db, record.session_id)
        db.execute(
            "INSERT INTO sessions (session_id, cwd, title, setup, config, data, last_state, "
            "owner, lease_until, created_at, updated_at, next_seq) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
            (
                record.session_id, _text(record.cwd), _text(record.title), json_text(record.setup),
                json_text(record.config), json_text(record.data), json_text(record.last_state),
                record.owner, now + self.lease_seconds, now, record.updated_at or now,
            ),
        )  # fmt: skip
        self._expire(db, now)
        cap = self.limits.max_sessions
        if cap is not None:
            for (old,) in db.execute(
                "SELECT session_id FROM sessions WHERE session_id != ? "
                "ORDER BY updated_at LIMIT MAX((SELECT COUNT(*) FROM sessions) - ?, 0)",
                (record.session_id, cap),
            ).fetchall():
                self._drop(db, old)

    async def append(self, batch: Batch) -> None:
        await self._run(partial(self._write, partial(self._append, batch)))

    def _append(self, batch: Batch, db: sqlite3.Connection) -> None:
        # One row per batch (a JSON array): a long turn is a few rows, not one per update.
        encoded = history_body(batch)  # the wire's own bytes, mostly (rows.py)
        size = len(encoded) if batch.updates else 0
        body = encoded.decode()  # stored as TEXT, as always
        sets = "updated_at = ?, lease_until = ?, next_seq = MAX(next_seq, ?), bytes = bytes + ?"
        now = self.clock()
        values: list[Any] = [
            now,
            now + self.lease_seconds,
            batch.first_seq + len(batch.updates),
            size,
        ]
        if batch.title is not None or batch.cleared_title:
            sets += ", title = ?"
            values.append(_text(batch.title))
        if batch.last_state is not None:
            sets += ", last_state = ?"
            values.append(json_text(batch.last_state))
        if batch.config is not None:
            sets += ", config = ?"
            values.append(json_text(batch.config))
        changed = db.execute(
            f"UPDATE sessions SET {sets} WHERE session_id = ? AND owner = ?",
            (*values, batch.session_id, batch.owner),
        ).rowcount
        if changed != 1:
            raise LeaseLost(
                f"session {batch.session_id} is no longer this process's to write (another "
                "took it over, or the store's limits dropped it)"
            )
        if batch.prompt_keys:
            db.executemany(
                "INSERT INTO prompt_keys (session_id, key, message_id, created_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [(batch.session_id, _text(k), m, now) for k, m in batch.prompt_keys],
            )
            db.execute(  # the newest KEYS_KEPT stay, as a session keeps them in memory
                "DELETE FROM prompt_keys WHERE session_id = ? AND key NOT IN (SELECT key FROM "
                "prompt_keys WHERE session_id = ? ORDER BY created_at DESC, key LIMIT ?)",
                (batch.session_id, batch.session_id, KEYS_KEPT),
            )
        if batch.updates:
            db.execute(
                "INSERT INTO history (session_id, seq, count, size, body) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",  # a batch retried
                (batch.session_id, batch.first_seq, len(batch.updates), size, body),
            )
            self._trim(db, batch.session_id)

    def _trim(self, db: sqlite3.Connection, session_id: str) -> None:
        """Drop the session's oldest batches past `max_session_bytes`."""
        limit = self.limits.max_session_bytes
        (total,) = db.execute(
            "SELECT bytes FROM sessions WHERE session_id = ?", (session_id,)
        ).fetchone()
        if limit is None or total <= limit:
            return
        cut, dropped = -1, 0
        for seq, size in db.execute(
            "SELECT seq, size FROM history WHERE session_id = ? ORDER BY seq", (session_id,)
        ):
            if total - dropped <= limit:
                break
            cut, dropped = seq, dropped + size
        db.execute("DELETE FROM history WHERE session_id = ? AND seq <= ?", (session_id, cut))
        db.execute(
            "UPDATE sessions SET bytes = bytes - ? WHERE session_id = ?", (dropped, session_id)
        )

    async def load(self, session_id: str) -> StoredSession | None:
        await self._sweep()
        return await self._run(partial(self._read, partial(self._load_one, session_id)))

    def _load_one(self, session_id: str, db: sqlite3.Connection) -> StoredSession | None:
        db.execute("BEGIN")  # one snapshot for the record and its history
        try:
            row = db.execute(
                f"SELECT {RECORD_COLUMNS} FROM sessions WHERE session_id = ?", (session_id,)
            ).fetchone()
            if row is None:
                return None
            record = stored_record(row)
            for (body,) in db.execute(
                "SELECT body FROM history WHERE session_id = ? ORDER BY seq", (session_id,)
            ):
                record.history += json.loads(body)
            keys = db.execute(
                "SELECT key, message_id FROM prompt_keys WHERE session_id = ? "
                "ORDER BY created_at, key",
                (session_id,),
            )
            record.prompt_keys = {str(key): str(message) for key, message in keys}
            return record
        finally:
            db.execute("COMMIT")

    async def list(self, cwd: str | None = None) -> list[StoredSession]:
        await self._sweep()

        def query(db: sqlite3.Connection) -> list[StoredSession]:
            where, args = ("WHERE cwd = ?", (_text(cwd),)) if cwd is not None else ("", ())
            sql = f"SELECT {RECORD_COLUMNS} FROM sessions {where} ORDER BY updated_at, session_id"
            return [stored_record(row) for row in db.execute(sql, args)]

        return await self._run(partial(self._read, query))

    async def _sweep(self) -> None:
        if self.limits.max_age_seconds is not None:
            await self._run(partial(self._write, lambda db: self._expire(db, self.clock())))

    def _expire(self, db: sqlite3.Connection, now: float) -> None:
        age = self.limits.max_age_seconds
        if age is None:
            return
        for (old,) in db.execute(
            "SELECT session_id FROM sessions WHERE updated_at < ?", (now - age,)
        ).fetchall():
            self._drop(db, old)

    @staticmethod
    def _drop(db: sqlite3.Connection, session_id: str) -> None:
        for table in ("history", "prompt_keys", "sessions"):
            db.execute(f"DELETE FROM {table} WHERE session_id = ?", (session_id,))

    async def delete(self, session_id: str) -> None:
        await self._run(partial(self._write, lambda db: self._drop(db, session_id)))

    async def save_data(self, session_id: str, data: JsonValue) -> None:
        def change(db: sqlite3.Connection) -> None:
            db.execute(
                "UPDATE sessions SET data = ? WHERE session_id = ?", (json_text(data), session_id)
            )

        await self._run(partial(self._write, change))

    async def claim(self, session_id: str, owner: str, *, take_over: bool = False) -> int | None:
        def change(db: sqlite3.Connection) -> int | None:
            now = self.clock()
            if not db.execute(
                "UPDATE sessions SET owner = ?, lease_until = ? WHERE session_id = ? AND "
                "(? OR owner IS NULL OR owner = ? OR lease_until < ?)",
                (owner, now + self.lease_seconds, session_id, take_over, owner, now),
            ).rowcount:
                return None
            (next_seq,) = db.execute(
                "SELECT next_seq FROM sessions WHERE session_id = ?", (session_id,)
            ).fetchone()
            return int(next_seq)

        return await self._run(partial(self._write, change))

    async def renew(self, owner: str, session_ids: Sequence[str]) -> set[str]:
        ids = json.dumps(list(session_ids))  # one parameter, however many sessions

        def change(db: sqlite3.Connection) -> set[str]:
            rows = db.execute(
                "UPDATE sessions SET lease_until = ? WHERE owner = ? AND session_id IN "
                "(SELECT value FROM json_each(?)) RETURNING session_id",
                (self.clock() + self.lease_seconds, owner, ids),
            )
            return {str(sid) for (sid,) in rows.fetchall()}

        return await self._run(partial(self._write, change))

    async def release(self, session_id: str, owner: str) -> None:
        def change(db: sqlite3.Connection) -> None:
            db.execute(
                "UPDATE sessions SET owner = NULL, lease_until = NULL "
                "WHERE session_id = ? AND owner = ?",
                (session_id, owner),
            )

        await self._run(partial(self._write, change))

    async def remember_prompt(self, session_id: str, key: str, message_id: str) -> str:
        def change(db: sqlite3.Connection) -> str:
            db.execute(
                "INSERT INTO prompt_keys (session_id, key, message_id, created_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (session_id, _text(key), message_id, self.clock()),
            )
            return self._answer(db, session_id, key) or message_id

        return await self._run(partial(self._write, change))

    async def prompt_answer(self, session_id: str, key: str) -> str | None:
        return await self._run(partial(self._read, lambda db: self._answer(db, session_id, key)))

    @staticmethod
    def _answer(db: sqlite3.Connection, session_id: str, key: str) -> str | None:
        row = db.execute(
            "SELECT message_id FROM prompt_keys WHERE session_id = ? AND key = ?",
            (session_id, _text(key)),
        ).fetchone()
        return None if row is None else str(row[0])

    async def close(self) -> None:
        def finish() -> None:
            connection = getattr(self._local, "connection", None)
            if connection is not None:
                connection.close()
                self._local.connection = None

        await self._run(finish)
        self._executor.shutdown(wait=True)
