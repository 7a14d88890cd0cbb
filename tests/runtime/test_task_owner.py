"""`TaskOwner`: it keeps what it spawns, reports failures, and closing it cancels exactly its
own tasks and waits for them."""

from __future__ import annotations

import asyncio
import logging

import pytest
from acp_codegen.runtime.rpc.task_owner import TaskOwner

from .streams import run


async def _forever(started: asyncio.Event | None = None) -> None:
    if started is not None:
        started.set()
    await asyncio.Event().wait()


def test_a_finished_task_is_let_go_and_its_result_kept() -> None:
    async def main() -> None:
        owner = TaskOwner("test")

        async def seven() -> int:
            return 7

        task = owner.spawn(seven(), name="seven")
        assert task in owner.running and len(owner.running) == 1
        assert await task == 7
        assert len(owner.running) == 0  # its done callback was added before this await's
        assert task.get_name() == "seven"

    run(main())


def test_close_cancels_its_own_tasks_waits_for_them_and_spares_others() -> None:
    async def main() -> None:
        owner, other = TaskOwner("mine"), TaskOwner("theirs")
        cleaned: list[str] = []

        async def holds(name: str, started: asyncio.Event) -> None:
            try:
                await _forever(started)
            finally:
                await asyncio.sleep(0)  # its cleanup awaits: close still waits for it
                cleaned.append(name)

        started = [asyncio.Event() for _ in range(3)]
        mine = [owner.spawn(holds(f"mine{i}", started[i])) for i in range(2)]
        theirs = other.spawn(holds("theirs", started[2]))
        for event in started:
            await event.wait()
        await owner.close()
        assert all(task.cancelled() for task in mine)
        assert sorted(cleaned) == ["mine0", "mine1"]
        assert not theirs.done()
        await other.close()
        assert theirs.cancelled()

    run(main())


def test_close_from_inside_one_of_its_tasks_spares_the_caller() -> None:
    async def main() -> None:
        owner = TaskOwner("test")
        started = asyncio.Event()
        sibling = owner.spawn(_forever(started))

        async def closes() -> str:
            await started.wait()
            await owner.close()
            return "closed"

        closer = owner.spawn(closes())
        assert await closer == "closed"
        assert sibling.cancelled()

    run(main())


def test_a_task_spawned_after_close_is_cancelled_at_once() -> None:
    async def main() -> None:
        owner = TaskOwner("test")
        await owner.close()
        assert owner.closing
        late = owner.spawn(_forever())
        with pytest.raises(asyncio.CancelledError):
            await late

    run(main())


def test_a_failure_is_logged_once_with_its_owner_and_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def main() -> None:
        owner = TaskOwner("the failing side")

        async def fails() -> None:
            raise ValueError("broken")

        task = owner.spawn(fails())
        await asyncio.wait([task])
        await owner.close()  # the done callback has run by the time close returns

    with caplog.at_level(logging.ERROR, logger="acp_codegen.runtime.rpc.task_owner"):
        run(main())
    failures = [r for r in caplog.records if "the failing side" in r.getMessage()]
    assert len(failures) == 1
    assert failures[0].exc_info is not None and isinstance(failures[0].exc_info[1], ValueError)


def test_on_error_receives_the_failure_instead_of_the_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[BaseException] = []

    async def main() -> None:
        owner = TaskOwner("test", on_error=lambda _task, problem: seen.append(problem))

        async def fails() -> None:
            raise KeyError("k")

        async with owner:
            owner.spawn(fails())
            await owner.wait()

    with caplog.at_level(logging.ERROR):
        run(main())
    assert [type(problem) for problem in seen] == [KeyError]
    assert not [r for r in caplog.records if r.name.endswith("task_owner")]


def test_a_cancelled_task_is_no_failure(caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        async with TaskOwner("test") as owner:
            started = asyncio.Event()
            owner.spawn(_forever(started))
            await started.wait()

    with caplog.at_level(logging.DEBUG, logger="acp_codegen.runtime.rpc.task_owner"):
        run(main())
    assert not caplog.records


def test_leaving_the_scope_cancels_what_still_runs() -> None:
    async def main() -> None:
        started = asyncio.Event()
        async with TaskOwner("scope") as owner:
            task = owner.spawn(_forever(started))
            await started.wait()
        assert task.cancelled()
        assert len(owner.running) == 0 or all(t.done() for t in owner.running)

    run(main())


def test_wait_does_not_cancel_and_covers_tasks_spawned_meanwhile() -> None:
    async def main() -> None:
        owner = TaskOwner("test")
        order: list[str] = []

        async def child() -> None:
            await asyncio.sleep(0)
            order.append("child")

        async def parent() -> None:
            owner.spawn(child())
            order.append("parent")

        owner.spawn(parent())
        await owner.wait()
        assert order == ["parent", "child"]

    run(main())


def test_closers_run_after_the_tasks_in_order_and_once() -> None:
    async def main() -> None:
        owner = TaskOwner("connection")
        order: list[str] = []
        started = asyncio.Event()

        async def holds() -> None:
            try:
                await _forever(started)
            finally:
                order.append("task")

        async def first() -> None:
            order.append("first")

        async def second() -> None:
            order.append("second")

        owner.spawn(holds())
        owner.on_close(first)
        owner.on_close(second)
        await started.wait()
        await asyncio.gather(owner.close(), owner.close())
        await owner.close()
        assert order == ["task", "first", "second"]

    run(main())


def test_a_failing_closer_does_not_stop_the_next(caplog: pytest.LogCaptureFixture) -> None:
    ran: list[str] = []

    async def main() -> None:
        owner = TaskOwner("connection")

        async def fails() -> None:
            raise RuntimeError("closer broke")

        async def after() -> None:
            ran.append("after")

        owner.on_close(fails)
        owner.on_close(after)
        await owner.close()

    with caplog.at_level(logging.ERROR, logger="acp_codegen.runtime.rpc.task_owner"):
        run(main())
    assert ran == ["after"]
    assert any("closer broke" in str(r.exc_info[1]) for r in caplog.records if r.exc_info)


def test_a_second_close_waits_for_the_first_ones_closers() -> None:
    async def main() -> None:
        owner = TaskOwner("connection")
        release = asyncio.Event()
        entered = asyncio.Event()
        done: list[str] = []

        async def slow() -> None:
            entered.set()
            await release.wait()
            done.append("closer")

        owner.on_close(slow)
        first = asyncio.create_task(owner.close())
        await entered.wait()
        second = asyncio.create_task(owner.close())
        await asyncio.sleep(0)
        assert not second.done()
        release.set()
        await asyncio.gather(first, second)
        assert done == ["closer"]

    run(main())
