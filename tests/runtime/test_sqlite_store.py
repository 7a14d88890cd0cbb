"""The durable session store on a real SQLite file: migrations, append order, batching,
retention, the lease, idempotency keys, several processes on one file, and the errors of a
corrupt or locked file (runtime/store/)."""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest
from acp_codegen.runtime.rpc.task_owner import TaskOwner
from acp_codegen.runtime.store.durable import (
    Batch,
    LeaseLost,
    StoredSession,
    StoreLimits,
    StoreUnavailable,
)
from acp_codegen.runtime.store.journal import Journal
from acp_codegen.runtime.store.sqlite_schema import MIGRATIONS, migrate, schema_version
from acp_codegen.runtime.store.sqlite_store import SqliteStore
from acp_codegen.runtime.store.store_url import (
    add_store_arguments,
    open_store,
    store_path,
    store_setting,
)
from acp_codegen.runtime.wire.jsonvalue import JsonObject

REPO = Path(__file__).resolve().parents[2]
HANG_GUARD = 60.0  # only turns a hang into a failure
T = TypeVar("T")
OWNER = "test-owner"


def run(main: Callable[[], Awaitable[T]]) -> T:
    async def guarded() -> T:
        return await asyncio.wait_for(main(), HANG_GUARD)

    return asyncio.run(guarded())


def chunk(n: int) -> JsonObject:
    return {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m",
        "content": {"type": "text", "text": str(n)},
    }


def texts(history: list[JsonObject]) -> list[str]:
    found = []
    for update in history:
        content = update["content"]
        assert isinstance(content, dict)
        found.append(str(content["text"]))
    return found


async def new_session(store: SqliteStore, session_id: str = "s1", cwd: str = "/w") -> None:
    await store.create(StoredSession(session_id, cwd=cwd, setup={"cwd": cwd}, owner=OWNER))


def batch(session_id: str, first: int, count: int, **fields: object) -> Batch:
    updates = [chunk(n) for n in range(first, first + count)]
    return Batch(session_id, first, updates, OWNER, **fields)  # type: ignore[arg-type]


class CountingStore(SqliteStore):
    """A real store that counts its append transactions."""

    appends = 0

    async def append(self, batch: Batch) -> None:
        self.appends += 1
        await super().append(batch)


# -- migrations -----------------------------------------------------------------------------------


def test_a_new_file_is_migrated_once_and_reopening_applies_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    SqliteStore(path)
    SqliteStore(path)
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT version FROM acp_schema").fetchall()
        journal_mode = db.execute("PRAGMA journal_mode").fetchone()[0]
    assert rows == [(len(MIGRATIONS),)]
    assert journal_mode == "wal"


