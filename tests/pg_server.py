"""A throwaway PostgreSQL server for the tests: Debian's binaries (`postgresql` package,
which .ci/run installs), a cluster made with `initdb` in a temporary folder, listening on a
unix socket only (no TCP port to collide on), fsync off, stopped and deleted afterwards.

`initdb` and `pg_ctl` refuse to run as root, so as root they run as the `postgres` user
(`runuser`), in a folder it owns. Where the binaries are missing the tests that need the
server skip with the reason, except in CI, where that is a failure
(tests/interop/sdk_cache.py `unavailable`).

Each test gets a database of its own (`fresh_database`), so the store's migrations run on an
empty one every time and no test sees another's sessions.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tests.interop.sdk_cache import unavailable

SUPERUSER = "acp"
START_GUARD = 120  # seconds; only turns a hang into a failure


def binaries() -> Path | None:
    """The folder of the newest installed PostgreSQL's initdb and pg_ctl, if any."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    if found:
        return found[-1].parent
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


def _as_server_user(argv: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


def url_for(socket_dir: Path, database: str = "postgres") -> str:
    """libpq's URL of `database` on the server listening in `socket_dir`."""
    return f"postgresql://{SUPERUSER}@/{database}?host={socket_dir}"


@dataclass
class PgServer:
    """A running cluster (see the module doc)."""

    root: Path  # data/, the socket and the log are in here
    bin_dir: Path
    _names: Iterator[int] = field(default_factory=itertools.count)

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def log(self) -> Path:
        return self.root / "server.log"

    @property
    def url(self) -> str:
        return url_for(self.root)

    def fresh_database(self, prefix: str = "t") -> str:
        """The URL of a new, empty database on this server."""
        import psycopg

        name = f"{prefix}_{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url, autocommit=True, connect_timeout=10) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        return url_for(self.root, name)

    def _ctl(self, *args: str, check: bool = True) -> None:
        subprocess.run(
            _as_server_user([str(self.bin_dir / "pg_ctl"), "-D", str(self.data), *args]),
            check=check,
            stdout=subprocess.DEVNULL,
            stderr=None if check else subprocess.DEVNULL,
            timeout=START_GUARD,
        )

    def start(self) -> None:
        options = (  # small: under xdist every test process runs one
            f"-c listen_addresses='' -k {self.root} -c fsync=off -c shared_buffers=16MB "
            "-c max_connections=100"
        )
        self._ctl("-o", options, "-l", str(self.log), "-w", "start")

    def stop(self) -> None:
        """Stop at once (the cluster is thrown away: no checkpoint is worth waiting for)."""
        self._ctl("-m", "immediate", "-w", "stop")

    def stop_if_running(self) -> None:
        """`stop`, unless a test stopped it already (and failed before starting it again)."""
        self._ctl("-m", "immediate", "-w", "stop", check=False)


def _make(root: Path, bin_dir: Path) -> PgServer:
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    root.chmod(0o700)
    subprocess.run(
        _as_server_user(
            [
                str(bin_dir / "initdb"),
                "-D",
                str(root / "data"),
                "-A",
                "trust",
                "-U",
                SUPERUSER,
                "--no-sync",
                "-E",
                "UTF8",
            ]
        ),
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        timeout=START_GUARD,
    )
    return PgServer(root, bin_dir)


@contextlib.contextmanager
def running_server() -> Iterator[PgServer]:
    """A new cluster, started; stopped and deleted when the block ends."""
    bin_dir = binaries()
    if bin_dir is None:
        unavailable("PostgreSQL is not installed (Debian: apt-get install postgresql)")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        unavailable("psycopg is not installed (pip install -e '.[test]' brings it)")
    # Not under pytest's tmp folders: those are root's alone, and the server runs as postgres;
    # short, too: a unix socket's path is at most 107 bytes.
    root = Path(tempfile.mkdtemp(prefix="acp-pg-", dir="/tmp"))
    try:
        server = _make(root, bin_dir)
        server.start()
        try:
            yield server
        finally:
            server.stop_if_running()
    finally:
        shutil.rmtree(root, ignore_errors=True)
