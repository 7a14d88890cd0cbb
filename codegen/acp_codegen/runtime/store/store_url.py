"""The `--session-store URL` option: which durable store an agent keeps its sessions in.

`sqlite:///PATH` names a SQLite file (SQLAlchemy's spelling: what follows the third slash is
the path, so `sqlite:///sessions.db` is relative to the working directory and
`sqlite:////var/lib/agent/sessions.db` absolute). `postgresql://...` (or `postgres://`) is
libpq's URL of a PostgreSQL database (postgres_store.py; needs psycopg, the `postgres`
extra). Anything else is refused with a `ValueError` saying what is expected: a command line
shows it as a usage error.
"""

from __future__ import annotations

import argparse
from typing import Final

from .durable import DurableStore, StoreLimits, StoreUnavailable
from .sqlite_store import SqliteStore

POSTGRES_SCHEMES: Final = frozenset({"postgresql", "postgres"})  # libpq's

EXPECTED: Final = (
    "expected sqlite:///PATH (e.g. sqlite:///sessions.db) or postgresql://... (libpq's URL)"
)
OPTION_HELP: Final = (
    "keep sessions (their history, title, the author's data) in this store, so they "
    "survive a restart: sqlite:///PATH, or postgresql://USER@HOST/DB for processes "
    "sharing one database (default: in memory only)"
)


def store_path(url: str) -> str:
    """The file a `sqlite:///PATH` URL names; ValueError for any other URL."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"session store {url!r} is not a URL: {EXPECTED}")
    if scheme.lower() != "sqlite":
        raise ValueError(f"session store scheme {scheme!r} is not supported: {EXPECTED}")
    if not rest.startswith("/"):
        raise ValueError(f"session store {url!r} names a host; {EXPECTED}")
    path = rest[1:]
    if not path or "?" in path or "#" in path:
        raise ValueError(f"session store {url!r} names no file (or has a query): {EXPECTED}")
    return path


def open_store(url: str, limits: StoreLimits | None = None) -> DurableStore:
    """The store `url` names, opened and migrated; ValueError for a bad URL or a store that
    cannot be opened (the message says which)."""
    try:
        if url.partition("://")[0].lower() in POSTGRES_SCHEMES:
            from .postgres_store import PostgresStore  # psycopg only when asked for

            return PostgresStore(url, limits)
        return SqliteStore(store_path(url), limits)
    except StoreUnavailable as error:
        raise ValueError(str(error)) from error


_LIMITS: Final = (
    # option, StoreLimits field, type, what it bounds
    ("--session-store-max-bytes", "max_session_bytes", int, "bytes of one session's history"),
    ("--session-store-max-age", "max_age_seconds", float, "seconds a session is kept unused"),
    ("--session-store-max-sessions", "max_sessions", int, "sessions kept"),
)


def add_store_arguments(parser: argparse.ArgumentParser) -> None:
    """`--session-store URL` and the store's retention limits."""
    parser.add_argument("--session-store", metavar="URL", default=None, help=OPTION_HELP)
    defaults = StoreLimits()
    for option, name, kind, what in _LIMITS:
        parser.add_argument(
            option,
            dest=name,
            type=kind,
            metavar="N",
            help=f"with --session-store: {what} (default: {getattr(defaults, name)})",
        )


def store_setting(parser: argparse.ArgumentParser, args: argparse.Namespace) -> DurableStore | None:
    """The store `--session-store` named, with the limits given (None: no store); a bad URL,
    limit or file is a usage error."""
    url = args.session_store
    given = {name: getattr(args, name) for _, name, _, _ in _LIMITS}
    if url is None:
        if any(value is not None for value in given.values()):
            parser.error("--session-store-max-*: only with --session-store")
        return None
    try:
        limits = StoreLimits(**{k: v for k, v in given.items() if v is not None})
        return open_store(url, limits)
    except ValueError as problem:
        parser.error(f"--session-store: {problem}")
