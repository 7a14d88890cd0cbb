"""Durable sessions: where an agent keeps its sessions beyond the process.

`durable` is the interface (`DurableStore`: a session's record, its history appended in
batches, idempotency keys, the author's own data, a lease naming the process that serves a
session, retention) and what it speaks in (`StoredSession`, `StoreLimits`,
`StoreUnavailable`); `sqlite_store` (with `sqlite_schema`, its versioned migrations) is the
embedded implementation, `postgres_store` (with `postgres_schema` and `postgres_pool`, its
connections; psycopg imported only when one is made) the one a fleet shares; `rows` is
how both keep JSON and records as text; `journal`
buffers one session's updates and writes them in batches;
`store_url` makes a store from the `--session-store` URL. Without a store an agent keeps its
sessions in memory only (agent/session_store.py), as before.

This floor does I/O (a database, on a thread of its own) but knows nothing of connections or
turns: agent/durable_sessions.py ties it to the session registry.

May import: state, rpc, core, wire.
"""
