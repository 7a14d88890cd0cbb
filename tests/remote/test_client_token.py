"""`Client.connect` sends the bearer token of `ACP_TOKEN`, as the server reads it: a program
never needs the token on its command line. `token=` names it in code; an `Authorization` in
`headers=` wins over both; a reconnect sends what the first connection sent."""

from __future__ import annotations

import pytest

from tests.remote.agents import REPO, AllowingClient, demo_turn, run, served

TOKEN = "client-env-token-31"


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_connect_sends_the_token_of_the_environment(
    scheme: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_TOKEN", TOKEN)

    async def scenario() -> None:
        async with served(token=TOKEN) as agent:
            await demo_turn(agent.url if scheme == "http" else agent.ws_url)

    run(scenario())


def test_the_token_argument_and_an_explicit_header(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ACP_TOKEN", raising=False)

    async def refused(url: str, **options: object) -> str:
        client = AllowingClient()
        remote = await client.connect(url, **options)
        try:
            with pytest.raises(Exception) as failed:
                await client.lifecycle.initialize()
            return str(failed.value)
        finally:
            await remote.close()

    async def scenario() -> None:
        async with served(token=TOKEN) as agent:
            assert "HTTP 401" in await refused(agent.url)
            client = AllowingClient()
            remote = await client.connect(agent.url, token=TOKEN)
            await client.lifecycle.initialize()
            await remote.close()
            monkeypatch.setenv("ACP_TOKEN", TOKEN)
            wrong = {"authorization": "Bearer wrong"}  # any spelling of the name counts
            assert "HTTP 403" in await refused(agent.url, headers=wrong)
            assert "HTTP 403" in await refused(agent.url, headers=wrong, token=TOKEN)

    run(scenario())


def test_a_reconnect_sends_the_token_the_first_connection_sent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ACP_TOKEN", TOKEN)

    async def scenario() -> None:
        async with served(token=TOKEN) as agent:
            client = AllowingClient()
            remote = await client.connect(agent.url)
            await client.lifecycle.initialize()
            await client.lifecycle.new_session(cwd=str(REPO))
            monkeypatch.delenv("ACP_TOKEN")
            fresh = await client.reconnect(remote)
            assert fresh.connection_id != remote.connection_id
            await fresh.close()

    run(scenario())
