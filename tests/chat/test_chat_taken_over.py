"""`chat --url` whose session another client takes over (an explicit `session/resume` on a
connection of its own, the same token; HTTP and WebSocket): chat shows the agent's notice as
it comes, refuses to prompt the session after it (saying why, sending nothing), and when its
own connection then drops, its reattach leaves that session where it is instead of taking it
back unasked."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp_codegen.commands.chat.gate import Gate
from acp_codegen.commands.chat.link import AgentLink, ChatError
from acp_codegen.commands.chat.remote import RemoteTarget

from tests.chat.test_chat_reattach import AT_ONCE, HEADERS, TOKEN, Asker, Told, cut, run
from tests.remote.agents import REPO, AllowingClient, served


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_chat_is_told_and_lets_the_session_go(scheme: str, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with served(token=TOKEN) as agent:
            url = agent.url if scheme == "http" else agent.ws_url
            notes, told = Told(), Told()
            link = AgentLink(
                RemoteTarget(url, HEADERS),
                cwd=tmp_path,
                ask=Asker(),
                confirm=Gate(),  # refuses every write and command
                trace=None,
                verbose=False,
                notice=notes,
                tell=told,
                backoff=AT_ONCE,
                reconnect=True,
            )
            await link.start()
            try:
                assert await link.turn("mine") == "end_turn"
                sid = link.session.session_id
                other = AllowingClient()
                remote = await other.connect(url, headers=HEADERS)
                try:
                    await other.lifecycle.initialize()
                    taken = await other.lifecycle.resume_session(
                        sid, str(REPO), replayFrom={"type": "start"}
                    )
                    await notes.said.wait()
                    assert notes == [
                        "notice [warning]: Session taken over by another connection: Another "
                        "connection resumed this session: its updates go there now, and what "
                        "this connection sends for it is refused. Resume it here to take it back."
                    ]
                    with pytest.raises(ChatError, match="which another connection took over"):
                        await link.turn("still mine?")
                    await cut(link)
                    await told.said.wait()
                    assert told == [f"[reconnected: {link.agent_name}, no session resumed]"]
                    text = [{"type": "text", "text": "ours"}]
                    assert await taken.run_turn(text) == "end_turn"  # still the other's
                finally:
                    await remote.close()
            finally:
                await link.stop()

    run(scenario())
