"""The PostgreSQL store's connections: a small pool of psycopg 3 async connections whose every
wait is bounded (postgres_store.py says what for).

psycopg is imported when a pool is made, never before (`load_psycopg`): a package without it
imports and runs as ever, and a `postgresql://` URL without it is refused naming what to
install (`NEEDS_PSYCOPG`).

`start` connects once with a plain connection (before any event loop serves) to check the
server and migrate. After that `run` does one transaction on a connection of the pool (at most
`max_connections`, made on demand in the running loop, dropped after any error and made again
by the next call; a pooled connection that fails as one the server dropped does, after a
restart or a failover, is replaced and the call tried once more, which is safe because every
call of the store is idempotent: an append by its sequence numbers, a claim by its owner, the
rest by their keys). Bounded: the connection (`connect_timeout`), each statement and each lock
wait (`statement_timeout`, `lock_timeout`: `timeout` seconds, set on each connection), and
the whole call on the client's side (twice that: a server that stopped answering), so every
failure is a `StoreUnavailable` naming the database (never the password) and the cause.
"""

from __future__ import annotations

import asyncio
import importlib
import math
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeAlias, TypeVar

from .durable import LeaseLost, StoreUnavailable

# psycopg's AsyncConnection and Connection. Named, not imported even for the type checker: the
# bindings (and a scaffolded agent's mypy run over them) must check where psycopg is absent.
Connection: TypeAlias = Any
SyncConnection: TypeAlias = Any

T = TypeVar("T")
NEEDS_PSYCOPG: Final = (
    "a postgresql:// session store needs psycopg 3: install the `postgres` extra "
    "(pip install 'acp-codegen[postgres]', or pip install 'psycopg[binary]')"
)


class _Dropped(Exception):
    """A pooled connection failed as one the server closed does (restarted, failed over, an
    idle timeout): the call is tried again on a new connection."""


def load_psycopg() -> Any:
    """The psycopg module; `StoreUnavailable` naming the extra when it is not installed."""
    try:
        return importlib.import_module("psycopg")
    except ImportError:
        raise StoreUnavailable(NEEDS_PSYCOPG) from None


def tolerate_surrogates(connection: Connection | SyncConnection) -> None:
    """Let `connection` send any Python string: PostgreSQL's text is UTF-8, which a lone
    surrogate (a client's title, cwd or idempotency key may hold one) is not. Such a character
    is sent as its escape (`\\ud800`); every other string as it is. (JSON values are written
    escaped before they get here, so they come back exact.)"""
    global _tolerant_dumper
    if _tolerant_dumper is None:
        base: Any = importlib.import_module("psycopg.types.string").StrDumperUnknown

        class TolerantDumper(base):  # type: ignore[misc]
            def dump(self, obj: str) -> bytes:
                return obj.encode("utf-8", "backslashreplace")

        _tolerant_dumper = TolerantDumper
    connection.adapters.register_dumper(str, _tolerant_dumper)


_tolerant_dumper: type | None = None


def why(error: BaseException) -> str:
    """An error's text on one line."""
    text = " ".join(str(error).split())
    return text or type(error).__name__


