"""`--url URL [--header 'K: V']...` of `chat` and `inspect`: the options naming an agent served
remotely, checked before anything starts."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

SCHEMES = ("http://", "https://", "ws://", "wss://")


@dataclass(frozen=True)
class RemoteTarget:
    """An agent reached by URL, with the headers every request carries."""

    url: str
    headers: dict[str, str] = field(default_factory=dict)


def remote_target(url: str, header_lines: list[str]) -> RemoteTarget:
    """The target `--url` and `--header` name; ValueError saying what is wrong."""
    if not url.lower().startswith(SCHEMES):
        raise ValueError(f"--url {url}: give an http://, https://, ws:// or wss:// URL")
    headers: dict[str, str] = {}
    for line in header_lines:
        name, colon, value = line.partition(":")
        name, value = name.strip(), value.strip()
        if not colon or not name or any(c in name for c in " \t\r\n") or "\n" in value:
            raise ValueError(f"--header {line!r}: write it as 'Name: value'")
        headers[name] = value
    return RemoteTarget(url, headers)


def add_remote_options(cmd: argparse.ArgumentParser) -> None:
    """`--url` and `--header` on a subcommand that otherwise starts the agent given after `--`."""
    cmd.add_argument(
        "--url",
        help="reach an agent served at URL instead of starting one (http(s):// for Streamable "
        "HTTP, ws(s):// for WebSocket; needs aiohttp)",
    )
    cmd.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="with --url: send this header with every request (repeatable), e.g. "
        "'Authorization: Bearer TOKEN'",
    )


def agent_target(args: argparse.Namespace) -> list[str] | RemoteTarget:
    """The agent `--url`/`--header` or the command after `--` name (the command may be empty:
    the caller says what else it accepts); ValueError saying what is wrong."""
    argv: list[str] = list(args.agent)
    if args.url is None:
        if args.header:
            raise ValueError("--header only applies with --url")
        return argv
    if argv:
        raise ValueError("give either --url or the agent's command, not both")
    return remote_target(args.url, args.header)
