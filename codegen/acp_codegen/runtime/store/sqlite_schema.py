"""The SQLite store's schema, as numbered migrations run in order when a store opens.

`acp_schema` records each migration applied (its number and when). Opening a store applies,
in one `BEGIN IMMEDIATE` transaction, the migrations past the highest recorded: two processes
opening one file at once take turns, and the second finds nothing to do. A file whose schema
is newer than this runtime knows is refused (`StoreUnavailable`), never written.

A migration only adds: a new one is appended to `MIGRATIONS`, never an old one edited.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from typing import Final

from .durable import StoreUnavailable

MIGRATIONS: Final[tuple[str, ...]] = (
    # 1: sessions, their history (one row per batch: `seq` its first update's number, `body`
    # a JSON array of `count` updates), their prompts' idempotency keys
    """
    CREATE TABLE sessions (
        session_id TEXT PRIMARY KEY,
        cwd TEXT,
        title TEXT,
        setup TEXT NOT NULL,
        config TEXT,
        data TEXT,
        last_state TEXT,
        owner TEXT,
        lease_until REAL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        next_seq INTEGER NOT NULL DEFAULT 0,
        bytes INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX sessions_by_update ON sessions (updated_at);
    CREATE TABLE history (
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        count INTEGER NOT NULL,
        size INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE prompt_keys (
        session_id TEXT NOT NULL,
        key TEXT NOT NULL,
        message_id TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (session_id, key)
    ) WITHOUT ROWID;
    """,
)


def schema_version(connection: sqlite3.Connection) -> int:
    """The highest migration applied (0: none, or not a store yet)."""
    found = connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'acp_schema'"
    ).fetchone()
    if found is None:
        return 0
    row = connection.execute("SELECT MAX(version) FROM acp_schema").fetchone()
    return int(row[0] or 0)


def migrate(connection: sqlite3.Connection, migrations: Sequence[str] = MIGRATIONS) -> int:
    """Apply the migrations `connection`'s file lacks (autocommit connection); returns the
    version it is at now."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        connection.execute(
            "CREATE TABLE IF NOT EXISTS acp_schema "
            "(version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)"
        )
        current = schema_version(connection)
        if current > len(migrations):
            raise StoreUnavailable(
                f"the store's schema is version {current}, newer than this agent knows "
                f"({len(migrations)}): upgrade the agent"
            )
        for version, script in enumerate(migrations[current:], start=current + 1):
            for statement in filter(str.strip, script.split(";")):
                connection.execute(statement)
            connection.execute(
                "INSERT INTO acp_schema (version, applied_at) VALUES (?, ?)",
                (version, time.time()),
            )
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    return len(migrations)
