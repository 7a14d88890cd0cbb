"""Sessions whose clients left are kept for a resume, but not for ever (HTTP and WebSocket):
one detached longer than `detached_session_idle_seconds` (an injected clock) is dropped, and
its resume answered "Session expired"; past `max_detached_sessions` or `max_detached_bytes`
the oldest detached go first; a history alone over the byte limit goes at once, sparing the
others. An agent nobody talks to drops them too (its timer). And 1000 sessions of departed
clients leave the agent holding no more than the limits, the dropped ones freed."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Callable
from typing import Any

import pytest

from tests.remote.agents import (
    HANG_GUARD,
    REPO,
    AllowingClient,
    Client,
    RemoteLimits,
    RpcError,
    demo_agent_class,
    message_text,
    run,
    served,
)

SCHEMES = ["http", "ws"]


class Clock:
    """The store's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Echo(demo_agent_class()):  # type: ignore[misc]
    """Answers each prompt with its own text, asking nothing: a turn as long as its prompt."""

    async def on_prompt(self, session: Any, prompt: Any) -> str | None:
        await session.say(prompt.text)
        return None


def url_of(agent: Any, scheme: str) -> str:
    return str(agent.url if scheme == "http" else agent.ws_url)


async def until(condition: Callable[[], bool]) -> None:
    """Wait for `condition`, looking again every 10 ms; the run's guard bounds it. (The agent
    detaches a session in a task of its own once the connection has ended: there is no
    event to wait on.)"""
    async with asyncio.timeout(HANG_GUARD):
        while not condition():
            await asyncio.sleep(0.01)


async def departed(agent: Any, url: str, text: str | None = None) -> str:
    """A client opens a session (with one turn of `text`), then leaves; once the agent has
    detached the session (or dropped it), its id."""
    client = AllowingClient()
    remote = await client.connect(url)
    try:
        await client.lifecycle.initialize()
        session = await client.lifecycle.new_session(cwd=str(REPO))
        if text is not None:
            assert await session.run_turn([{"type": "text", "text": text}]) == "end_turn"
    finally:
        await remote.close()
    store = agent.served_sessions
    sid = session.session_id
    await until(lambda: sid not in store.sessions or store.is_detached(sid))
    return sid


async def resume(client: Client, session_id: str) -> Any:
    return await client.lifecycle.resume_session(
        session_id, str(REPO), replayFrom={"type": "start"}
    )


async def expired(client: Client, session_id: str) -> None:
    with pytest.raises(RpcError) as refused:
        await resume(client, session_id)
    assert refused.value.code == -32002
    assert refused.value.message.startswith("Session expired"), refused.value.message


async def listed(client: Client) -> list[str]:
    page = await client.lifecycle.list_sessions()
    return [info["sessionId"] for info in page["sessions"]]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_detached_session_expires_after_the_idle_time(scheme: str) -> None:
    async def scenario() -> None:
        agent, clock = demo_agent_class()(), Clock()
        agent.served_sessions.clock = clock
        limits = RemoteLimits(detached_session_idle_seconds=60)
        async with served(agent=agent, limits=limits) as at:
            url = url_of(at, scheme)
            old = await departed(agent, url, "old words")
            clock.now += 30
            young = await departed(agent, url, "young words")
            clock.now += 31  # old: detached 61 s; young: 31 s
            client = AllowingClient()
            remote = await client.connect(url)
            try:
                await client.lifecycle.initialize()
                assert await listed(client) == [young]
                await expired(client, old)
                again = await resume(client, young)
                user = again.snapshot()["messages"][0]
                assert message_text(user) == "young words"
            finally:
                await remote.close()
            assert old not in agent.served_sessions.sessions

    run(scenario())


