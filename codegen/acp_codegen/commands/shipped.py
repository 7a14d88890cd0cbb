"""What ships inside acp-codegen, within reach after `pip install` (no clone needed):

- `acp-codegen schema [--write FILE]` prints (or writes) the canonical ACP schema;
- `acp-codegen demo-agent [--slow SECONDS] [--http HOST:PORT ...] [--session-store URL]`
  serves the example agent, examples/demo_agent.py, on stdio (or over HTTP and WebSocket;
  with its sessions in a store that survives a restart), so the README's client and chat
  examples run anywhere. The example imports the bindings
  as `acp_bindings`, as a project that generated them would; here that name is the copy shipped
  inside acp-codegen (the same files as the repository's generated/acp_bindings).
"""

from __future__ import annotations

import argparse
import runpy
import sys
from pathlib import Path
from typing import Any

from ..paths import BUNDLED_SCHEMA, DEMO_AGENT
from .console import Console
from .exits import EXIT_OK, EXIT_USAGE
from .targets import expanded

SCHEMA_TEXT = "print the ACP schema shipped with acp-codegen (the default input of generate)"
DEMO_TEXT = "serve the example agent (examples/demo_agent.py) on stdin/stdout, to try a client on"
# How long and how many sessions of clients that left the agent keeps (its RemoteLimits).
DETACHED_OPTIONS = (
    ("--detached-session-idle", "SECONDS", "drop a session whose client left this long ago"),
    ("--max-detached-sessions", "N", "keep at most this many sessions whose client left"),
    ("--max-detached-bytes", "BYTES", "keep at most this much history of those sessions"),
)
# Passed on as given: the example agent parses them (the runtime's store_url.py).
STORE_OPTIONS = (
    ("--session-store", "URL", "keep sessions in this store (sqlite:///PATH, or postgresql://... "
     "for processes sharing a database): they survive a "
     "restart, session/list names them, session/resume replays them"),
    ("--session-store-max-bytes", "N", "with --session-store: bytes of one session's history"),
    ("--session-store-max-age", "SECONDS", "with --session-store: seconds a session is kept "
     "unused"),
    ("--session-store-max-sessions", "N", "with --session-store: sessions kept"),
)  # fmt: skip


def add_shipped_parsers(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """`schema` and `demo-agent` on the CLI's subparsers (`sub`: argparse's subparsers action)."""
    for name, text, option, metavar, help_text in (
        ("schema", SCHEMA_TEXT, "--write", "FILE",
         "write it to FILE instead of stdout (refuses to replace an existing file)"),
        ("demo-agent", DEMO_TEXT, "--slow", "SECONDS",
         "pause between the steps of a turn, so a person can cancel one"),
    ):  # fmt: skip
        cmd = sub.add_parser(name, help=text, description=text, parents=parents)
        cmd.add_argument(option, metavar=metavar, help=help_text)
        if name == "demo-agent":  # passed on to the example agent, which checks them
            cmd.add_argument(
                "--http",
                metavar="HOST:PORT",
                help="serve over Streamable HTTP and WebSocket at HOST:PORT instead (needs "
                "aiohttp); clients must send the bearer token in $ACP_TOKEN when it is set",
            )
            cmd.add_argument(
                "--public",
                action="append",
                default=[],
                metavar="HOST:PORT",
                help="with --http: another address clients reach it by (a reverse proxy's)",
            )
            cmd.add_argument(
                "--insecure",
                action="store_true",
                help="with --http: allow a non-loopback address without $ACP_TOKEN",
            )
            for detached, number, help_text in DETACHED_OPTIONS:
                cmd.add_argument(detached, metavar=number, help=f"with --http: {help_text}")
            for option, metavar, help_text in STORE_OPTIONS:
                cmd.add_argument(option, metavar=metavar, help=help_text)


def run_schema(args: argparse.Namespace) -> int:
    console = Console.from_args(args)
    data = BUNDLED_SCHEMA.read_bytes()
    if args.write is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return EXIT_OK
    path = expanded(Path(args.write))
    try:
        with path.open("xb") as handle:  # never replaces a file of the user's
            handle.write(data)
    except OSError as exc:
        console.error(f"--write {path}: {exc.strerror or exc}; nothing written")
        return EXIT_USAGE
    console.info(f"wrote {path}")
    return EXIT_OK


# Typed at, the agent answers every line with a parse error: a person at a terminal is told
# what it is for (on stderr: stdout is the protocol's).
TERMINAL_HINT = (
    "demo-agent speaks ACP (JSON-RPC) on stdin/stdout for a client to drive, not a person: try "
    "`acp-codegen chat -- acp-codegen demo-agent`. Ctrl-D or Ctrl-C stops it."
)


def run_demo(args: argparse.Namespace) -> int:
    from .. import _bindings

    if args.http is None and sys.stdin.isatty():
        print(TERMINAL_HINT, file=sys.stderr, flush=True)

    sys.modules.setdefault("acp_bindings", _bindings)
    sys.argv = [str(DEMO_AGENT), *([] if args.slow is None else ["--slow", args.slow])]
    sys.argv += [*([] if args.http is None else ["--http", args.http])]
    sys.argv += [option for address in args.public for option in ("--public", address)]
    sys.argv += ["--insecure"] if args.insecure else []
    for option, _, _ in (*DETACHED_OPTIONS, *STORE_OPTIONS):
        value = getattr(args, option.removeprefix("--").replace("-", "_"))
        sys.argv += [] if value is None else [option, value]
    runpy.run_path(str(DEMO_AGENT), run_name="__main__")
    return EXIT_OK
