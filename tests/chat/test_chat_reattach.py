"""`chat --url` getting its session back when the connection drops: the example agent served
with `--http` (a real process), chat's `AgentLink` driven directly, its connection closed from
the test while idle or while a turn waits on a permission answer. Chat reconnects, resumes the
session with its history replayed (`session/load` for a v1 agent), says so in one line, and the
session shows each earlier message once; when the agent is gone it gives up (exit 1), and
when the agent no longer has the session it does not ask again."""

from __future__ import annotations

import asyncio
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acp_codegen._bindings import message_text, models
from acp_codegen.commands.chat.gate import Gate
from acp_codegen.commands.chat.link import AgentLink, ChatError
from acp_codegen.commands.chat.reattach import Backoff, GaveUp, retrying
from acp_codegen.commands.chat.remote import RemoteTarget

from tests.chat.test_chat_prompt import DEMO
from tests.remote.agents import HANG_GUARD, served
from tests.remote.processes import served_process
from tests.remote.test_remote_v1_reattach import sent_methods, v1_only_demo

TOKEN = "chat-reattach-token-4321"
HEADERS = {"Authorization": f"Bearer {TOKEN}"}
AT_ONCE = Backoff(attempts=2, first_pause=0.0)  # retries without pausing: nothing to wait for


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    with served_process([*DEMO, "--http", "127.0.0.1:0"], token=TOKEN) as url:
        yield url


class Asker:
    """Allows every permission request, or (`hold`) leaves it unanswered and says it was asked."""

    def __init__(self) -> None:
        self.hold = False
        self.asked = asyncio.Event()

    async def __call__(
        self, request: models.RequestPermissionRequest
    ) -> models.RequestPermissionOutcome:
        if self.hold:
            self.asked.set()
            await asyncio.Event().wait()
        option = next(o for o in request.options if o.kind.startswith("allow"))
        return models.SelectedPermissionOutcome(outcome="selected", option_id=option.option_id)


class Told(list[str]):
    """The lines chat says about reconnecting; `said` is set at the first."""

    def __init__(self) -> None:
        super().__init__()
        self.said = asyncio.Event()

    def __call__(self, line: str) -> None:
        self.append(line)
        self.said.set()


def linked(url: str, asker: Asker, told: Told, cwd: Path, trace: Path | None = None) -> Any:
    return AgentLink(
        RemoteTarget(url, HEADERS),
        cwd=cwd,
        ask=asker,
        confirm=Gate(),  # refuses every write and command
        trace=trace,
        verbose=False,
        tell=told,
        backoff=AT_ONCE,
        reconnect=True,
    )


def said(link: AgentLink) -> list[tuple[str, str]]:
    return [(m["role"], message_text(m)) for m in link.snapshot()["messages"]]


async def cut(link: AgentLink) -> None:
    """Drop chat's connection under it, as a network failure would (unless chat is already
    reconnecting, having seen it drop)."""
    process = link.process
    if process is not None:
        await process.close()


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, HANG_GUARD))


def url_for(demo_url: str, scheme: str) -> str:
    return scheme + demo_url.removeprefix("http")


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_a_drop_while_idle_is_reattached_at_once(
    demo_url: str, scheme: str, tmp_path: Path
) -> None:
    async def scenario() -> None:
        told = Told()
        link = linked(url_for(demo_url, scheme), Asker(), told, tmp_path)
        await link.start()
        try:
            assert await link.turn("first words") == "end_turn"
            before = said(link)
            session_id = link.session.session_id
            await cut(link)
            await told.said.wait()  # no turn asked for it: chat noticed the drop by itself
            assert told == [f"[reconnected: {link.agent_name}, session {session_id} resumed]"]
            assert link.session.session_id == session_id and not link.dropped
            assert said(link) == before  # the replay, each message once
            assert await link.turn("second words") == "end_turn"
            after = said(link)
            assert after[: len(before)] == before
            assert [text for role, text in after[len(before) :] if role == "user"] == [
                "second words"
            ]
        finally:
            await link.stop()

    run(scenario())


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_a_drop_during_a_turn_ends_it_as_the_agent_reports(
    demo_url: str, scheme: str, tmp_path: Path
) -> None:
    async def scenario() -> None:
        told = Told()
        asker = Asker()
        link = linked(url_for(demo_url, scheme), asker, told, tmp_path)
        await link.start()
        try:
            asker.hold = True
            turn = asyncio.ensure_future(link.turn("cut off"))
            await asker.asked.wait()
            asker.hold = False
            await cut(link)
            assert await turn == "cancelled"
            assert len(told) == 1 and told[0].startswith("[reconnected: ")
            assert [text for role, text in said(link) if role == "user"] == ["cut off"]
            assert link.snapshot()["state"] == "idle"
            assert await link.turn("and now") == "end_turn"
            users = [text for role, text in said(link) if role == "user"]
            assert users == ["cut off", "and now"]
        finally:
            await link.stop()

    run(scenario())


