"""Who may use an agent served remotely (`Access`), and the command-line options of an agent
that can also serve remotely:

- `--http HOST:PORT`: serve Streamable HTTP and WebSocket there instead of stdio;
- `--public HOST:PORT` (repeatable): another address clients reach it by, e.g. a reverse
  proxy's: its Host header and browser origin are accepted too;
- `--insecure`: listen on a non-loopback address without a token;
- `--detached-session-idle SECONDS`, `--max-detached-sessions N`, `--max-detached-bytes N`:
  how long and how many sessions whose client left are kept for a resume (`RemoteLimits`).

The token comes from the environment variable `ACP_TOKEN` (never the command line, which other
users of the machine can read).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Final

from ..guard.web_guard import Refusal, WebGuard
from ..transports.remote_wire import TOKEN_VARIABLE
from .remote_link import RemoteLimits

NEEDS_AIOHTTP: Final = "--http needs aiohttp (pip install aiohttp)"
WILDCARD_HOSTS: Final = frozenset({"0.0.0.0", "::", ""})
# The `RemoteLimits` the command line sets: option, field, type, what it means.
_LIMIT_OPTIONS: Final = (
    ("--detached-session-idle", "detached_session_idle_seconds", float, "SECONDS"),
    ("--max-detached-sessions", "max_detached_sessions", int, "N"),
    ("--max-detached-bytes", "max_detached_bytes", int, "BYTES"),
)
_LIMIT_HELP: Final = {
    "detached_session_idle_seconds": "with --http: drop a session whose client left this "
    "long ago without resuming it",
    "max_detached_sessions": "with --http: keep at most this many sessions whose client "
    "left; past it the oldest are dropped",
    "max_detached_bytes": "with --http: keep at most this many bytes of history (JSON) of "
    "sessions whose client left; past it the oldest are dropped",
}


@dataclass(frozen=True, slots=True)
class Guards:
    """The `WebGuard` of each address an agent is reached by: a request one accepts is served;
    otherwise the first one's refusal is the answer."""

    each: tuple[WebGuard, ...]

    def refusal(self, headers: Mapping[str, str], query_token: str | None = None) -> Refusal | None:
        refusals = []
        for guard in self.each:
            refusal = guard.refusal(headers, query_token)
            if refusal is None:
                return None
            refusals.append(refusal)
        return refusals[0]


@dataclass(frozen=True, slots=True)
class Access:
    """Who may use a served agent: the bearer `token` (None: no token check), `insecure` to
    allow that on an address other machines reach, the `public` addresses (`HOST:PORT`)
    clients reach it by besides the one it listens on (a proxy's), and the browser `origins`
    allowed besides its own."""

    token: str | None = None
    insecure: bool = False
    public: tuple[str, ...] = ()
    origins: tuple[str, ...] = ()

    def guard(self, host: str, port: int) -> Guards:
        """The checks for a server listening on `host:port`. On a wildcard address (every
        interface) the names remote clients use cannot be known: local clients may use the
        loopback address, every other name must be given in `public`."""
        addresses = [(host, port), *(host_port(address) for address in self.public)]
        if host in WILDCARD_HOSTS:
            addresses.append(("127.0.0.1", port))
        return Guards(
            tuple(
                WebGuard.for_address(name, number, token=self.token, also_origins=self.origins)
                for name, number in addresses
            )
        )


def host_port(address: str) -> tuple[str, int]:
    """`HOST:PORT` (IPv6 in brackets) as (host, port); ValueError when it is not one."""
    host, colon, port = address.rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{address!r} is not HOST:PORT (e.g. 127.0.0.1:8000)")
    return host.strip("[]"), int(port)


@dataclass(frozen=True, slots=True)
class HttpSettings:
    host: str
    port: int
    access: Access
    limits: RemoteLimits = field(default_factory=RemoteLimits)


def add_http_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve over Streamable HTTP and WebSocket at HOST:PORT instead of stdin/stdout "
        f"(needs aiohttp); clients must send the bearer token in ${TOKEN_VARIABLE} when set",
    )
    parser.add_argument(
        "--public",
        action="append",
        default=[],
        metavar="HOST:PORT",
        help="with --http: another address clients reach the agent by (a reverse proxy's); "
        "repeatable",
    )
    parser.add_argument(
        "--insecure",
        action="store_true",
        help=f"with --http: allow a non-loopback address without ${TOKEN_VARIABLE}",
    )
    defaults = RemoteLimits()
    for option, name, kind, metavar in _LIMIT_OPTIONS:
        parser.add_argument(
            option,
            dest=name,
            type=kind,
            metavar=metavar,
            help=f"{_LIMIT_HELP[name]} (default: {getattr(defaults, name)})",
        )


def http_settings(parser: argparse.ArgumentParser, args: argparse.Namespace) -> HttpSettings | None:
    """The settings `--http` asked for (None: serve stdio); errors exit through `parser`."""
    given = {name: getattr(args, name) for _, name, _, _ in _LIMIT_OPTIONS}
    given = {name: value for name, value in given.items() if value is not None}
    if args.http is None:
        if args.insecure or args.public:
            parser.error("--insecure and --public only apply with --http")
        if given:
            parser.error("the limits on detached sessions only apply with --http")
        return None
    try:
        host, port = host_port(str(args.http))
        for address in args.public:
            host_port(address)
    except ValueError as problem:
        parser.error(f"--http/--public: {problem}")
    try:
        limits = replace(RemoteLimits(), **given)
    except ValueError as problem:
        parser.error(str(problem))
    token = os.environ.get(TOKEN_VARIABLE) or None
    access = Access(token, bool(args.insecure), tuple(args.public))
    return HttpSettings(host, port, access, limits)
