"""What every durable session store does, run on each kind against a real database (SQLite
and PostgreSQL, tests/store/conftest.py): records, history in order with a retried batch kept
once, the author's data, idempotency keys, retention, and the lease between processes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest
from acp_codegen.runtime.rpc.messages import notification_message
from acp_codegen.runtime.rpc.task_owner import TaskOwner
from acp_codegen.runtime.store.durable import (
    Batch,
    DurableStore,
    LeaseLost,
    StoredSession,
    StoreLimits,
)
from acp_codegen.runtime.store.journal import Journal
from acp_codegen.runtime.wire.jsonvalue import JsonObject
from acp_codegen.runtime.wire.line_framing import encode_json
from acp_codegen.runtime.wire.protocol import SESSION_UPDATE

from .conftest import MakeStore

HANG_GUARD = 60.0  # only turns a hang into a failure
OWNER = "process-a"
T = TypeVar("T")


def run(main: Callable[[], Awaitable[T]]) -> T:
    async def guarded() -> T:
        return await asyncio.wait_for(main(), HANG_GUARD)

    return asyncio.run(guarded())


def chunk(n: int, text: str | None = None) -> JsonObject:
    return {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m",
        "content": {"type": "text", "text": str(n) if text is None else text},
    }


def texts(record: StoredSession | None) -> list[str]:
    assert record is not None
    found = []
    for update in record.history:
        content = update["content"]
        assert isinstance(content, dict)
        found.append(str(content["text"]))
    return found


async def new_session(store: DurableStore, session_id: str = "s1", cwd: str = "/w") -> None:
    await store.create(StoredSession(session_id, cwd=cwd, setup={"cwd": cwd}, owner=OWNER))


def batch(session_id: str, first: int, count: int, owner: str = OWNER, **fields: object) -> Batch:
    updates = [chunk(n) for n in range(first, first + count)]
    return Batch(session_id, first, updates, owner, **fields)  # type: ignore[arg-type]


def test_a_record_is_kept_listed_by_cwd_and_deleted(make_store: MakeStore) -> None:
    async def main() -> None:
        store = make_store()
        setup: JsonObject = {"cwd": "/one", "mcpServers": [], "additionalDirectories": ["/x"]}
        config: JsonObject = {"configOptions": [{"id": "mode", "currentValue": "ask"}]}
        await store.create(
            StoredSession("a", cwd="/one", title="first", setup=setup, config=config, owner=OWNER)
        )
        await new_session(store, "b", "/two")
        await store.append(batch("b", 0, 1))  # b changed last
        assert [r.session_id for r in await store.list()] == ["a", "b"]
        assert [r.session_id for r in await store.list("/two")] == ["b"]
        record = await store.load("a")
        assert record is not None
        assert (record.cwd, record.title, record.setup, record.config, record.owner) == (
            "/one", "first", setup, config, OWNER
        )  # fmt: skip
        assert record.history == [] and record.next_seq == 0 and record.updated_at > 0
        await store.delete("a")
        assert await store.load("a") is None
        assert [r.session_id for r in await store.list()] == ["b"]
        assert await store.load("never") is None
        await store.close()

    run(main)


def test_appends_load_in_order_and_a_retried_batch_is_kept_once(make_store: MakeStore) -> None:
    async def main() -> None:
        store = make_store()
        await new_session(store)
        await store.append(batch("s1", 0, 3, title="named"))
        await store.append(batch("s1", 3, 2))
        await store.append(batch("s1", 3, 2))  # the same batch again (an unclear failure)
        state: JsonObject = {"sessionUpdate": "state_update", "state": "running"}
        await store.append(batch("s1", 5, 2, last_state=state, config=[{"id": "m"}]))
        record = await store.load("s1")
        assert texts(record) == ["0", "1", "2", "3", "4", "5", "6"]
        assert record is not None
        assert record.title == "named" and record.next_seq == 7
        assert record.last_state == state and record.config == [{"id": "m"}]
        await store.append(batch("s1", 7, 0, cleared_title=True))
        cleared = await store.load("s1")
        assert cleared is not None and cleared.title is None and texts(cleared) == texts(record)
        await store.close()

    run(main)


def test_any_json_text_comes_back_as_it_went(make_store: MakeStore) -> None:
    hostile = 'nul \x00 esc \x1b[2J bidi \u202e emoji \U0001f600 quote " backslash \\'

    async def main() -> None:
        store = make_store()
        await new_session(store)
        await store.append(Batch("s1", 0, [chunk(0, hostile)], OWNER))
        await store.save_data("s1", {"note": hostile})
        record = await store.load("s1")
        assert texts(record) == [hostile]
        assert record is not None and record.data == {"note": hostile}
        await store.close()

    run(main)


def test_a_batch_keeps_the_wire_frames_bytes_and_encodes_only_what_has_none(
    make_store: MakeStore,
) -> None:
    """The update part of each frame (the `session/update` notification as the connection
    wrote it) is stored as it is: a frame whose update differs from the dict shows which was
    kept. A frame of another session or shape, and no frame, are encoded from the dict; a
    lone surrogate (written with ASCII escapes) comes back exact."""

    def frame(session_id: str, update: JsonObject) -> bytes:
        params: JsonObject = {"sessionId": session_id, "update": update}
        return encode_json(notification_message(SESSION_UPDATE, params))

    surrogate = "lone \ud800 caf\u00e9"  # JSON escapes: the text holds a lone surrogate
    updates = [chunk(0), chunk(1), chunk(2), chunk(3), chunk(4)]
    frames: list[object] = [
        frame("s1", chunk(0, "from the wire")),  # kept: its text, not the dict's
        frame("other", chunk(1, "another session")),  # not this session's: the dict
        None,
        b"not a notification}}",
        frame("s1", chunk(4, json.loads(f'"{surrogate}"'))),
    ]

    async def main() -> None:
        store = make_store()
        await new_session(store)
        await store.append(Batch("s1", 0, updates, OWNER, frames=frames))
        assert texts(await store.load("s1")) == [
            "from the wire", "1", "2", "3", json.loads(f'"{surrogate}"')
        ]  # fmt: skip
        await store.close()

    run(main)


def test_the_authors_data_and_prompt_keys_are_kept(make_store: MakeStore) -> None:
    async def main() -> None:
        store = make_store()
        await new_session(store)
        await store.save_data("s1", {"notes": ["a", 1, None, True]})
        assert await store.remember_prompt("s1", "key-1", "msg_1") == "msg_1"
        assert await store.remember_prompt("s1", "key-1", "msg_2") == "msg_1"  # retried
        assert await store.prompt_answer("s1", "key-1") == "msg_1"
        assert await store.prompt_answer("s1", "key-2") is None
        record = await store.load("s1")
        assert record is not None and record.data == {"notes": ["a", 1, None, True]}
        later = make_store()  # another process, the same database
        assert await later.prompt_answer("s1", "key-1") == "msg_1"
        await later.delete("s1")  # keys go with their session
        assert await store.prompt_answer("s1", "key-1") is None
        await store.close()
        await later.close()

    run(main)


def test_keys_come_with_their_batch_and_any_text_is_kept(make_store: MakeStore) -> None:
    """A batch's idempotency keys are kept in its transaction and come back with the session
    (oldest first); a lone surrogate in a prompt, a title or a key is no error: the update comes
    back exact, the plain-text fields as their escape."""
    odd = "x\ud800y"

    async def main() -> None:
        store = make_store()
        await new_session(store)
        keys = [("k-1", "msg_1"), ("k-2", "msg_2")]
        await store.append(batch("s1", 0, 1, prompt_keys=keys))
        await store.append(
            Batch("s1", 1, [chunk(1, odd)], OWNER, title=odd, prompt_keys=[(odd, "m")])
        )
        record = await store.load("s1")
        assert record is not None
        assert list(record.prompt_keys.items())[:2] == keys
        assert record.prompt_keys[odd.encode("utf-8", "backslashreplace").decode()] == "m"
        assert texts(record)[-1] == odd  # the JSON history: exact
        assert record.title == "x\\ud800y"
        assert await store.prompt_answer("s1", "k-2") == "msg_2"
        await store.close()

    run(main)


def test_a_sessions_oldest_history_goes_past_the_byte_limit(make_store: MakeStore) -> None:
    size = len(b'{"sessionUpdate":"agent_message_chunk","messageId":"m","content":'
               b'{"type":"text","text":"0"}}')  # fmt: skip

    async def main() -> None:
        # four updates fit, written one per batch as a quiet session's journal does (a store
        # may keep each as it is or in a JSON array: 2 bytes more each, room left for them)
        store = make_store(StoreLimits(max_session_bytes=size * 4 + 8))
        await new_session(store)
        for n in range(6):
            await store.append(batch("s1", n, 1))
        assert texts(await store.load("s1")) == ["2", "3", "4", "5"]  # the newest four fit
        await store.append(batch("s1", 6, 1))
        assert texts(await store.load("s1")) == ["3", "4", "5", "6"]
        await store.close()

    run(main)


def test_old_sessions_and_those_past_the_count_cap_are_dropped(make_store: MakeStore) -> None:
    now = [1000.0]

    async def main() -> None:
        limits = StoreLimits(max_age_seconds=100.0, max_sessions=2)
        store = make_store(limits, clock=lambda: now[0])
        for name in ("a", "b", "c"):
            await new_session(store, name)
            now[0] += 1
        assert [r.session_id for r in await store.list()] == ["b", "c"]  # a: least recent
        now[0] += 98.5  # 1101.5: b, last changed at 1001, is 100.5 s old; c (1002) not
        assert [r.session_id for r in await store.list()] == ["c"]
        assert await store.load("b") is None
        await store.append(batch("c", 0, 1))  # changed now: kept another 100 s
        now[0] += 99
        assert texts(await store.load("c")) == ["0"]
        await store.close()

    run(main)


def test_the_lease_lets_one_process_write_and_a_take_over_moves_it(
    make_store: MakeStore,
) -> None:
    async def main() -> None:
        store = make_store()
        await new_session(store)
        assert await store.claim("s1", OWNER) == 0  # already the caller's: renewed
        assert await store.claim("s1", "process-b") is None  # held, not expired
        assert await store.claim("unknown", "process-b", take_over=True) is None
        assert await store.claim("s1", "process-b", take_over=True) == 0  # the next number
        with pytest.raises(LeaseLost):
            await store.append(batch("s1", 0, 1))  # OWNER lost it: nothing written
        record = await store.load("s1")
        assert record is not None and record.history == [] and record.owner == "process-b"
        await store.append(batch("s1", 0, 1, owner="process-b"))
        await store.release("s1", OWNER)  # not OWNER's: nothing changes
        assert await store.claim("s1", OWNER) is None
        await store.release("s1", "process-b")
        assert await store.claim("s1", OWNER) == 1  # free; process-b wrote update 0
        assert texts(await store.load("s1")) == ["0"]
        await store.close()

    run(main)


def test_an_expired_lease_is_taken_without_take_over(make_store: MakeStore) -> None:
    now = [5000.0]

    async def main() -> None:
        store = make_store(clock=lambda: now[0], lease_seconds=30.0)
        await new_session(store)
        await store.append(batch("s1", 0, 1))  # renews: held until 5030
        now[0] += 29
        assert await store.claim("s1", "process-b") is None
        now[0] += 2  # 5031: expired
        assert await store.claim("s1", "process-b") == 1
        with pytest.raises(LeaseLost):
            await store.append(batch("s1", 1, 1))
        assert texts(await store.load("s1")) == ["0"]
        await store.close()

    run(main)


def test_a_renewal_keeps_the_holders_leases_in_one_call_and_names_those_lost(
    make_store: MakeStore,
) -> None:
    """An idle session's lease is kept by `renew` (no write); a session another process took,
    or one unknown, is not renewed and not named."""
    now = [5000.0]

    async def main() -> None:
        store = make_store(clock=lambda: now[0], lease_seconds=30.0)
        for sid in ("s1", "s2", "s3"):
            await new_session(store, sid)  # held until 5030
        now[0] += 31  # 5031: all expired
        assert await store.claim("s3", "process-b") == 0  # nobody renewed s3: b took it
        renewed = await store.renew(OWNER, ["s1", "s2", "s3", "unknown"])
        assert renewed == {"s1", "s2"}
        now[0] += 29  # 5060: within the renewed lease (until 5061)
        assert await store.claim("s1", "process-b") is None
        assert await store.claim("s2", "process-b") is None
        assert await store.renew("process-b", ["s1", "s3"]) == {"s3"}
        assert await store.renew(OWNER, []) == set()
        now[0] += 2  # 5062: s1 and s2 expired again, nobody renewed them
        assert await store.claim("s1", "process-b") == 0
        await store.close()

    run(main)


def test_of_processes_claiming_at_once_exactly_one_holds_the_session(
    make_store: MakeStore,
) -> None:
    async def main() -> None:
        first = make_store()
        await new_session(first)
        await first.release("s1", OWNER)
        stores = [make_store() for _ in range(4)]  # four processes' views of one database
        won = await asyncio.gather(
            *(store.claim("s1", f"p{n}") for n, store in enumerate(stores) for _ in range(3))
        )
        winners = {f"p{n // 3}" for n, took in enumerate(won) if took is not None}
        assert len(winners) == 1
        record = await first.load("s1")
        assert record is not None and {record.owner} == winners
        for store in (first, *stores):
            await store.close()

    run(main)


def test_a_journal_writes_a_long_turn_in_batches_in_order(make_store: MakeStore) -> None:
    async def main() -> None:
        store = make_store()
        await new_session(store)
        async with TaskOwner("journals") as tasks:
            journal = Journal(store, "s1", OWNER, 0, tasks, batch_size=100, interval=60.0)
            for n in range(1000):
                journal.add(chunk(n))
            idle: JsonObject = {"sessionUpdate": "state_update", "state": "idle"}
            await journal.state(idle)  # a turn's end: written before it returns
            assert journal.pending == 0 and journal.failure is None
        record = await store.load("s1")
        assert texts(record) == [str(n) for n in range(1000)]
        assert record is not None and record.last_state == idle and record.next_seq == 1000
        await store.close()

    run(main)
