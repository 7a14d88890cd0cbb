"""Files under one folder, opened by descriptor so that nothing an agent names, and nothing
that changes under it meanwhile, leads outside: the one confinement chat and inspect use
(inspect serves a v1 agent's files through chat's client).

The folder is opened once. A path is taken apart into names, and each folder on the way is
opened relative to the one before it with O_NOFOLLOW, so a folder swapped for a symlink
between a check and an open is refused, never followed. The rules:

- `.` and `..` in the path the agent sent are taken by name (lexically), before anything is
  opened; a path that then lies outside the folder is refused.
- A symlink inside the folder is followed when its target is relative and stays inside: the
  target's names take the link's place in the walk, and a `..` among them steps back to the
  folder the walk came from, never above the confined one. A symlink with an absolute target
  is refused, wherever it points (the error does not say where: a remote agent may be
  probing). At most `MAX_LINKS` links are followed in one path, `MAX_DEPTH` folders deep.
- The file itself is opened with O_NOFOLLOW and O_NONBLOCK (a FIFO never holds us up) and
  checked with fstat: only a regular file is read or written; FIFOs, sockets and devices are
  refused (and a special file seen before opening is not even opened). A file with more than
  one hard link is refused too: its other name may be outside the folder.
- A write creates its file with O_EXCL, or opens the existing one without O_TRUNC and empties
  it only once fstat said it is a regular file with one link; missing folders on the way are
  made by the walk, one name at a time, relative to the folder before.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import weakref
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

MAX_LINKS: Final = 40  # symlinks followed in one path, as the kernel allows
MAX_DEPTH: Final = 256  # folders held open at once by one walk (each is a descriptor)
_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)
FOLDER_FLAGS: Final = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
FILE_FLAGS: Final = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | _CLOEXEC


class Refused(Exception):
    """A path the agent may not use; the message says why."""


class Missing(Exception):
    """A folder on the way does not exist; `names` is where the path leads (lexically)."""

    def __init__(self, names: list[str]) -> None:
        super().__init__("no such folder")
        self.names = names


@dataclass
class Place:
    """Where a walk ended: the open folders from the confined one down (names and descriptors)
    and the last name in the last of them (None: the path names that folder itself)."""

    names: list[str] = field(default_factory=list)
    fds: list[int] = field(default_factory=list)
    leaf: str | None = None

    def folder(self, root_fd: int) -> int:
        return self.fds[-1] if self.fds else root_fd


def check_file(info: os.stat_result) -> None:
    """Refused unless `info` is a regular file with one name."""
    mode = info.st_mode
    if not stat.S_ISREG(mode):
        raise Refused(f"not a regular file (a {kind_of(mode)})")
    if info.st_nlink > 1:
        raise Refused(
            f"a file with {info.st_nlink} hard links (another name of it may lie outside the "
            "working directory)"
        )


def kind_of(mode: int) -> str:
    kinds = [
        (stat.S_ISDIR, "folder"),
        (stat.S_ISFIFO, "named pipe"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
        (stat.S_ISLNK, "symlink"),
    ]
    return next((name for test, name in kinds if test(mode)), "special file")


class ConfinedFolder:
    """One folder (`root`, resolved) held open; paths walked from it by descriptor."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve(strict=True)
        self.fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
        self._closer = weakref.finalize(self, os.close, self.fd)

    def names_of(self, path: str) -> list[str]:
        """The names under the folder that absolute `path` leads to, `.` and `..` taken
        lexically; Refused when it lies outside."""
        names: list[str] = []
        for name in path.split("/"):
            if name == "..":
                if names:
                    names.pop()
            elif name not in ("", "."):
                names.append(name)
        inside = list(self.root.parts[1:])
        if names[: len(inside)] != inside:
            raise Refused(f"outside the working directory {str(self.root)!r}")
        return names[len(inside) :]

    def location(self, place: Place) -> Path:
        return self.root.joinpath(*place.names, *([place.leaf] if place.leaf else []))

    def where(self, names: list[str]) -> Path:
        """Where `names` lead once the links on the way are followed (it need not exist)."""
        try:
            with self.walk(names) as place:
                return self.location(place)
        except Missing as missing:
            return self.root.joinpath(*missing.names)

    def read(self, names: list[str], limit: int) -> bytes:
        """At most `limit` bytes of the regular file `names` lead to (`Missing` or
        FileNotFoundError when there is none); a special file is refused unopened."""
        with self.walk(names) as place:
            folder, name = self._file_in(place)
            check_file(os.stat(name, dir_fd=folder, follow_symlinks=False))
            return read_file(folder, name, limit)

    def writable(self, names: list[str]) -> Path:
        """Where a write to `names` would go, checked without making or opening anything (the
        write walks and checks again)."""
        try:
            with self.walk(names) as place:
                folder, name = self._file_in(place)
                with contextlib.suppress(FileNotFoundError):  # a new file
                    check_file(os.stat(name, dir_fd=folder, follow_symlinks=False))
                return self.location(place)
        except Missing as missing:
            return self.root.joinpath(*missing.names)  # in new folders

    def write(self, names: list[str], data: bytes) -> None:
        """Write `data` to the regular file `names` lead to, making folders on the way."""
        with self.walk(names, make=True) as place:
            write_file(*self._file_in(place), data)

    def _file_in(self, place: Place) -> tuple[int, str]:
        if place.leaf is None:
            raise Refused("a folder, not a file")
        return place.folder(self.fd), place.leaf

    @contextlib.contextmanager
    def walk(self, names: list[str], *, make: bool = False) -> Iterator[Place]:
        """Walk `names` from the folder (see the module for the rules); the folders on the way
        stay open while the caller uses the place. `make` makes missing folders; without it a
        missing folder raises `Missing`."""
        place = Place()
        try:
            self._walk(place, deque(names), make)
            yield place
        finally:
            for fd in place.fds:
                os.close(fd)

    def _walk(self, place: Place, pending: deque[str], make: bool) -> None:
        links = 0
        while pending:
            name = pending.popleft()
            if name in ("", "."):
                continue
            if name == "..":
                if not place.fds:
                    raise Refused(f"outside the working directory {str(self.root)!r}")
                os.close(place.fds.pop())
                place.names.pop()
                continue
            target = link_target(place.folder(self.fd), name)
            if target is not None:
                links += 1
                if links > MAX_LINKS:
                    raise Refused(f"more than {MAX_LINKS} symlinks")
                if target.startswith("/"):
                    raise Refused(f"{name!r} is a symlink to an absolute path")
                pending.extendleft(reversed(target.split("/")))
                continue
            if not pending:
                place.leaf = name
                return
            if len(place.fds) >= MAX_DEPTH:
                raise Refused(f"more than {MAX_DEPTH} folders deep")
            try:
                fd = enter(place.folder(self.fd), name, make)
            except FileNotFoundError:
                raise Missing(lexical([*place.names, name, *pending])) from None
            place.fds.append(fd)
            place.names.append(name)


