"""One writer per output folder at a time.

Two runs writing the same folder at once would each take the other's stage for what a killed run
left behind, and remove it. So a write holds an exclusive lock keyed by the folder's resolved
path; a second run waits for the first (and says so), then plans against what the first wrote.

The lock file lives outside the user's tree (nothing is added to it, and it works before the
folder's parents exist), in a directory of this user's own: `acp-codegen-<uid>` in
`$XDG_RUNTIME_DIR`, else in the temporary directory, mode 0700. A shared temporary directory is
anyone's to plant files in, so the directory must be a real directory (not a symlink) owned by
this user and closed to others, and the lock file is opened without following a symlink. The
lock file is removed when the run ends.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path


def lock_dir() -> Path:
    """This user's directory for lock files (not created here)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    base = runtime if os.path.isabs(runtime) else tempfile.gettempdir()
    return Path(base) / f"acp-codegen-{os.getuid()}"


def lock_path(folder: Path) -> Path:
    key = hashlib.sha256(os.fsencode(folder.resolve())).hexdigest()[:24]
    return lock_dir() / f"{key}.lock"


def _open_private_dir(path: Path) -> int:
    """A descriptor of `path`, created 0700 when missing; OSError unless it is a directory (not
    a symlink) owned by this user that no one else can write to or read."""
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    info = os.fstat(fd)
    if info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & 0o077:
        os.close(fd)
        raise PermissionError(f"{path} is not a private directory of this user")
    return fd


def _locked_file(folder: Path, report: Callable[[str], None]) -> tuple[int, int, str]:
    """(directory fd, locked file fd, file name): the exclusive lock on `folder`'s lock file.
    A lock file removed by the run that held it while we waited is locked afresh."""
    import fcntl

    path = lock_path(folder)
    dir_fd = _open_private_dir(path.parent)
    try:
        while True:
            flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW
            fd = os.open(path.name, flags, 0o600, dir_fd=dir_fd)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                report(f"waiting for another acp-codegen run that is writing {folder}")
                fcntl.flock(fd, fcntl.LOCK_EX)
            if _still_named(fd, path.name, dir_fd):
                _sweep(dir_fd, path.name)
                return dir_fd, fd, path.name
            os.close(fd)  # the file we locked is no longer the lock file: lock the new one
    except BaseException:
        os.close(dir_fd)
        raise


def _still_named(fd: int, name: str, dir_fd: int) -> bool:
    """Whether the file open as `fd` is still the one called `name` (not removed or replaced)."""
    try:
        now = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)


def _sweep(dir_fd: int, mine: str) -> None:
    """Remove the lock files that killed runs left (SIGKILL skips the clean-up): each one no
    run holds. Removed under its own lock, so a run that opened it meanwhile locks afresh."""
    import fcntl

    for name in os.listdir(dir_fd):
        if name == mine or not name.endswith(".lock"):
            continue
        try:
            fd = os.open(name, os.O_RDWR | os.O_NOFOLLOW, dir_fd=dir_fd)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if _still_named(fd, name, dir_fd):
                os.unlink(name, dir_fd=dir_fd)
        except OSError:
            pass  # held by a run that is writing: it removes the file itself
        finally:
            os.close(fd)


@contextlib.contextmanager
def folder_lock(folder: Path, report: Callable[[str], None]) -> Iterator[None]:
    """Hold the write lock on `folder` for the body; `report` is told when it must wait.
    Where there are no advisory locks (Windows) or no safe lock file can be had, runs are not
    serialised (and `report` says why, in the second case)."""
    if sys.platform == "win32":
        yield
        return
    try:
        dir_fd, fd, name = _locked_file(folder, report)
    except OSError as exc:
        report(f"not locking {folder} against other acp-codegen runs: {exc}")
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=dir_fd)  # while still held: a waiter then locks afresh
        os.close(fd)  # closing releases the lock
        os.close(dir_fd)
