"""A prompt's idempotency key is kept with the session on a remote agent (HTTP and WebSocket):
a client that lost its connection resumes the session elsewhere, its replay ends with
`replay_complete`, and its retry with the same key inserts and runs nothing, answering the
first attempt's messageId."""

from __future__ import annotations

from typing import Any

import pytest

from tests.remote.agents import REPO, Client, demo_agent_class, run, served
from tests.remote.test_remote_detached_sessions import until, url_of

SCHEMES = ["http", "ws"]
TEXT = [{"type": "text", "text": "words"}]


class Counting(demo_agent_class()):  # type: ignore[misc]
    """Says each prompt's text back, asking nothing; counts the turns it ran."""

    ran = 0

    async def on_prompt(self, session: Any, prompt: Any) -> str | None:
        type(self).ran += 1
        await session.say(prompt.text)
        return None


def user_ids(session: Any) -> list[str]:
    return [m["messageId"] for m in session.snapshot()["messages"] if m["role"] == "user"]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_retry_after_a_lost_connection_and_a_resume_elsewhere_runs_nothing(
    scheme: str,
) -> None:
    class Agent(Counting):
        ran = 0

    async def scenario() -> None:
        agent = Agent()
        async with served(agent=agent) as at:
            url = url_of(at, scheme)
            first = Client()
            remote = await first.connect(url)
            try:
                await first.lifecycle.initialize()
                session = await first.lifecycle.new_session(cwd=str(REPO))
                assert await session.run_turn(TEXT, idempotency_key="k-1") == "end_turn"
                (message_id,) = user_ids(session)
            finally:
                await remote.close()  # the answer of a retry to come is "lost" with it
            store = agent.served_sessions
            sid = session.session_id
            await until(lambda: store.is_detached(sid))

            second = Client()
            remote = await second.connect(url)
            try:
                await second.lifecycle.initialize()
                again = await second.lifecycle.resume_session(
                    sid, str(REPO), replayFrom={"type": "start"}
                )
                assert again.replay == "complete"
                assert user_ids(again) == [message_id]
                assert await again.prompt(TEXT, idempotency_key="k-1") == message_id
                # a new submission runs: had the retry been accepted, it would have run first
                assert await again.run_turn(TEXT, idempotency_key="k-2") == "end_turn"
                assert Agent.ran == 2
                assert len(user_ids(again)) == 2 and user_ids(again)[0] == message_id
            finally:
                await remote.close()

    run(scenario())
