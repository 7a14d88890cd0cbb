"""Who may use an agent served remotely (`Access`), and the command-line options of an agent
that can also serve remotely: `--http HOST:PORT`
(serve Streamable HTTP and WebSocket there instead of stdio) and `--insecure` (listen on a
non-loopback address without a token). The token comes from the environment variable
`ACP_TOKEN` (never the command line, which other users of the machine can read).
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from typing import Final

from .web_guard import WebGuard

TOKEN_VARIABLE: Final = "ACP_TOKEN"


@dataclass(frozen=True, slots=True)
class Access:
    """Who may use a served agent: the bearer `token` (None: no token check), `insecure` to
    allow that on an address other machines reach, and the `hosts` (Host header names) and
    browser `origins` allowed besides the address served on."""

    token: str | None = None
    insecure: bool = False
    hosts: tuple[str, ...] = ()
    origins: tuple[str, ...] = ()

    def guard(self, host: str, port: int) -> WebGuard:
        return WebGuard.for_address(
            host, port, token=self.token, also_hosts=self.hosts, also_origins=self.origins
        )


@dataclass(frozen=True, slots=True)
class HttpSettings:
    host: str
    port: int
    access: Access


def add_http_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve over Streamable HTTP and WebSocket at HOST:PORT instead of stdin/stdout "
        f"(needs aiohttp); clients must send the bearer token in ${TOKEN_VARIABLE} when set",
    )
    parser.add_argument(
        "--insecure",
        action="store_true",
        help=f"with --http: allow a non-loopback address without ${TOKEN_VARIABLE}",
    )


def http_settings(parser: argparse.ArgumentParser, args: argparse.Namespace) -> HttpSettings | None:
    """The settings `--http` asked for (None: serve stdio); errors exit through `parser`."""
    if args.http is None:
        if args.insecure:
            parser.error("--insecure only applies with --http")
        return None
    host, colon, port_text = str(args.http).rpartition(":")
    if not colon or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        parser.error(f"--http: {args.http!r} is not HOST:PORT (e.g. 127.0.0.1:8000)")
    host = host.strip("[]") or "127.0.0.1"
    token = os.environ.get(TOKEN_VARIABLE) or None
    return HttpSettings(host, int(port_text), Access(token, bool(args.insecure)))