@pytest.mark.parametrize("scheme", SCHEMES)
def test_an_agent_nobody_talks_to_drops_them_too(scheme: str) -> None:
    async def scenario() -> None:
        agent = demo_agent_class()()
        limits = RemoteLimits(detached_session_idle_seconds=0.05)
        async with served(agent=agent, limits=limits) as at:
            gone = await departed(agent, url_of(at, scheme), "words")
            await until(lambda: gone not in agent.served_sessions.sessions)  # no request came

    run(scenario())


@pytest.mark.parametrize("scheme", SCHEMES)
def test_past_max_detached_sessions_the_oldest_go_first(scheme: str) -> None:
    async def scenario() -> None:
        agent = demo_agent_class()()
        async with served(agent=agent, limits=RemoteLimits(max_detached_sessions=2)) as at:
            url = url_of(at, scheme)
            first, second, third = [await departed(agent, url) for _ in range(3)]
            assert agent.served_sessions.detached_count == 2
            client = AllowingClient()
            remote = await client.connect(url)
            try:
                await client.lifecycle.initialize()
                assert await listed(client) == [second, third]
                await expired(client, first)
                await resume(client, second)
                await resume(client, third)
            finally:
                await remote.close()

    run(scenario())


@pytest.mark.parametrize("scheme", SCHEMES)
def test_past_max_detached_bytes_the_oldest_go_first(scheme: str) -> None:
    async def scenario() -> None:
        agent, cap = demo_agent_class()(), 50_000
        async with served(agent=agent, limits=RemoteLimits(max_detached_bytes=cap)) as at:
            url, store = url_of(at, scheme), agent.served_sessions
            text = "x" * 10_000  # the prompt, and the answer repeating it: 20 KB of history
            first = await departed(agent, url, text)
            size = store.detached_bytes
            assert 2 * size <= cap < 3 * size  # two fit, three do not
            second = await departed(agent, url, text)
            third = await departed(agent, url, text)
            assert store.detached_bytes == 2 * size <= cap
            huge = await departed(agent, url, "y" * cap)  # over the limit by itself
            assert huge not in store.sessions
            assert store.detached_bytes == 2 * size  # it went alone
            client = AllowingClient()
            remote = await client.connect(url)
            try:
                await client.lifecycle.initialize()
                assert await listed(client) == [second, third]
                await expired(client, first)
                await expired(client, huge)
                users = [m for m in (await resume(client, third)).snapshot()["messages"]]
                assert message_text(users[0]) == text
            finally:
                await remote.close()

    run(scenario())


def test_a_thousand_departed_clients_leave_no_more_than_the_limits() -> None:
    """Over WebSocket only: what is kept is the agent's, whatever the transport (the tests
    above detach over HTTP too), and a thousand HTTP turns take long on a busy machine."""

    async def scenario() -> None:
        agent, cap = Echo(), 1 << 20
        store = agent.served_sessions
        limits = RemoteLimits(max_detached_bytes=cap, max_detached_sessions=1000)
        made: list[str] = []
        held: list[weakref.ref[Any]] = []
        async with served(agent=agent, limits=limits) as at:
            url = at.ws_url
            for _ in range(20):  # twenty clients of 50 sessions each, each with a 10 KB turn
                client = AllowingClient()
                remote = await client.connect(url)
                await client.lifecycle.initialize()
                for _ in range(50):
                    session = await client.lifecycle.new_session(cwd=str(REPO))
                    text = [{"type": "text", "text": "z" * 10_000}]
                    assert await session.run_turn(text) == "end_turn"
                    made.append(session.session_id)
                    held.append(weakref.ref(store.sessions[session.session_id]))
                await remote.close()
            last = made[-1]
            await until(lambda: store.is_detached(last))
            kept = list(store.sessions)
            assert 0 < len(kept) == store.detached_count < len(made)
            assert store.detached_bytes <= cap
            assert sum(store.sessions[s].history_bytes for s in kept) == store.detached_bytes
            assert kept == made[-len(kept) :]  # the newest
            gc.collect()
            assert sum(ref() is not None for ref in held) == len(kept)  # the rest are freed

    run(scenario())
