"""`acp-codegen inspect [options] -- AGENT_CMD [ARGS...]` (or `--url URL` for an agent served
remotely) and `acp-codegen inspect --trace FILE`: a local web page showing what an agent does,
live or replayed from a recorded trace."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..chat.command import (
    agent_command_parser,
    allowed_env,
    env_trace,
    session_cwd,
    usage_error,
)
from ..chat.remote import add_remote_options, agent_target
from ..console import Console

NAME = "inspect"
TEXT = (
    "watch an ACP agent in your browser: start AGENT_CMD (or reach one served at --url) and "
    "serve a local page showing its sessions, conversation, tool calls, plan, permission "
    "requests and raw traffic; or open a recorded trace (--trace) and step through it"
)
MORE = """\
the page is served on 127.0.0.1 with a random token in its URL; every request must carry it.
Ctrl-C stops the server and the agent (an agent reached by --url is disconnected from, not
stopped). Needs acp-codegen's [inspect] extra (aiohttp), e.g. pip install "acp-codegen[inspect]".
"""


def add_command(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """The `inspect` subcommand on the CLI's subparsers (`sub`: argparse's subparsers action)."""
    usage = "acp-codegen inspect [options] (-- AGENT_CMD [ARGS...] | --url URL | --trace FILE)"
    cmd = agent_command_parser(sub, parents, NAME, TEXT, MORE, usage)
    add_remote_options(cmd)
    cmd.add_argument(
        "--trace", type=Path, metavar="FILE", help="open a recorded trace instead of an agent"
    )
    cmd.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        default=env_trace(),
        help="append the live traffic to FILE as a trace (default: $ACP_TRACE)",
    )
    cmd.add_argument("--port", type=int, default=0, help="port to serve on (default: any free)")
    cmd.add_argument(
        "--host",
        help="address to serve on (default 127.0.0.1; another address makes the agent "
        "reachable from other machines by anyone holding the URL)",
    )
    cmd.add_argument(
        "--no-open", action="store_true", help="print the URL without opening a browser"
    )


def run(args: argparse.Namespace) -> int:
    console = Console()
    try:
        argv = agent_target(args)
        allowed = allowed_env(args)
    except ValueError as problem:
        return usage_error(str(problem))
    if args.trace is not None and argv:
        return usage_error("give either --trace FILE or an agent command (or --url), not both")
    if args.trace is None and not argv:
        return usage_error(
            "give the agent's command after --, e.g. acp-codegen inspect -- ./agent.py"
        )
    if not 0 <= args.port <= 65535:
        return usage_error(f"--port {args.port}: not a port number")
    cwd = session_cwd(args)
    if cwd is None:
        return usage_error(f"--cwd {args.cwd}: not a directory")
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        return usage_error(
            'inspect needs acp-codegen\'s [inspect] extra: pip install "acp-codegen[inspect]"'
        )
    import asyncio

    from ..chat.unhandled import escape_unhandled_output
    from .serve import Settings, serve

    escape_unhandled_output()

    settings = Settings(
        argv=argv,
        trace=args.trace,
        record=args.record,
        host=args.host or "127.0.0.1",
        port=args.port,
        cwd=cwd,
        open_browser=not args.no_open,
        allowed_env=allowed,
        cwd_given=args.cwd is not None,
    )
    return asyncio.run(serve(settings, console))
