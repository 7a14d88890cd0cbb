"""`--url URL [--header 'K: V']...` of `chat` and `inspect`: the options naming an agent served
remotely, checked before anything starts. The bearer token comes from `ACP_TOKEN`, not from
the command line, which every local user can read; it is taken out of this process's
environment, so neither an agent chat or inspect starts nor a command it runs inherits it."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field

# The bundled runtime's `remote_wire` is imported where used: with it comes the runtime's
# transport layer, a tenth of a second at every start of the CLI (`generate` included).

SCHEMES = ("http://", "https://", "ws://", "wss://")


@dataclass(frozen=True)
class RemoteTarget:
    """An agent reached by URL, with the headers every request carries."""

    url: str
    headers: dict[str, str] = field(default_factory=dict, repr=False)  # may hold the token

    @property
    def shown(self) -> str:
        """The URL as messages and pages name it: without its query or user info, where a
        token may be."""
        from ..._bindings._runtime.transports.remote_wire import shown_url

        return shown_url(self.url)


def remote_target(url: str, header_lines: list[str], token: str | None = None) -> RemoteTarget:
    """The target `--url` and `--header` name, with `Authorization: Bearer <token>` unless a
    header gives one; ValueError saying what is wrong."""
    from ..._bindings._runtime.transports.remote_wire import TOKEN_VARIABLE, shown_url, with_token

    if not url.lower().startswith(SCHEMES):
        shown = shown_url(url)
        raise ValueError(f"--url {shown}: give an http://, https://, ws:// or wss:// URL")
    headers: dict[str, str] = {}
    for line in header_lines:
        name, colon, value = line.partition(":")
        name, value = name.strip(), value.strip()
        bad_value = any(c in value for c in "\r\n")
        if not colon or not name or any(c in name for c in " \t\r\n") or bad_value:
            shown = line.partition(":")[0][:40]  # never the value: it may be a token
            raise ValueError(f"--header {shown!r}...: write it as 'Name: value'")
        headers[name] = value
    environ = {} if token is None else {TOKEN_VARIABLE: token}
    return RemoteTarget(url, with_token(headers, environ=environ))


def add_remote_options(cmd: argparse.ArgumentParser) -> None:
    """`--url` and `--header` on a subcommand that otherwise starts the agent given after `--`."""
    cmd.add_argument(
        "--url",
        help="reach an agent served at URL instead of starting one (http(s):// for Streamable "
        "HTTP, ws(s):// for WebSocket; needs aiohttp); the bearer token is read from "
        "$ACP_TOKEN when set",
    )
    cmd.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="with --url: send this header with every request (repeatable); an Authorization "
        "header here replaces $ACP_TOKEN's, but other local users can read the command line: "
        "put the token in $ACP_TOKEN",
    )


def agent_target(args: argparse.Namespace) -> list[str] | RemoteTarget:
    """The agent `--url`/`--header` or the command after `--` name (the command may be empty:
    the caller says what else it accepts); ValueError saying what is wrong."""
    from ..._bindings._runtime.transports.remote_wire import TOKEN_VARIABLE

    argv: list[str] = list(args.agent)
    token = os.environ.pop(TOKEN_VARIABLE, None)  # for the agent at --url only
    if args.url is None:
        if args.header:
            raise ValueError("--header only applies with --url")
        return argv
    if argv:
        raise ValueError("give either --url or the agent's command, not both")
    return remote_target(args.url, args.header, token)
