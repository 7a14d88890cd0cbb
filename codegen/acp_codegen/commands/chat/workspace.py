"""The files a v1 agent may read and write through chat and inspect (`fs/read_text_file`,
`fs/write_text_file`): regular files under `--cwd`, nothing else.

A path is taken only when it is absolute, holds no NUL and is valid text (no lone
surrogates); it is then walked by descriptor under the working directory (`confined`: links
followed only when relative and inside, FIFOs, sockets, devices and hard-linked files
refused). A refused path is an error -32602 naming it. Writing asks first (`confirm`, told the
text the write replaces, for a diff), once the path passed those checks, unless `--approve`
said yes to everything. Reading asks too
when `confirm_read` is given (a remote agent, see `services`), and then before the path is
even looked at: an agent the user refused learns nothing of what is there, not even whether
it exists. A refused write or read is an error, so the agent knows nothing was done.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path

from ..._bindings import RpcError
from ..._bindings._runtime.wire.errors import ErrorCode
from .confined import ConfinedFolder, Missing, Refused

# Reads larger than this are refused: a text file for a model's context, not a disk image.
MAX_READ_BYTES = 16 << 20
MAX_PATH_CHARACTERS = 4096  # Linux's PATH_MAX: no longer path names a file
# where, what is written, the text it replaces (None: no file there, or none chat can read)
# -> allowed?
Confirm = Callable[[Path, str, str | None], Awaitable[bool]]
ConfirmRead = Callable[[Path], Awaitable[bool]]  # where -> allowed?


def refused(path: str, why: str) -> RpcError:
    return RpcError(ErrorCode.INVALID_PARAMS, f"{why}: {path!r}", {"path": path})


def not_found(path: str, why: str) -> RpcError:
    return RpcError(ErrorCode.RESOURCE_NOT_FOUND, f"cannot read {path!r}: {why}", {"path": path})


class Workspace:
    """Reads and writes confined to `root` (the session's working directory)."""

    def __init__(
        self, root: Path, confirm: Confirm, confirm_read: ConfirmRead | None = None
    ) -> None:
        self.folder = ConfinedFolder(root)
        self.root = self.folder.root
        self._confirm = confirm
        self._confirm_read = confirm_read

    def names(self, path: str) -> list[str]:
        """The names under the working directory `path` leads to (see the module)."""
        if len(path) > MAX_PATH_CHARACTERS:
            raise refused(path[:200] + "...", f"a path longer than {MAX_PATH_CHARACTERS}")
        if "\0" in path:
            raise refused(path, "a path with a NUL character")
        try:
            path.encode("utf-8")
        except UnicodeEncodeError:
            raise refused(path, "a path that is not valid text") from None
        if not os.path.isabs(path):
            raise refused(path, "not an absolute path")
        try:
            return self.folder.names_of(path)
        except Refused as why:
            raise refused(path, str(why)) from None

    def resolve(self, path: str) -> Path:
        """Where `path` leads once its links inside the working directory are followed (it
        need not exist); -32602 when it is one the agent may not use."""
        names = self.names(path)
        try:
            return self.folder.where(names)
        except Refused as why:
            raise refused(path, str(why)) from None
        except OSError as error:
            raise refused(path, f"cannot resolve the path ({error.strerror})") from None

    async def read_text(self, path: str, line: int | None = None, limit: int | None = None) -> str:
        """The file's text from 1-based `line`, at most `limit` lines (asked first when reads
        are asked)."""
        names = self.names(path)
        asked = self.root.joinpath(*names)  # as the agent named it: nothing is looked at yet
        if self._confirm_read is not None and not await self._confirm_read(asked):
            why = f"the user did not allow reading {path!r}"
            raise RpcError(ErrorCode.INVALID_REQUEST, why, {"path": path})
        data = self._read(path, names)
        text = data.decode("utf-8", errors="replace")
        if line is None and limit is None:
            return text
        lines = text.splitlines(keepends=True)
        start = max((line or 1) - 1, 0)
        end = None if limit is None else start + limit
        return "".join(lines[start:end])

    def _read(self, path: str, names: list[str]) -> bytes:
        """The bytes of the file `names` lead to: a regular file with one link, opened without
        following a link and without waiting on a FIFO."""
        try:
            data = self.folder.read(names, MAX_READ_BYTES + 1)
        except Refused as why:
            raise refused(path, str(why)) from None
        except (Missing, FileNotFoundError):
            raise not_found(path, "no such file") from None
        except OSError as error:
            raise not_found(path, error.strerror or str(error)) from None
        if len(data) > MAX_READ_BYTES:
            raise refused(path, f"larger than {MAX_READ_BYTES} bytes")
        return data

    async def write_text(self, path: str, content: str) -> None:
        """Write `content` (UTF-8) once the user (or `--approve`) allowed it; parent folders
        inside the working directory are made as needed."""
        names = self.names(path)
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError:
            raise refused(path, "content that is not valid text (a lone surrogate)") from None
        where = self._writable(path, names)
        if not await self._confirm(where, content, self._replaced(names)):
            raise RpcError(
                ErrorCode.INVALID_REQUEST,
                f"the user did not allow writing {path!r}",
                {"path": path},
            )
        try:
            self.folder.write(names, data)
        except Refused as why:
            raise refused(path, str(why)) from None
        except OSError as error:
            raise RpcError(
                ErrorCode.INTERNAL_ERROR, f"cannot write {path!r}: {error.strerror}", {"path": path}
            ) from None

    def _replaced(self, names: list[str]) -> str | None:
        """The text a write to `names` replaces, read as a read would be (for the question's
        diff); None when there is no regular file there or it is too large to show."""
        try:
            data = self.folder.read(names, MAX_READ_BYTES + 1)
        except (Refused, Missing, OSError):
            return None
        return None if len(data) > MAX_READ_BYTES else data.decode("utf-8", errors="replace")

    def _writable(self, path: str, names: list[str]) -> Path:
        """Where a write of `path` would go, checked before the user is asked: nothing is made
        or opened (the write walks again, and checks again)."""
        try:
            return self.folder.writable(names)
        except Refused as why:
            raise refused(path, str(why)) from None
        except OSError as error:
            raise refused(path, f"cannot write there ({error.strerror})") from None
