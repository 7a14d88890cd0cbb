"""`chat --url URL [--header 'K: V']...`: what names an agent served remotely, checked before
anything starts."""

from __future__ import annotations

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