class PostgresPool:
    """The connections of one store to the database `url` names (see the module doc)."""

    def __init__(self, url: str, *, timeout: float, max_connections: int) -> None:
        self._pg = load_psycopg()
        self.url = url
        self.timeout = timeout
        self.max_connections = max_connections
        self.name = self._describe(url)
        self._idle: list[Connection] = []
        self._slots: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False

    def _describe(self, url: str) -> str:
        """The database and server, for messages (never the password)."""
        try:
            parts = self._pg.conninfo.conninfo_to_dict(url)
        except self._pg.Error as error:
            raise StoreUnavailable(f"session store URL: {why(error)}") from error
        return f"postgresql database {parts.get('dbname') or '(default)'} on " + str(
            parts.get("host") or "(default socket)"
        )

    def unavailable(self, cause: str) -> StoreUnavailable:
        return StoreUnavailable(f"session store {self.name}: {cause}")

    @property
    def _connect_timeout(self) -> int:
        return max(2, math.ceil(self.timeout))  # libpq's least

    @property
    def _settings(self) -> bytes:
        ms = max(1, round(self.timeout * 1000))
        return (
            f"SET statement_timeout = {ms}; SET lock_timeout = {ms}; "
            f"SET idle_in_transaction_session_timeout = {ms * 4}"
        ).encode()

    def start(self, prepare: Callable[[SyncConnection], object]) -> None:
        """`prepare` (the migrations) on a plain connection, now (blocking: call it at start)."""
        try:
            with self._pg.connect(
                self.url, autocommit=True, connect_timeout=self._connect_timeout
            ) as connection:
                tolerate_surrogates(connection)
                connection.execute(self._settings)
                prepare(connection)
        except self._pg.Error as error:
            raise self.unavailable(why(error)) from error

    def _bind(self) -> asyncio.Semaphore:
        """The pool of the running loop (a store used from a new loop starts a new one)."""
        loop = asyncio.get_running_loop()
        if self._slots is None or self._loop is not loop:
            for stale in self._idle:
                stale.pgconn.finish()
            self._idle.clear()
            self._loop, self._slots = loop, asyncio.Semaphore(self.max_connections)
        return self._slots

    async def _connect(self) -> Connection:
        connection: Connection = await self._pg.AsyncConnection.connect(
            self.url, autocommit=True, connect_timeout=self._connect_timeout
        )
        tolerate_surrogates(connection)
        await connection.execute(self._settings)
        return connection

    async def run(
        self,
        work: Callable[[Connection], Awaitable[T]],
        read_only: bool = False,
        *,
        one_statement: bool = False,
    ) -> T:
        """`work` in one transaction; any failure is `StoreUnavailable`, nothing kept.
        `one_statement`: `work` runs a single statement, which is its own transaction (no
        `BEGIN` and `COMMIT` round trips around it)."""
        if self._closed:
            raise self.unavailable("closed")
        async with self._bind():
            pooled = self._idle.pop() if self._idle else None
            if pooled is not None and not pooled.closed:
                try:
                    return await self._attempt(pooled, work, read_only, one_statement)
                except _Dropped:
                    pass  # the server dropped it meanwhile: once more on a new connection
            return await self._attempt(None, work, read_only, one_statement)

    async def _attempt(
        self,
        connection: Connection | None,
        work: Callable[[Connection], Awaitable[T]],
        read_only: bool,
        one_statement: bool = False,
    ) -> T:
        pooled = connection is not None
        try:
            async with asyncio.timeout(2 * self.timeout):
                if connection is None:
                    connection = await self._connect()
                if one_statement:  # autocommit: the statement commits itself
                    result = await work(connection)
                else:
                    async with connection.transaction():
                        if read_only:  # one snapshot for a record and its history
                            await connection.execute(
                                "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY"
                            )
                        result = await work(connection)
        except LeaseLost:
            self._put_back(connection)
            raise
        except (self._pg.Error, OSError, TimeoutError) as error:
            dropped = pooled and connection is not None and connection.broken
            self._discard(connection)
            if isinstance(error, TimeoutError):
                raise self.unavailable(f"no answer within {2 * self.timeout:g} s") from error
            if dropped:  # the connection failed, not the query (a lock wait is not retried)
                raise _Dropped from error
            raise self.unavailable(why(error)) from error
        except BaseException:
            self._discard(connection)
            raise
        self._put_back(connection)
        return result

    def _put_back(self, connection: Connection | None) -> None:
        if connection is None or connection.closed:
            return
        if self._closed:
            connection.pgconn.finish()
        else:
            self._idle.append(connection)

    @staticmethod
    def _discard(connection: Connection | None) -> None:
        """Drop a connection in an unknown state (the next call makes a new one)."""
        if connection is not None and not connection.closed:
            connection.pgconn.finish()

    async def close(self) -> None:
        """Close the idle connections; those in use close when their call ends."""
        self._closed = True
        idle, self._idle = self._idle, []
        for connection in idle:
            if self._loop is asyncio.get_running_loop():
                await connection.close()
            else:  # made in a loop that is gone: nothing to await there
                connection.pgconn.finish()
