"""`chat --url` reattaching behind a proxy with cookie affinity (HAProxy, two agent processes,
round robin for a client without the cookie): the reconnect sends the cookie the proxy set
on the first connection, so it reaches the process that holds the session and resumes it.
Without it the reconnect would land on the other process, which does not know the session."""

from __future__ import annotations

from pathlib import Path

from acp_codegen.commands.chat.link import AgentLink

from tests.chat.test_chat_reattach import Asker, Told, cut, linked, run, said
from tests.remote.proxy import AFFINITY_COOKIE, behind_haproxy

TOKEN = "chat-reattach-token-4321"  # the token linked() sends


def pinned_backend(link: AgentLink) -> str:
    from acp_codegen._bindings._runtime.transports.remote_client import RemoteAgent

    process = link.process
    assert isinstance(process, RemoteAgent)
    return process.cookies[AFFINITY_COOKIE]


def test_a_reattach_goes_back_to_the_backend_holding_the_session(tmp_path: Path) -> None:
    async def scenario(url: str) -> None:
        told = Told()
        link = linked(url, Asker(), told, tmp_path)
        await link.start()
        try:
            assert await link.turn("first words") == "end_turn"
            backend, before = pinned_backend(link), said(link)
            session_id = link.session.session_id
            for _ in range(2):  # round robin would send a cookieless reconnect elsewhere
                told.said.clear()
                await cut(link)
                await told.said.wait()
                assert told[-1] == f"[reconnected: {link.agent_name}, session {session_id} resumed]"
                assert pinned_backend(link) == backend and said(link) == before
            assert await link.turn("second words") == "end_turn"
        finally:
            await link.stop()

    with behind_haproxy(TOKEN) as cluster:
        run(scenario(cluster.url))
