"""The store under test, each kind a real database: a SQLite file, and a database of its own on
the throwaway PostgreSQL server (tests/pg_server.py; a slow test, since it needs the server)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import pytest
from acp_codegen.runtime.store.durable import DurableStore, StoreLimits
from acp_codegen.runtime.store.postgres_store import PostgresStore
from acp_codegen.runtime.store.sqlite_store import SqliteStore

KINDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.slow),
]


class MakeStore(Protocol):
    """A new store on the test's one database (each call: another process's view of it)."""

    def __call__(
        self,
        limits: StoreLimits | None = None,
        *,
        clock: Callable[[], float] | None = None,
        lease_seconds: float | None = None,
    ) -> DurableStore: ...


@pytest.fixture
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty database of the kind the test is parametrized with."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'sessions.db'}"
    server = request.getfixturevalue("pg_server")
    return str(server.fresh_database())


@pytest.fixture
def make_store(database_url: str) -> MakeStore:
    def make(
        limits: StoreLimits | None = None,
        *,
        clock: Callable[[], float] | None = None,
        lease_seconds: float | None = None,
    ) -> DurableStore:
        options: dict[str, Any] = {}
        if clock is not None:
            options["clock"] = clock
        if lease_seconds is not None:
            options["lease_seconds"] = lease_seconds
        if database_url.startswith("sqlite:///"):
            return SqliteStore(database_url.removeprefix("sqlite:///"), limits, **options)
        return PostgresStore(database_url, limits, **options)

    return make


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test that uses a store runs on both kinds."""
    if "database_url" in metafunc.fixturenames:
        metafunc.parametrize("database_url", KINDS, indirect=True)