def link_target(folder: int, name: str) -> str | None:
    """The target of symlink `name` in `folder`; None when it is no symlink or does not exist."""
    try:
        return os.readlink(name, dir_fd=folder)
    except OSError as error:
        if error.errno in (errno.EINVAL, errno.ENOENT):
            return None
        raise


def enter(folder: int, name: str, make: bool) -> int:
    """Open folder `name` in `folder` without following a symlink (made first with `make`)."""
    try:
        return open_folder(folder, name)
    except FileNotFoundError:
        if not make:
            raise
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, 0o777, dir_fd=folder)
    return open_folder(folder, name)


def open_folder(folder: int, name: str) -> int:
    try:
        return os.open(name, FOLDER_FLAGS, dir_fd=folder)
    except OSError as error:
        # Not a folder, or a symlink put there since `link_target` looked (Linux says ENOTDIR
        # for a symlink opened O_DIRECTORY|O_NOFOLLOW, others ELOOP).
        if error.errno in (errno.ENOTDIR, errno.ELOOP):
            raise Refused(f"{name!r} is not a folder (or was replaced by a symlink)") from None
        raise


def read_file(folder: int, name: str, limit: int) -> bytes:
    """The bytes of regular file `name` in `folder` (one link), at most `limit`."""
    fd = os.open(name, os.O_RDONLY | FILE_FLAGS, dir_fd=folder)
    try:
        check_file(os.fstat(fd))
        chunks: list[bytes] = []
        left = limit
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_file(folder: int, name: str, data: bytes) -> None:
    """Write `data` to regular file `name` in `folder`: a new one, or an existing one with one
    link, emptied only once it is known to be that."""
    flags = os.O_WRONLY | FILE_FLAGS
    try:
        fd = os.open(name, flags | os.O_CREAT | os.O_EXCL, 0o644, dir_fd=folder)
    except FileExistsError:
        check_file(os.stat(name, dir_fd=folder, follow_symlinks=False))
        fd = os.open(name, flags, dir_fd=folder)
    try:
        check_file(os.fstat(fd))
        os.ftruncate(fd, 0)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def lexical(names: list[str]) -> list[str]:
    """`names` with `.` and `..` folded by name (a place that does not exist yet); Refused
    when a `..` would step above the confined folder."""
    kept: list[str] = []
    for name in names:
        if name == "..":
            if not kept:
                raise Refused("outside the working directory")
            kept.pop()
        elif name not in ("", "."):
            kept.append(name)
    return kept
