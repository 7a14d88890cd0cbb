"""The PostgreSQL store's schema, as numbered migrations run in order when a store opens.

The tables are prefixed `acp_` (a fleet's database may hold other things). `acp_schema`
records each migration applied. Opening a store applies, in one transaction holding a
transaction-scoped advisory lock (`MIGRATION_LOCK`), the migrations past the highest
recorded: of two processes starting at once, one migrates while the other waits for the
lock, then finds nothing to do. A database whose schema is newer than this runtime knows is
refused (`StoreUnavailable`), never written. A failed migration rolls back whole.

A migration only adds: a new one is appended to `MIGRATIONS`, never an old one edited. The
JSON values are kept as text, byte for byte as written (jsonb would reorder keys), and the
times as seconds since the epoch, as in the SQLite store.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .durable import StoreUnavailable
from .postgres_pool import SyncConnection

# pg_advisory_xact_lock's key: "acp-sessions" in ASCII, as a bigint (any fixed number would do)
MIGRATION_LOCK: Final = 0x6163_702D_7365_7373

MIGRATIONS: Final[tuple[str, ...]] = (
    # 1: sessions, their history (one row per batch: `seq` its first update's number, `body`
    # a JSON array of `count` updates), their prompts' idempotency keys
    """
    CREATE TABLE acp_sessions (
        session_id TEXT PRIMARY KEY,
        cwd TEXT,
        title TEXT,
        setup TEXT NOT NULL,
        config TEXT,
        data TEXT,
        last_state TEXT,
        owner TEXT,
        lease_until DOUBLE PRECISION,
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        next_seq BIGINT NOT NULL DEFAULT 0,
        bytes BIGINT NOT NULL DEFAULT 0
    );
    CREATE INDEX acp_sessions_by_update ON acp_sessions (updated_at);
    CREATE INDEX acp_sessions_by_cwd ON acp_sessions (cwd, updated_at);
    CREATE TABLE acp_history (
        session_id TEXT NOT NULL,
        seq BIGINT NOT NULL,
        count INTEGER NOT NULL,
        size INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
    );
    CREATE TABLE acp_prompt_keys (
        session_id TEXT NOT NULL,
        key TEXT NOT NULL,
        message_id TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (session_id, key)
    );
    """,
)


def schema_version(connection: SyncConnection) -> int:
    """The highest migration applied (0: none, or not a store yet)."""
    found = connection.execute("SELECT to_regclass('acp_schema')").fetchone()
    if found is None or found[0] is None:
        return 0
    row = connection.execute("SELECT MAX(version) FROM acp_schema").fetchone()
    return int(row[0] or 0) if row is not None else 0


def migrate(connection: SyncConnection, migrations: Sequence[str] = MIGRATIONS) -> int:
    """Apply the migrations the database lacks (an autocommit connection); returns the version
    it is at now."""
    with connection.transaction():
        connection.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        connection.execute(
            "CREATE TABLE IF NOT EXISTS acp_schema "
            "(version INTEGER PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)"
        )
        current = schema_version(connection)
        if current > len(migrations):
            raise StoreUnavailable(
                f"the store's schema is version {current}, newer than this agent knows "
                f"({len(migrations)}): upgrade the agent"
            )
        for version, script in enumerate(migrations[current:], start=current + 1):
            for statement in filter(str.strip, script.split(";")):
                connection.execute(statement.encode())  # a script of ours, not a query's values
            connection.execute(
                "INSERT INTO acp_schema (version, applied_at) "
                "VALUES (%s, EXTRACT(EPOCH FROM now()))",
                (version,),
            )
    return len(migrations)
