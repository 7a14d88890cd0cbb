"""One writer per output folder at a time.

Two runs writing the same folder at once would each take the other's stage for what a killed run
left behind, and remove it. So a write holds an exclusive lock keyed by the folder's resolved
path; a second run waits for the first (and says so), then plans against what the first wrote.
The lock file lives in the temporary directory, not beside the folder: nothing is added to the
user's tree, and it works before the folder's parents exist.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path


def lock_path(folder: Path) -> Path:
    key = hashlib.sha256(os.fsencode(folder.resolve())).hexdigest()[:24]
    return Path(tempfile.gettempdir()) / f"acp-codegen-{key}.lock"


@contextlib.contextmanager
def folder_lock(folder: Path, report: Callable[[str], None]) -> Iterator[None]:
    """Hold the write lock on `folder` for the body; `report` is told when it must wait.
    Where there are no advisory locks (Windows) or the lock file cannot be opened, runs are
    not serialised, as before."""
    if sys.platform == "win32":
        yield
        return
    import fcntl

    try:
        fd = os.open(lock_path(folder), os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            report(f"waiting for another acp-codegen run that is writing {folder}")
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock
