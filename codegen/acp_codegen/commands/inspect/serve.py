"""Running the inspector: load the trace or start the agent, listen, print the URL, serve until
Ctrl-C (or SIGTERM), then stop the agent and the server and exit 0."""

from __future__ import annotations

import asyncio
import signal
import socket
import webbrowser
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

from ..._bindings._runtime.guard.web_guard import WebGuard, is_loopback, new_token
from ..chat.command_env import NOTHING_ALLOWED, AllowedEnv
from ..chat.link import ChatError
from ..chat.remote import RemoteTarget
from ..console import Console
from ..exits import EXIT_OK, EXIT_USAGE
from .live import LiveInspector
from .replay import TraceReplay
from .server import Changes, Source, make_app
from .trace_file import TraceFileError


@dataclass(frozen=True)
class Settings:
    argv: list[str] | RemoteTarget
    trace: Path | None
    record: Path | None
    host: str
    port: int
    cwd: Path
    open_browser: bool
    allowed_env: AllowedEnv = NOTHING_ALLOWED  # --allow-env: what a v1 agent's command may set
    cwd_given: bool = False  # --cwd was given: a remote agent's reads are not asked


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to `host:port` (port 0: any free one), before anything is served."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError:
        sock.close()
        raise
    return sock


def names_of(host: str) -> set[str]:
    """Besides `host` itself, the names a browser may use for a server bound to it: a wildcard
    address is this machine under any of its names (other addresses: only as given)."""
    if host.strip("[]") not in ("0.0.0.0", "::"):
        return set()
    return {socket.gethostname(), socket.getfqdn(), "127.0.0.1", "::1", "localhost"}


def page_url(host: str, port: int, token: str) -> str:
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    return f"http://{shown}:{port}/?token={token}"


async def serve(settings: Settings, console: Console) -> int:
    changes = Changes()
    source: Source
    live: LiveInspector | None = None
    if settings.trace is not None:
        try:
            source = TraceReplay.load(settings.trace)
        except TraceFileError as error:
            console.error(f"--trace {error}")
            return EXIT_USAGE
    else:
        live = LiveInspector(
            settings.argv,
            cwd=settings.cwd,
            cwd_given=settings.cwd_given,
            trace=settings.record,
            changed=changes.bump,
            allowed_env=settings.allowed_env,
        )
        live.log.on_add = changes.bump
        source = live
    if not is_loopback(settings.host):
        console.warning(
            f"serving on {settings.host}: other machines can reach this page; anyone with the "
            "URL (and its token) can drive the agent"
        )
    try:
        sock = listening_socket(settings.host, settings.port)
    except OSError as error:
        console.error(f"cannot listen on {settings.host}:{settings.port}: {error.strerror}")
        return EXIT_USAGE
    port = sock.getsockname()[1]
    token = new_token()
    guard = WebGuard.for_address(  # 403 without the token: the page has no login to offer
        settings.host,
        port,
        token=token,
        also_hosts=names_of(settings.host),
        missing_token_status=403,
    )
    runner = web.AppRunner(make_app(source, guard, changes), handle_signals=False)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        if live is not None:
            await live.start()
        await runner.setup()
        await web.SockSite(runner, sock).start()
        url = page_url(settings.host, port, token)
        print(f"inspect: serving on {url}", flush=True)
        console.explain("Ctrl-C stops the server and the agent")
        if settings.open_browser:
            await loop.run_in_executor(None, webbrowser.open, url)
        await stop.wait()
    except ChatError as error:
        console.error(str(error))
        return error.code
    finally:
        changes.close()
        if live is not None:
            await live.stop()
        await runner.cleanup()
        sock.close()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
    return EXIT_OK
