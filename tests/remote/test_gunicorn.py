"""The example agent under gunicorn's aiohttp worker, the commands docs/remote.md gives:

- one gunicorn (one worker) serving `demo_agent:web_app`, reached by our client over HTTP and
  WebSocket with its token, through a turn with a permission request;
- two gunicorn instances, one worker each, behind HAProxy with cookie affinity (proxy.py): two
  clients pinned one to each instance, their turns running side by side through the proxy.

gunicorn is pinned in the `test` extra."""

from __future__ import annotations

import asyncio
import re
import sys

import pytest

from tests.remote.agents import AllowingClient, demo_turn, run
from tests.remote.processes import served_process
from tests.remote.proxy import AFFINITY_COOKIE, Backend, behind_haproxy
from tests.remote.test_production_server import EXAMPLES, free_port

TOKEN = "gunicorn-token-3"
HEADERS = {"Authorization": f"Bearer {TOKEN}"}
GUNICORN_LISTENING = re.compile(r"Listening at: (http://\S+)")  # the master's log, on stderr


def gunicorn(public: str, bind: str, *more: str) -> list[str]:
    """The documented command: the example agent's app factory called with `--public`."""
    app = f'demo_agent:web_app(["--public", "{public}"])'
    worker = ["--worker-class", "aiohttp.GunicornWebWorker"]
    return [sys.executable, "-m", "gunicorn", app, *worker, "--bind", bind, *more]


@pytest.mark.parametrize("transport", ["http", "ws"])
def test_the_example_agent_runs_under_gunicorn(transport: str) -> None:
    address = f"127.0.0.1:{free_port()}"
    argv = gunicorn(address, address)
    with served_process(argv, token=TOKEN, cwd=str(EXAMPLES), banner=GUNICORN_LISTENING) as url:
        run(demo_turn(url if transport == "http" else "ws" + url.removeprefix("http"), HEADERS))


def gunicorn_behind_the_proxy(public: str) -> Backend:
    # Several instances on one host: each its own port, no shared control socket.
    argv = gunicorn(public, "127.0.0.1:0", "--workers", "1", "--no-control-socket")
    return Backend(argv, banner=GUNICORN_LISTENING, cwd=str(EXAMPLES))


async def pinned_turns(url: str) -> list[str]:
    """Two clients through the proxy, both connected before either runs its turn; the backend
    each was pinned to (its affinity cookie)."""
    clients = [AllowingClient(), AllowingClient()]
    remotes = [await client.connect(url, headers=HEADERS) for client in clients]
    try:
        sessions = []
        for client in clients:
            await client.lifecycle.initialize()
            sessions.append(await client.lifecycle.new_session(cwd=str(EXAMPLES)))
        text = [{"type": "text", "text": "through gunicorn"}]
        stops = await asyncio.gather(*(session.run_turn(text) for session in sessions))
        assert stops == ["end_turn", "end_turn"]
        assert [client.asked for client in clients] == [[s.session_id] for s in sessions]
        return [remote.cookies[AFFINITY_COOKIE] for remote in remotes]
    finally:
        for remote in remotes:
            await remote.close()


def test_two_gunicorn_instances_behind_haproxy() -> None:
    with behind_haproxy(TOKEN, gunicorn_behind_the_proxy) as cluster:
        assert sorted(run(pinned_turns(cluster.url))) == ["a", "b"]
