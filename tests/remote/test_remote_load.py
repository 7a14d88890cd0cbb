"""The load run of bench/remote_load.py, scaled down to fit the suite and checked, never timed:
many clients at once, each streaming turns from one agent over HTTP or WebSocket, and every
turn's reply is exactly the chunks the agent sent, in order, once each."""

from __future__ import annotations

import argparse

import pytest

from bench.remote_load import TOKEN, counting_agent, measure
from tests.remote.agents import RemoteLimits, run, served

CLIENTS, CHUNKS, TURNS = 40, 300, 2


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_concurrent_clients_lose_and_reorder_nothing(scheme: str) -> None:
    async def scenario() -> None:
        limits = RemoteLimits(max_connections=CLIENTS)
        async with served(token=TOKEN, limits=limits, agent=counting_agent()) as agent:
            url = agent.url if scheme == "http" else agent.ws_url
            load = argparse.Namespace(clients=CLIENTS, chunks=CHUNKS, turns=TURNS)
            tally, _ = await measure(load, url)
            assert tally.wrong == []
            assert tally.chunks == CLIENTS * CHUNKS * TURNS

    run(scenario())