def test_a_v1_agent_is_reattached_by_session_load(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(agent=v1_only_demo(), token=TOKEN) as agent:
            told = Told()
            trace = tmp_path / "trace.jsonl"
            link = linked(agent.ws_url, Asker(), told, tmp_path, trace)
            await link.start()
            try:
                assert link.protocol_version == 1
                assert await link.turn("first words") == "end_turn"
                before = said(link)
                await cut(link)
                await told.said.wait()
                assert said(link) == before
                assert await link.turn("second words") == "end_turn"
                assert len(told) == 1
            finally:
                await link.stop()
            methods = sent_methods(trace)
            assert methods.count("session/load") == 1 and "session/resume" not in methods

    run(scenario())


def test_an_agent_gone_for_good_is_given_up_on(tmp_path: Path) -> None:
    async def scenario(url: str, process: subprocess.Popen[str]) -> None:
        told = Told()
        link = linked(url, Asker(), told, tmp_path)
        await link.start()
        try:
            process.terminate()
            process.wait(HANG_GUARD)
            await cut(link)
            with pytest.raises(ChatError) as raised:
                await link.turn("anyone?")
            assert raised.value.code == 1
            assert f"lost {link.agent_name}: gave up after 2 attempts" in str(raised.value)
            assert told == []
        finally:
            await link.stop()

    kept: dict[str, subprocess.Popen[str]] = {}
    with served_process([*DEMO, "--http", "127.0.0.1:0"], token=TOKEN, keep=kept) as url:
        run(scenario(url, kept[""]))


def test_the_backoff_grows_and_is_bounded() -> None:
    assert Backoff(attempts=6, first_pause=0.5, longest_pause=3.0).pauses() == [
        0.0,
        0.5,
        1.0,
        2.0,
        3.0,
        3.0,
    ]

    async def scenario() -> None:
        paused: list[float] = []
        tries: list[int] = []

        async def pause(seconds: float) -> None:
            paused.append(seconds)

        async def attempt() -> None:
            tries.append(len(tries))
            if len(tries) < 3:
                raise ConnectionRefusedError("nobody there")

        await retrying(attempt, Backoff(attempts=4, first_pause=1.0), pause)
        assert (tries, paused) == ([0, 1, 2], [1.0, 2.0])

        async def never() -> None:
            raise ConnectionRefusedError("nobody there")

        with pytest.raises(GaveUp, match=r"gave up after 3 attempts \(nobody there\)"):
            await retrying(never, Backoff(attempts=3), pause)

        async def refused() -> None:
            tries.append(-1)
            raise ValueError("not retried")

        with pytest.raises(ValueError, match="not retried"):
            await retrying(refused, Backoff(attempts=3), pause)
        assert tries[-2:] == [2, -1]

    asyncio.run(scenario())


def test_an_agent_that_lost_the_session_is_not_asked_again(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port free a moment ago, for both lives of the agent
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = [*DEMO, "--http", f"127.0.0.1:{port}"]
    trace = tmp_path / "trace.jsonl"

    async def scenario(url: str) -> Any:
        link = linked(url, Asker(), Told(), tmp_path, trace)
        await link.start()
        return link, link.session.session_id

    async def after_restart(link: AgentLink, session_id: str) -> None:
        try:
            await cut(link)
            with pytest.raises(ChatError) as raised:
                await link.turn("still there?")
            assert raised.value.code == 1
            assert f"cannot resume {session_id} on {link.agent_name}" in str(raised.value)
        finally:
            await link.stop()

    loop = asyncio.new_event_loop()
    try:
        with served_process(argv, token=TOKEN) as url:
            link, session_id = loop.run_until_complete(scenario(url))
        with served_process(argv, token=TOKEN):  # a new process: the session died with the old
            loop.run_until_complete(asyncio.wait_for(after_restart(link, session_id), HANG_GUARD))
    finally:
        loop.close()
    methods = sent_methods(trace)
    assert (methods.count("initialize"), methods.count("session/resume")) == (2, 1)
