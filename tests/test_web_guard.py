"""The shared checks for every HTTP surface (runtime/guard/web_guard.py)."""

from __future__ import annotations

import pytest
from acp_codegen.runtime.guard.web_guard import (
    WebGuard,
    bearer_token,
    bind_problem,
    is_loopback,
    new_token,
    split_host,
)


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "127.8.9.1", "::1", "[::1]", "localhost", "LOCALHOST"]
)
def test_loopback_names(host: str) -> None:
    assert is_loopback(host)
    assert bind_problem(host, authenticated=False, insecure=False) is None


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.4", "example.com", ""])
def test_other_addresses_need_auth_or_insecure(host: str) -> None:
    problem = bind_problem(host, authenticated=False, insecure=False)
    assert problem is not None and "--insecure" in problem
    assert bind_problem(host, authenticated=True, insecure=False) is None
    assert bind_problem(host, authenticated=False, insecure=True) is None


def test_split_host() -> None:
    assert split_host("127.0.0.1:8080") == ("127.0.0.1", 8080)
    assert split_host("[::1]:9") == ("::1", 9)
    assert split_host("Example.COM") == ("example.com", None)
    assert split_host("x:notaport")[1] == -1
    assert split_host("[0:0:0:0:0:0:0:1]:9") == ("::1", 9)  # one address, one spelling


# Each names something other than the server at 127.0.0.1:8123, or is no `host[:port]` at all.
FOREIGN_HOSTS = [
    "evil.example@127.0.0.1:8123",  # user info: the name after `@` is not what was asked for
    "127.0.0.1:8123@evil.example",
    "user:pw@127.0.0.1:8123",
    "127.0.0.1.evil.example:8123",
    "127.0.0.1:8123.evil.example",
    "localhost.:8123",  # a trailing dot: another name, compared exactly
    "127.0.0.1 :8123",
    "127.0.0.1: 8123",
    "127.0.0.1\t:8123",
    "127.0.0.1:08123",
    "127.0.0.1:+8123",
    "127.0.0.1:8123:8123",
    "127.0.0.1:",
    "%31%32%37.0.0.1:8123",
    "127.0.0.1%3a8123",
    "127.1:8123",
    "127.000.0.1:8123",
    "2130706433:8123",
    "::1:8123",  # IPv6 without brackets
    "[::1%25lo]:8123",
    "[::1]8123",
    "[127.0.0.1]:8123",
    ":8123",
    "",
]


@pytest.mark.parametrize("host", FOREIGN_HOSTS)
def test_a_host_header_that_is_not_exactly_ours_is_403(host: str) -> None:
    refusal = _guard().refusal({"Host": host})
    assert refusal is not None and refusal.status == 403


@pytest.mark.parametrize(
    "host", ["127.0.0.1:8123", "LOCALHOST:8123", "[::1]:8123", "[0::1]:8123", "localhost:8123"]
)
def test_each_spelling_of_our_address_passes(host: str) -> None:
    assert _guard().refusal({"Host": host}) is None


def test_a_server_on_an_unnamed_address_takes_no_unreadable_host() -> None:
    guard = WebGuard.for_address("", 8123)  # every interface, as an empty host names it
    for host in (":8123", "@:8123", "[]:8123"):
        assert guard.refusal({"Host": host}) is not None


def _guard(token: str | None = None) -> WebGuard:
    return WebGuard.for_address("127.0.0.1", 8123, token=token)


def test_same_host_and_origin_pass() -> None:
    guard = _guard()
    assert guard.refusal({"Host": "127.0.0.1:8123"}) is None
    assert guard.refusal({"Host": "localhost:8123", "Origin": "http://localhost:8123"}) is None
    assert guard.refusal({"Host": "[::1]:8123", "Origin": "http://[::1]:8123"}) is None


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Host": "attacker.example:8123"},  # DNS rebinding: the page's own name
        {"Host": "127.0.0.1:8124"},
        {"Host": "127.0.0.1"},  # not on a default port
        {"Host": "127.0.0.1:8123", "Origin": "http://attacker.example"},
        {"Host": "127.0.0.1:8123", "Origin": "http://127.0.0.1:9999"},
        {"Host": "127.0.0.1:8123", "Origin": "null"},
    ],
)
def test_foreign_host_or_origin_is_403(headers: dict[str, str]) -> None:
    refusal = _guard().refusal(headers)
    assert refusal is not None and refusal.status == 403


def test_token_by_header_or_query() -> None:
    token = new_token()
    guard = _guard(token)
    host = {"Host": "127.0.0.1:8123"}
    assert guard.refusal({**host, "Authorization": f"Bearer {token}"}) is None
    assert guard.refusal(host, query_token=token) is None
    missing = guard.refusal(host)
    assert missing is not None and missing.status == 401
    for wrong in (token[:-1], token + "x", "\ud800", "\x00"):
        refusal = guard.refusal({**host, "Authorization": f"Bearer {wrong}"})
        assert refusal is not None and refusal.status == 403
        refusal = guard.refusal(host, query_token=wrong)
        assert refusal is not None and refusal.status == 403


def test_the_status_for_a_missing_token_is_the_callers() -> None:
    token = new_token()
    guard = WebGuard.for_address("127.0.0.1", 8123, token=token, missing_token_status=403)
    host = {"Host": "127.0.0.1:8123"}
    missing = guard.refusal(host)
    assert missing is not None and (missing.status, missing.reason) == (403, "missing token")
    assert guard.refusal(host, query_token=token) is None
    assert guard.refusal({**host, "Authorization": "Bearer "}) == missing  # empty: not offered


def test_bearer_token_parsing() -> None:
    assert bearer_token("Bearer abc") == "abc"
    assert bearer_token("bearer  abc ") == "abc"
    assert bearer_token("Basic abc") is None
    assert bearer_token("Bearer ") is None
    assert bearer_token(None) is None