def test_only_the_migrations_a_file_lacks_are_applied_in_order(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    SqliteStore(path)
    later = (*MIGRATIONS, "CREATE TABLE later_one (x INTEGER)")
    db = sqlite3.connect(path, isolation_level=None)
    assert migrate(db, later) == len(MIGRATIONS) + 1
    assert schema_version(db) == len(MIGRATIONS) + 1
    assert db.execute("SELECT COUNT(*) FROM later_one").fetchone() == (0,)
    db.close()
    with pytest.raises(StoreUnavailable, match="newer than this agent knows"):
        SqliteStore(path)  # the file is ahead of this runtime: refused, not written


def test_a_failed_migration_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    SqliteStore(path)
    db = sqlite3.connect(path, isolation_level=None)
    with pytest.raises(sqlite3.Error):
        migrate(db, (*MIGRATIONS, "CREATE TABLE ok (x); THIS IS NOT SQL"))
    assert schema_version(db) == len(MIGRATIONS)
    assert db.execute("SELECT name FROM sqlite_master WHERE name = 'ok'").fetchone() is None
    db.close()


# -- appends, loads -------------------------------------------------------------------------------


def test_appends_are_loaded_in_order_and_a_retried_batch_is_kept_once(tmp_path: Path) -> None:
    async def main() -> StoredSession | None:
        store = SqliteStore(tmp_path / "s.db")
        await new_session(store)
        await store.append(batch("s1", 0, 3, title="named"))
        await store.append(batch("s1", 3, 2))
        await store.append(batch("s1", 3, 2))  # the same batch again (an unclear failure)
        state: JsonObject = {"sessionUpdate": "state_update", "state": "running"}
        await store.append(batch("s1", 5, 1, last_state=state))
        record = await store.load("s1")
        await store.close()
        return record

    record = run(main)
    assert record is not None
    assert texts(record.history) == ["0", "1", "2", "3", "4", "5"]
    assert record.title == "named" and record.next_seq == 6 and record.cwd == "/w"
    assert record.last_state == {"sessionUpdate": "state_update", "state": "running"}


def test_list_filters_by_cwd_and_delete_forgets(tmp_path: Path) -> None:
    async def main() -> tuple[list[str], list[str], object]:
        store = SqliteStore(tmp_path / "s.db")
        await new_session(store, "a", "/one")
        await new_session(store, "b", "/two")
        await store.append(batch("b", 0, 1))
        both = [r.session_id for r in await store.list()]
        await store.delete("a")
        one = [r.session_id for r in await store.list("/two")]
        gone = await store.load("a")
        return both, one, gone

    both, one, gone = run(main)
    assert both == ["a", "b"] and one == ["b"] and gone is None


def test_the_authors_data_and_idempotency_keys_are_kept(tmp_path: Path) -> None:
    async def main() -> tuple[object, str, str, object, object]:
        store = SqliteStore(tmp_path / "s.db")
        await new_session(store)
        await store.save_data("s1", {"notes": ["a", 1]})
        first = await store.remember_prompt("s1", "key-1", "msg_1")
        again = await store.remember_prompt("s1", "key-1", "msg_2")  # a retried prompt
        record = await store.load("s1")
        unknown = await store.prompt_answer("s1", "key-2")
        return (record.data if record else None), first, again, unknown, None

    data, first, again, unknown, _ = run(main)
    assert data == {"notes": ["a", 1]}
    assert first == again == "msg_1" and unknown is None


def test_keys_written_with_a_batch_come_back_with_the_session_newest_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch carries the idempotency keys its prompts were accepted with (the journal's
    `remember_key`), in its own transaction; `load` gives them back, a session keeping only
    the newest `KEYS_KEPT` as it does in memory."""
    from acp_codegen.runtime.store import sqlite_store

    monkeypatch.setattr(sqlite_store, "KEYS_KEPT", 2)

    async def main() -> tuple[dict[str, str], str | None, int]:
        store = SqliteStore(tmp_path / "s.db")
        await new_session(store)
        journal = Journal(store, "s1", OWNER, 0, TaskOwner("test"))
        journal.remember_key("k-1", "msg_1")
        journal.add(chunk(0))
        await journal.flush()
        await store.append(batch("s1", 1, 1, prompt_keys=[("k-2", "msg_2"), ("k-3", "msg_3")]))
        record = await store.load("s1")
        assert record is not None
        return record.prompt_keys, await store.prompt_answer("s1", "k-3"), len(record.history)

    keys, answer, count = run(main)
    assert answer == "msg_3" and count == 2
    assert set(keys) == {"k-2", "k-3"}  # k-1, the oldest, went past the cap
    assert keys["k-2"] == "msg_2"


def test_the_lease_lets_one_process_write_and_a_take_over_moves_it(tmp_path: Path) -> None:
    async def main() -> None:
        store = SqliteStore(tmp_path / "s.db")
        await new_session(store)
        assert await store.claim("s1", "other") is None  # held by OWNER, not expired
        assert await store.claim("s1", "other", take_over=True) == 0  # next update's number
        assert await store.claim("unknown", "other", take_over=True) is None
        with pytest.raises(LeaseLost):
            await store.append(batch("s1", 0, 1))  # OWNER lost it: nothing written
        record = await store.load("s1")
        assert record is not None and record.history == [] and record.owner == "other"
        await store.release("s1", "other")
        assert await store.claim("s1", OWNER) == 0

    run(main)


# -- the journal ----------------------------------------------------------------------------------


def test_the_journal_writes_a_long_turn_in_batches_in_order(tmp_path: Path) -> None:
    async def main() -> tuple[int, list[str], int]:
        store = CountingStore(tmp_path / "s.db")
        await new_session(store)
        async with TaskOwner("journals") as tasks:
            journal = Journal(store, "s1", OWNER, 0, tasks, batch_size=100, interval=60.0)
            for n in range(1000):
                journal.add(chunk(n))
            idle: JsonObject = {"sessionUpdate": "state_update", "state": "idle"}
            await journal.state(idle)  # a turn's end: written before it returns
            pending = journal.pending
        record = await store.load("s1")
        assert record is not None and record.last_state == idle
        return store.appends, texts(record.history), pending

    appends, stored, pending = run(main)
    assert stored == [str(n) for n in range(1000)]
    assert pending == 0
    assert appends <= 11  # ten full batches and the end, not a thousand transactions


class CountingJournal(Journal):
    """A journal that counts its writes (each spawned or awaited flush)."""

    __slots__ = ("flushes",)

    async def flush(self) -> None:
        self.flushes = getattr(self, "flushes", 0) + 1
        await super().flush()


def test_the_journal_spawns_no_write_per_update_while_one_is_in_flight(tmp_path: Path) -> None:
    async def main() -> tuple[int, list[str]]:
        store = SqliteStore(tmp_path / "s.db")
        await new_session(store)
        async with TaskOwner("journals") as tasks:
            journal = CountingJournal(store, "s1", OWNER, 0, tasks, batch_size=100)
            for n in range(1000):
                journal.add(chunk(n))
                if n % 10 == 0:
                    await asyncio.sleep(0)  # a turn yields now and then: writes get going
            await journal.flush()
        record = await store.load("s1")
        assert record is not None
        return journal.flushes, texts(record.history)

    flushes, stored = run(main)
    assert stored == [str(n) for n in range(1000)]
    assert flushes <= 15  # about one per full batch, not one per update


def test_the_journal_writes_a_lone_update_after_its_interval(tmp_path: Path) -> None:
    async def main() -> list[str]:
        store = SqliteStore(tmp_path / "s.db")
        await new_session(store)
        async with TaskOwner("journals") as tasks:
            journal = Journal(store, "s1", OWNER, 0, tasks, interval=0.01)
            journal.add(chunk(7))
            while True:  # nobody flushes: the timer does (bounded by HANG_GUARD)
                record = await store.load("s1")
                if record is not None and record.history:
                    return texts(record.history)
                await asyncio.sleep(0.01)

    assert run(main) == ["7"]


def test_a_failed_write_keeps_its_updates_for_the_next_one(tmp_path: Path) -> None:
    path = tmp_path / "s.db"

    async def main() -> tuple[str | None, str | None, list[str]]:
        store = SqliteStore(path, busy_timeout=0.05)
        await new_session(store)
        async with TaskOwner("journals") as tasks:
            journal = Journal(store, "s1", OWNER, 0, tasks, interval=60.0)
            journal.add(chunk(0))
            blocker = sqlite3.connect(path, isolation_level=None)
            blocker.execute("BEGIN EXCLUSIVE")
            with pytest.raises(StoreUnavailable, match="locked"):
                await journal.flush()
            failed = journal.failure
            journal.add(chunk(1))
            blocker.execute("ROLLBACK")
            blocker.close()
            await journal.flush()
            healed = journal.failure
        record = await store.load("s1")
        assert record is not None
        return failed, healed, texts(record.history)

    failed, healed, stored = run(main)
    assert failed is not None and "locked" in failed
    assert healed is None
    assert stored == ["0", "1"]


# -- retention ------------------------------------------------------------------------------------


def test_a_sessions_oldest_history_goes_past_the_byte_limit(tmp_path: Path) -> None:
    size = len(b'{"sessionUpdate":"agent_message_chunk","messageId":"m","content":'
               b'{"type":"text","text":"0"}}')  # fmt: skip

    async def main() -> list[str]:
        store = SqliteStore(tmp_path / "s.db", StoreLimits(max_session_bytes=size * 4))
        await new_session(store)
        await store.append(batch("s1", 0, 3))
        await store.append(batch("s1", 3, 3))
        record = await store.load("s1")
        assert record is not None
        return texts(record.history)

    assert run(main) == ["3", "4", "5"]  # the oldest batch went: the newest fits


def test_old_sessions_and_those_past_the_count_cap_are_dropped(tmp_path: Path) -> None:
    now = [1000.0]

    async def main() -> tuple[list[str], list[str]]:
        limits = StoreLimits(max_age_seconds=100.0, max_sessions=2)
        store = SqliteStore(tmp_path / "s.db", limits, clock=lambda: now[0])
        for name in ("a", "b", "c"):
            await new_session(store, name)
            now[0] += 1
        capped = [r.session_id for r in await store.list()]
        now[0] += 98.5  # 1101.5: b, last changed at 1001, is 100.5 s old; c (1002) not
        aged = [r.session_id for r in await store.list()]
        return capped, aged

    capped, aged = run(main)
    assert capped == ["b", "c"]  # the least recently updated went
    assert aged == ["c"]


# -- several processes, broken files ------------------------------------------------------------

WRITER = textwrap.dedent("""
    import asyncio, sys
    from acp_codegen.runtime.store.durable import Batch, StoredSession
    from acp_codegen.runtime.store.sqlite_store import SqliteStore

    async def main(path, name):
        store = SqliteStore(path, busy_timeout=30)
        await store.create(StoredSession(name, cwd="/w", owner=name))
        for first in range(0, 400, 20):
            updates = [{"sessionUpdate": "x", "n": n} for n in range(first, first + 20)]
            await store.append(Batch(name, first, updates, name))
        await store.close()

    asyncio.run(main(sys.argv[1], sys.argv[2]))
    """)


@pytest.mark.slow
def test_several_processes_share_one_file(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    names = [f"p{n}" for n in range(4)]
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), name], cwd=REPO)
        for name in names
    ]
    assert [writer.wait(timeout=120) for writer in writers] == [0] * len(names)

    async def main() -> dict[str, list[object]]:
        store = SqliteStore(path)
        found: dict[str, list[object]] = {}
        for name in names:
            record = await store.load(name)
            assert record is not None
            found[name] = [update["n"] for update in record.history]
        return found

    found = run(main)
    assert found == {name: list(range(400)) for name in names}


def test_a_corrupt_file_is_refused_at_start(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    path.write_bytes(b"this is not a database, just some bytes " * 100)
    with pytest.raises(StoreUnavailable, match="not a database"):
        SqliteStore(path)
    with pytest.raises(ValueError, match="not a database"):
        open_store(f"sqlite:///{path}")


def test_a_file_that_cannot_be_made_is_refused_at_start(tmp_path: Path) -> None:
    with pytest.raises(StoreUnavailable, match="unable to open"):
        SqliteStore(tmp_path / "no such folder" / "s.db")


def test_a_locked_file_answers_an_error_within_the_busy_timeout(tmp_path: Path) -> None:
    path = tmp_path / "s.db"

    async def main() -> None:
        store = SqliteStore(path, busy_timeout=0.1)
        blocker = sqlite3.connect(path, isolation_level=None)
        blocker.execute("BEGIN EXCLUSIVE")
        try:
            with pytest.raises(StoreUnavailable, match="database is locked"):
                await new_session(store)
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        await new_session(store)  # free again: served
        assert [r.session_id for r in await store.list()] == ["s1"]

    run(main)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("sessions.db", "not a URL"),
        ("postgresql://db/x", "scheme 'postgresql' is not supported"),
        ("sqlite://host/x.db", "names a host"),
        ("sqlite:///", "names no file"),
        ("sqlite:///x.db?mode=ro", "names no file"),
    ],
)
def test_a_bad_store_url_says_what_is_expected(url: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as caught:
        store_path(url)
    assert "sqlite:///PATH" in str(caught.value)


def test_a_store_url_names_its_path_after_the_third_slash() -> None:
    assert store_path("sqlite:///sessions.db") == "sessions.db"
    assert store_path("sqlite:////var/lib/s.db") == "/var/lib/s.db"


def test_the_store_options_give_the_limits(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    add_store_arguments(parser)
    url = f"sqlite:///{tmp_path / 's.db'}"
    limits = ["--session-store-max-sessions", "3", "--session-store-max-age", "60"]
    args = parser.parse_args(["--session-store", url, *limits, "--session-store-max-bytes", "4096"])
    store = store_setting(parser, args)
    assert isinstance(store, SqliteStore)
    assert store.limits == StoreLimits(max_session_bytes=4096, max_age_seconds=60, max_sessions=3)
    assert store_setting(parser, parser.parse_args([])) is None


@pytest.mark.parametrize(
    "argv",
    [
        ["--session-store-max-sessions", "3"],  # a limit without a store
        ["--session-store", "sqlite:///s.db", "--session-store-max-bytes", "0"],
    ],
)
def test_store_options_that_make_no_sense_are_usage_errors(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser()
    add_store_arguments(parser)
    with pytest.raises(SystemExit) as stopped:
        store_setting(parser, parser.parse_args(argv))
    assert stopped.value.code == 2
    assert "--session-store" in capsys.readouterr().err


class TinyStore(SqliteStore):
    """A store whose file may not grow past a few pages: SQLite's own "disk full"."""

    def _connect(self) -> sqlite3.Connection:
        connection = super()._connect()
        connection.execute("PRAGMA max_page_count = 12")
        return connection


def test_a_full_store_is_an_error_and_the_journal_keeps_the_updates(tmp_path: Path) -> None:
    async def main() -> tuple[str | None, int]:
        store = TinyStore(tmp_path / "s.db", StoreLimits(max_session_bytes=None))
        await new_session(store)
        async with TaskOwner("journals") as tasks:
            journal = Journal(store, "s1", OWNER, 0, tasks, interval=60.0)
            big = "x" * 2000
            for n in range(40):
                journal.add({"sessionUpdate": "agent_message_chunk", "n": n, "text": big})
            with pytest.raises(StoreUnavailable, match="full"):
                await journal.flush()
            return journal.failure, journal.pending

    failure, pending = run(main)
    assert failure is not None and "database or disk is full" in failure
    assert pending == 40  # kept, in order, for the next try


def test_a_store_that_raises_anything_else_is_a_failure_not_a_dead_write(tmp_path: Path) -> None:
    """An author's own store may raise what it likes: the journal reports it as the store being
    unavailable and keeps the updates for the next try, so no turn waits on a write that died."""

    class Broken(SqliteStore):
        fail = True

        async def append(self, batch: Batch) -> None:
            if self.fail:
                raise RuntimeError("disk on fire")
            await super().append(batch)

    async def main() -> tuple[str | None, int, list[str]]:
        store = Broken(tmp_path / "s.db")
        await new_session(store)
        journal = Journal(store, "s1", OWNER, 0, TaskOwner("test"))
        journal.add(chunk(0))
        with pytest.raises(StoreUnavailable, match="disk on fire"):
            await journal.flush()
        failure, pending = journal.failure, journal.pending
        store.fail = False
        await journal.flush()
        record = await store.load("s1")
        assert record is not None
        return failure, pending, texts(record.history)

    failure, pending, written = run(main)
    assert failure is not None and "disk on fire" in failure
    assert pending == 1 and written == ["0"]
