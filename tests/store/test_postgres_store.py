"""The PostgreSQL store's own parts, on a real server (tests/pg_server.py): its migrations
(once, in order, refused when newer, whole or not at all, two processes at once), its bounded
waits (a server that is down, one that never answers, a lock held elsewhere: each a
`StoreUnavailable`, and served again after), and psycopg being optional."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import TypeVar

import psycopg
import pytest
from acp_codegen.runtime.store import postgres_store
from acp_codegen.runtime.store.durable import Batch, LeaseLost, StoredSession, StoreUnavailable
from acp_codegen.runtime.store.postgres_pool import NEEDS_PSYCOPG
from acp_codegen.runtime.store.postgres_schema import MIGRATIONS, migrate, schema_version
from acp_codegen.runtime.store.postgres_store import PostgresStore
from acp_codegen.runtime.store.store_url import OPTION_HELP, open_store
from acp_codegen.runtime.wire.jsonvalue import JsonObject

from tests.pg_server import PgServer, running_server, url_for

REPO = Path(__file__).resolve().parents[2]
HANG_GUARD = 60.0  # only turns a hang into a failure
T = TypeVar("T")

pytestmark = pytest.mark.slow


def run(main: Callable[[], Awaitable[T]]) -> T:
    async def guarded() -> T:
        return await asyncio.wait_for(main(), HANG_GUARD)

    return asyncio.run(guarded())


def versions(url: str) -> list[int]:
    with psycopg.connect(url) as db:
        return [row[0] for row in db.execute("SELECT version FROM acp_schema ORDER BY version")]


async def new_session(store: PostgresStore, session_id: str = "s1") -> None:
    await store.create(StoredSession(session_id, cwd="/w", owner="me"))


# -- migrations -----------------------------------------------------------------------------------


def test_a_new_database_is_migrated_once_and_reopening_applies_nothing(
    pg_server: PgServer,
) -> None:
    url = pg_server.fresh_database()
    PostgresStore(url)
    PostgresStore(url)
    assert versions(url) == list(range(1, len(MIGRATIONS) + 1))
    with psycopg.connect(url) as db:
        tables = {row[0] for row in db.execute("SELECT tablename FROM pg_tables")}
    assert {"acp_schema", "acp_sessions", "acp_history", "acp_prompt_keys"} <= tables


def test_only_the_lacking_migrations_are_applied_and_a_newer_schema_is_refused(
    pg_server: PgServer,
) -> None:
    url = pg_server.fresh_database()
    PostgresStore(url)
    later = (*MIGRATIONS, "CREATE TABLE acp_later (x INTEGER)")
    with psycopg.connect(url, autocommit=True) as db:
        assert migrate(db, later) == len(MIGRATIONS) + 1
        assert schema_version(db) == len(MIGRATIONS) + 1
        assert db.execute("SELECT COUNT(*) FROM acp_later").fetchone() == (0,)
    with pytest.raises(StoreUnavailable, match="newer than this agent knows"):
        PostgresStore(url)  # the database is ahead of this runtime: refused, not written


def test_a_failed_migration_leaves_the_database_as_it_was(pg_server: PgServer) -> None:
    url = pg_server.fresh_database()
    PostgresStore(url)
    with psycopg.connect(url, autocommit=True) as db:
        with pytest.raises(psycopg.Error):
            migrate(db, (*MIGRATIONS, "CREATE TABLE acp_ok (x INTEGER); THIS IS NOT SQL"))
        assert schema_version(db) == len(MIGRATIONS)
        assert db.execute("SELECT to_regclass('acp_ok')").fetchone() == (None,)


def test_processes_starting_at_once_migrate_once(pg_server: PgServer) -> None:
    url = pg_server.fresh_database()
    script = (
        "import sys\n"
        "from acp_codegen.runtime.store.postgres_store import PostgresStore\n"
        "PostgresStore(sys.argv[1])\n"
    )
    starters = [
        subprocess.Popen([sys.executable, "-c", script, url], cwd=REPO, stderr=subprocess.PIPE)
        for _ in range(4)
    ]
    errors = [starter.communicate(timeout=120)[1] for starter in starters]
    assert [starter.returncode for starter in starters] == [0] * 4, errors
    assert versions(url) == list(range(1, len(MIGRATIONS) + 1))


# -- what PostgreSQL holds that SQLite's file does not -------------------------------------------


def test_a_lone_surrogate_is_kept_escaped_and_read_back(pg_server: PgServer) -> None:
    async def main() -> object:
        store = PostgresStore(pg_server.fresh_database())
        await new_session(store)
        update: JsonObject = {"sessionUpdate": "agent_message_chunk", "text": "half \ud800 a pair"}
        await store.append(Batch("s1", 0, [update], "me"))
        record = await store.load("s1")
        await store.close()
        return None if record is None else record.history

    assert run(main) == [{"sessionUpdate": "agent_message_chunk", "text": "half \ud800 a pair"}]


def test_a_lone_surrogate_in_a_title_cwd_or_key_is_stored_escaped_never_an_error(
    pg_server: PgServer,
) -> None:
    async def main() -> None:
        store = PostgresStore(pg_server.fresh_database())
        cwd = "/w/\udc80"
        await store.create(StoredSession("s1", cwd=cwd, title="t \ud800", owner="me"))
        await store.append(Batch("s1", 0, [], "me", title="renamed \udfff"))
        assert await store.remember_prompt("s1", "key \ud800", "m1") == "m1"
        assert await store.remember_prompt("s1", "key \ud800", "m2") == "m1"
        assert await store.prompt_answer("s1", "key \ud800") == "m1"
        assert [r.session_id for r in await store.list(cwd)] == ["s1"]
        record = await store.load("s1")
        assert record is not None
        assert (record.cwd, record.title) == ("/w/\\udc80", "renamed \\udfff")
        assert await store.load("s\ud800") is None  # a client's id of that kind: unknown
        await store.close()

    run(main)


# -- bounded waits --------------------------------------------------------------------------------


def test_a_server_that_is_not_there_is_refused_at_start() -> None:
    with tempfile.TemporaryDirectory(prefix="acp-pg-none-", dir="/tmp") as empty:
        url = url_for(Path(empty), "sessions")
        with pytest.raises(StoreUnavailable, match=r"postgresql database sessions on .*acp-pg"):
            PostgresStore(url)
        with pytest.raises(ValueError, match=r"No such file or directory|connection"):
            open_store(url)


@contextlib.contextmanager
def silent_server() -> Iterator[Path]:
    """A unix socket where a PostgreSQL server would be that accepts and never answers."""
    with tempfile.TemporaryDirectory(prefix="acp-pg-mute-", dir="/tmp") as folder:
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(os.path.join(folder, ".s.PGSQL.5432"))
        listener.listen(16)
        accepted: list[socket.socket] = []
        stop = threading.Event()

        def accept() -> None:
            listener.settimeout(0.2)
            while not stop.is_set():
                with contextlib.suppress(TimeoutError):
                    accepted.append(listener.accept()[0])

        thread = threading.Thread(target=accept)
        thread.start()
        try:
            yield Path(folder)
        finally:
            stop.set()
            thread.join()
            for peer in accepted:
                peer.close()
            listener.close()


def test_a_server_that_never_answers_is_unavailable_not_a_hang() -> None:
    with silent_server() as folder, pytest.raises(StoreUnavailable, match=r"timeout|timed out"):
        PostgresStore(url_for(folder, "sessions"), timeout=1.0)


def test_a_server_restarted_is_not_seen_and_one_gone_is_unavailable_until_back() -> None:
    with running_server() as server:
        url = server.fresh_database()

        async def main() -> None:
            store = PostgresStore(url, timeout=2.0)
            await new_session(store)  # a connection in the pool
            server.stop()
            server.start()  # a restart between two calls is not seen: the pooled connection,
            await store.save_data("s1", "kept")  # dropped by the server, is replaced
            server.stop()
            with pytest.raises(StoreUnavailable, match="postgresql database"):
                await store.append(Batch("s1", 0, [{"sessionUpdate": "x"}], "me"))
            with pytest.raises(StoreUnavailable):
                await store.list()  # a new connection: refused too
            server.start()
            await store.append(Batch("s1", 0, [{"sessionUpdate": "x"}], "me"))
            record = await store.load("s1")
            assert record is not None and record.history == [{"sessionUpdate": "x"}]
            assert record.data == "kept"
            await store.close()

        run(main)


def test_a_lock_held_elsewhere_is_unavailable_within_the_timeout(pg_server: PgServer) -> None:
    url = pg_server.fresh_database()

    async def main() -> None:
        store = PostgresStore(url, timeout=0.5)
        await new_session(store)
        with psycopg.connect(url) as blocker:
            blocker.execute("LOCK TABLE acp_sessions IN ACCESS EXCLUSIVE MODE")
            with pytest.raises(StoreUnavailable, match=r"(lock|statement) timeout"):
                await store.append(Batch("s1", 0, [{"sessionUpdate": "x"}], "me"))
            blocker.rollback()
        await store.append(Batch("s1", 0, [{"sessionUpdate": "x"}], "me"))  # free: served
        record = await store.load("s1")
        assert record is not None and len(record.history) == 1
        await store.close()

    run(main)


def test_a_batch_is_one_round_trip_to_the_server(pg_server: PgServer, tmp_path: Path) -> None:
    """A turn's last write waits on the batch before it: each append is a single statement
    (lease checked, rows inserted, record updated), no BEGIN, UPDATE, INSERT, COMMIT."""
    url = pg_server.fresh_database()
    trace = tmp_path / "libpq.trace"

    async def main() -> None:
        store = PostgresStore(url)
        await new_session(store)
        (connection,) = store._pool._idle  # the one the appends will use
        with trace.open("w") as out:
            connection.pgconn.trace(out.fileno())  # every message libpq sends or reads
            connection.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)
            update: JsonObject = {"sessionUpdate": "agent_message_chunk", "n": 1}
            await store.append(Batch("s1", 0, [update] * 3, "me"))
            await store.append(Batch("s1", 3, [update] * 2, "me", title="t"))
            await store.append(Batch("s1", 5, [], "me", last_state={"state": "idle"}))
            await store.append(Batch("s1", 5, [update], "me", prompt_keys=[("k", "m1")]))
            connection.pgconn.untrace()
        assert store._pool._idle == [connection]  # the same connection throughout
        assert trace.read_text().count("ReadyForQuery") == 4  # one answer each
        record = await store.load("s1")
        assert record is not None and len(record.history) == 6 and record.title == "t"
        assert record.last_state == {"state": "idle"} and record.next_seq == 6
        assert record.prompt_keys == {"k": "m1"}
        await store.close()

    run(main)


def test_a_session_keeps_its_newest_keys_and_a_lost_lease_keeps_none(
    pg_server: PgServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postgres_store, "KEYS_KEPT", 2)
    url = pg_server.fresh_database()
    now = [1000.0]

    async def main() -> None:
        store = PostgresStore(url, clock=lambda: now[0])
        await new_session(store)
        for n in range(3):
            now[0] += 1
            await store.append(Batch("s1", n, [{"n": n}], "me", prompt_keys=[(f"k{n}", "m")]))
        await store.claim("s1", "other", take_over=True)
        with pytest.raises(LeaseLost):
            await store.append(Batch("s1", 3, [{"n": 3}], "me", prompt_keys=[("k3", "m")]))
        record = await store.load("s1")
        assert record is not None and record.prompt_keys == {"k1": "m", "k2": "m"}
        assert record.history == [{"n": 0}, {"n": 1}, {"n": 2}]
        await store.close()

    run(main)


def test_a_batch_waiting_on_a_take_over_in_flight_writes_nothing(pg_server: PgServer) -> None:
    """The lease is checked under the row's lock: a batch that waited for another process's
    claim to commit finds the session taken, raises `LeaseLost` and keeps none of its rows."""
    url = pg_server.fresh_database()

    async def main() -> None:
        store = PostgresStore(url)
        await new_session(store)
        with psycopg.connect(url) as other:  # another process, taking the session over
            other.execute("UPDATE acp_sessions SET owner = 'other' WHERE session_id = 's1'")
            write = asyncio.create_task(
                store.append(Batch("s1", 0, [{"sessionUpdate": "x"}], "me"))
            )
            with psycopg.connect(url, autocommit=True) as watch:
                while not watch.execute(  # the append waits on the claim's row lock
                    "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                ).fetchone():
                    await asyncio.sleep(0.01)
            other.commit()
        with pytest.raises(LeaseLost):
            await write
        record = await store.load("s1")
        assert record is not None and record.history == [] and record.owner == "other"
        await store.close()

    run(main)


def test_no_message_shows_the_password() -> None:
    with tempfile.TemporaryDirectory(prefix="acp-pg-none-", dir="/tmp") as empty:
        url = f"postgresql://acp:hunter2-secret@/sessions?host={empty}"
        with pytest.raises(StoreUnavailable) as caught:
            PostgresStore(url)
    assert "hunter2" not in str(caught.value) and "sessions" in str(caught.value)


# -- the URL, and psycopg optional ---------------------------------------------------------------


def test_both_of_libpqs_schemes_open_a_postgresql_store(pg_server: PgServer) -> None:
    url = pg_server.fresh_database()
    for spelling in (url, url.replace("postgresql://", "postgres://", 1)):
        store = open_store(spelling)
        assert isinstance(store, PostgresStore)
    assert "postgresql://" in OPTION_HELP


def test_without_psycopg_a_postgresql_url_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg: ImportError
    with pytest.raises(ValueError, match=r"acp-codegen\[postgres\]") as caught:
        open_store("postgresql://acp@/sessions?host=/nowhere")
    assert NEEDS_PSYCOPG in str(caught.value)


def test_the_generated_package_stands_alone_without_psycopg(tmp_path: Path) -> None:
    """The bindings import, and serve a SQLite store, where psycopg cannot be imported."""
    script = (
        "import sys\n"
        "sys.modules['psycopg'] = None\n"
        "from acp_bindings._runtime.store import store_url, postgres_store, postgres_pool\n"
        f"store = store_url.open_store('sqlite:///{tmp_path / 's.db'}')\n"
        "try:\n"
        "    store_url.open_store('postgresql://acp@/x?host=/nowhere')\n"
        "except ValueError as error:\n"
        "    print(error)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO / "generated")}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == NEEDS_PSYCOPG
