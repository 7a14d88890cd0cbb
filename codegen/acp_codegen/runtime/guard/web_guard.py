"""Who may talk to a local or remote web endpoint: the one set of checks every HTTP surface of
this project applies (`acp-codegen inspect`, an agent served with `--http`), whatever serves it.

Pure functions over header values, so any web library can call them and the generated package
needs nothing more to import this module:

- `bind_problem`: a non-loopback address is refused unless the caller says it is authenticated
  or explicitly insecure (an agent reachable by anyone on the network by accident is the
  failure this prevents).
- `WebGuard.refusal`: the `Host` header must name an address this server listens on (a page on
  another site that rebinds its DNS name to 127.0.0.1 sends its own name), read strictly and
  compared exactly (`split_host`); a browser's `Origin`, when sent, must be one of ours
  (another site's page cannot drive the agent); and when a token is set, the request must
  carry it (bearer header, or `token` query parameter for pages and event streams, which
  cannot set headers). Comparison is constant-time.
"""

from __future__ import annotations

import hmac
import ipaddress
import re
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final

LOOPBACK_NAMES: Final = frozenset({"localhost", "localhost.localdomain"})
TOKEN_QUERY_PARAMETER: Final = "token"


def new_token() -> str:
    """A random token for a URL: 32 bytes, URL-safe."""
    return secrets.token_urlsafe(32)


def is_loopback(host: str) -> bool:
    """Whether `host` (a name or address, IPv6 with or without brackets) is this machine only."""
    bare = host.strip("[]").lower()
    if bare in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(bare).is_loopback
    except ValueError:
        return False


def bind_problem(host: str, *, authenticated: bool, insecure: bool) -> str | None:
    """Why a server must not listen on `host`, or None. Loopback is always allowed; any other
    address needs an authentication check, or `insecure` said out loud."""
    if is_loopback(host) or authenticated or insecure:
        return None
    return (
        f"refusing to listen on {host}: it is reachable from other machines and no "
        "authentication is configured (set a token, or pass --insecure to accept the risk)"
    )


def split_host(value: str) -> tuple[str, int | None]:
    """A `Host` header as (host, port or None), read strictly as RFC 3986's `host [":" port]`
    with no user info: a name of letters, digits, `-`, `_` and dots (lower-cased), an IPv4
    address, or an IPv6 address in brackets (either written canonically, so one address has
    one spelling). Anything else (`evil.example@127.0.0.1`, spaces, percent-escapes, a
    port that is not plain decimal, a trailing dot's empty label) is ("", -1): it matches
    no server."""
    match = _HOST_HEADER.fullmatch(value)
    if match is None:
        return _MALFORMED
    host, port = match["host"].lower(), match["port"]
    if host.startswith("["):
        try:
            address = ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return _MALFORMED
        host = str(address)
    elif _IPV4_LIKE.fullmatch(host):
        try:
            host = str(ipaddress.IPv4Address(host))
        except ValueError:  # an octet over 255 or with a leading zero
            return _MALFORMED
    if port is not None and (port != str(int(port)) or int(port) > 65535):
        return _MALFORMED
    return host, None if port is None else int(port)


def canonical_host(name: str) -> str:
    """A host name or address as `split_host` reads it (IPv6 without brackets)."""
    bare = name.strip("[]").lower()
    try:
        return str(ipaddress.ip_address(bare))
    except ValueError:
        return bare


_LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
_HOST_HEADER: Final = re.compile(
    rf"(?P<host>\[[0-9a-f:.]+\]|{_LABEL}(?:\.{_LABEL})*)(?::(?P<port>[0-9]{{1,5}}))?",
    re.IGNORECASE | re.ASCII,
)
_IPV4_LIKE: Final = re.compile(r"[0-9.]+", re.ASCII)
_MALFORMED: Final = ("", -1)


@dataclass(frozen=True, slots=True)
class Refusal:
    status: int
    reason: str


@dataclass(slots=True)
class WebGuard:
    """The checks for one listening server. `port` is the port it listens on; `hosts` the names
    it may be reached by (loopback names are added when it listens on loopback); `origins` the
    browser origins allowed besides its own (`scheme://host:port`, as browsers send them);
    `token` the secret every request must carry (None: no token check); `missing_token_status`
    the answer to a request without it: 401 suits a bearer-auth API (the client should
    authenticate), 403 a page whose URL carries the token (nothing to ask the person for)."""

    port: int
    hosts: frozenset[str] = field(default_factory=frozenset)
    origins: frozenset[str] = field(default_factory=frozenset)
    token: str | None = None
    missing_token_status: int = 401

    @classmethod
    def for_address(
        cls,
        host: str,
        port: int,
        *,
        token: str | None = None,
        also_hosts: Iterable[str] = (),
        also_origins: Iterable[str] = (),
        missing_token_status: int = 401,
    ) -> WebGuard:
        names = {canonical_host(host), *(canonical_host(name) for name in also_hosts)}
        if is_loopback(host):
            names |= {"127.0.0.1", "::1", *LOOPBACK_NAMES}
        names.discard("")  # never the name of a Host header that could not be read
        origins = {origin.rstrip("/").lower() for origin in also_origins}
        for name in names:
            shown = f"[{name}]" if ":" in name else name
            origins |= {f"http://{shown}:{port}", f"https://{shown}:{port}"}
        return cls(
            port=port,
            hosts=frozenset(names),
            origins=frozenset(origins),
            token=token,
            missing_token_status=missing_token_status,
        )

    def refusal(
        self,
        headers: Mapping[str, str],
        query_token: str | None = None,
    ) -> Refusal | None:
        """Why this request is refused (403, or `missing_token_status` without a token), or None
        to serve it.
        `headers` is looked up case-insensitively by the web library (aiohttp's CIMultiDict)
        or given with canonical names."""
        host, port = split_host(headers.get("Host", ""))
        default = {80: None, 443: None}.get(self.port, -2)  # no port in Host: the scheme's
        if host not in self.hosts or port not in (self.port, default):
            return Refusal(403, "unexpected Host header")
        origin = headers.get("Origin")
        if origin is not None and origin.rstrip("/").lower() not in self.origins:
            return Refusal(403, "cross-origin request refused")
        if self.token is None:
            return None
        offered = bearer_token(headers.get("Authorization")) or query_token
        if offered is None:
            return Refusal(self.missing_token_status, "missing token")
        if not hmac.compare_digest(_raw(offered), _raw(self.token)):
            return Refusal(403, "wrong token")
        return None


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, else None."""
    if authorization is None:
        return None
    scheme, _, value = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def _raw(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # header text may hold any code point
