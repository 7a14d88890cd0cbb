"""Scale-out behind a standard proxy: two agent processes behind HAProxy with cookie affinity
(proxy.py). Each client's connection stays on the process that served its initialize (its
turns work end to end, which they could not if a request reached the other process: 404);
killing one process ends the connections it served (their event streams end, so the
connection closes and its next request fails with ConnectionClosed), their sessions are gone
with it (resume on the survivor: -32002), and the other process's clients carry on."""

from __future__ import annotations

import pytest

from tests.remote.agents import AllowingClient, run
from tests.remote.proxy import AFFINITY_COOKIE, Cluster, behind_haproxy

TOKEN = "scale-out-token-7"
HEADERS = {"Authorization": f"Bearer {TOKEN}"}
TEXT = [{"type": "text", "text": "behind a proxy"}]


async def scenario(cluster: Cluster) -> None:
    from acp_bindings import ConnectionClosed, RpcError

    clients = []
    for _ in range(2):
        client = AllowingClient()
        remote = await client.connect(cluster.url, headers=HEADERS)
        await client.lifecycle.initialize()
        session = await client.lifecycle.new_session(cwd="/tmp")
        assert await session.run_turn(TEXT) == "end_turn"
        clients.append((remote, session))
    pinned = [remote.cookies[AFFINITY_COOKIE] for remote, _ in clients]
    assert sorted(pinned) == ["a", "b"]  # round robin: one client on each process

    (lost_remote, lost_session), (kept_remote, kept_session) = clients
    victim = cluster.backends[pinned[0]]
    victim.kill()
    victim.wait()
    # Its event streams end with it: the connection closes (a request waiting on the session's
    # stream would have failed with -32603 first), and whatever it is asked next fails.
    await lost_remote.connection.wait_closed()
    with pytest.raises(ConnectionClosed):
        await lost_session.run_turn(TEXT)
    await lost_remote.close()

    again = AllowingClient()
    reconnected = await again.connect(cluster.url, headers=HEADERS)
    try:
        await again.lifecycle.initialize()
        assert reconnected.cookies[AFFINITY_COOKIE] == pinned[1]  # the survivor took it
        with pytest.raises(RpcError) as unknown:
            await again.lifecycle.resume_session(lost_session.session_id, "/tmp")
        assert unknown.value.code == -32002
    finally:
        await reconnected.close()

    assert await kept_session.run_turn(TEXT) == "end_turn"
    await kept_remote.close()


def test_two_processes_behind_haproxy_and_one_dies() -> None:
    with behind_haproxy(TOKEN) as cluster:
        run(scenario(cluster))
