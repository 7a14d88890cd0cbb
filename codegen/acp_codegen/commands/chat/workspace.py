"""The files a v1 agent may read and write through chat (`fs/read_text_file`,
`fs/write_text_file`): those under `--cwd`, nothing else.

A path is taken only when it is absolute, holds no NUL and is valid text (no lone
surrogates), and when it still lies under the working directory after every symlink and `..`
in it is resolved; anything else is refused with -32602 naming the path. Writing asks first
(`confirm`), unless `--approve` said yes to everything; a refused write is an error too, so
the agent knows nothing was written.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path

from ..._bindings import RpcError
from ..._bindings._runtime.errors import ErrorCode

# Reads larger than this are refused: a text file for a model's context, not a disk image.
MAX_READ_BYTES = 16 << 20
Confirm = Callable[[Path, str], Awaitable[bool]]


def refused(path: str, why: str) -> RpcError:
    return RpcError(ErrorCode.INVALID_PARAMS, f"{why}: {path!r}", {"path": path})


class Workspace:
    """Reads and writes confined to `root` (the session's working directory)."""

    def __init__(self, root: Path, confirm: Confirm) -> None:
        self.root = root.resolve(strict=True)
        self._confirm = confirm

    def resolve(self, path: str) -> Path:
        """The real location of `path`, when it is one the agent may use (see the module)."""
        if "\0" in path:
            raise refused(path, "a path with a NUL character")
        try:
            path.encode("utf-8")
        except UnicodeEncodeError:
            raise refused(path, "a path that is not valid text") from None
        if not os.path.isabs(path):
            raise refused(path, "not an absolute path")
        try:
            real = Path(path).resolve(strict=False)  # follows symlinks, folds `..`
        except (OSError, RuntimeError) as error:  # a symlink loop, a path too long
            raise refused(path, f"cannot resolve the path ({error})") from None
        if real != self.root and not real.is_relative_to(self.root):
            raise refused(path, f"outside the working directory {str(self.root)!r}")
        return real

    def read_text(self, path: str, line: int | None = None, limit: int | None = None) -> str:
        """The file's text from 1-based `line`, at most `limit` lines."""
        real = self.resolve(path)
        try:
            # O_NOFOLLOW: a symlink put in place since `resolve` is not followed out.
            fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW)
            with open(fd, "rb") as file:
                data = file.read(MAX_READ_BYTES + 1)
        except OSError as error:
            raise RpcError(
                ErrorCode.RESOURCE_NOT_FOUND,
                f"cannot read {path!r}: {error.strerror}",
                {"path": path},
            ) from None
        if len(data) > MAX_READ_BYTES:
            raise refused(path, f"larger than {MAX_READ_BYTES} bytes")
        text = data.decode("utf-8", errors="replace")
        if line is None and limit is None:
            return text
        lines = text.splitlines(keepends=True)
        start = max((line or 1) - 1, 0)
        end = None if limit is None else start + limit
        return "".join(lines[start:end])

    async def write_text(self, path: str, content: str) -> None:
        """Write `content` (UTF-8) once the user (or `--approve`) allowed it; parent folders
        inside the working directory are made as needed."""
        real = self.resolve(path)
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError:
            raise refused(path, "content that is not valid text (a lone surrogate)") from None
        if not await self._confirm(real, content):
            raise RpcError(
                ErrorCode.INVALID_REQUEST,
                f"the user did not allow writing {path!r}",
                {"path": path},
            )
        try:
            real.parent.mkdir(parents=True, exist_ok=True)
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
            with open(os.open(real, flags, 0o644), "wb") as file:
                file.write(data)
        except OSError as error:
            raise RpcError(
                ErrorCode.INTERNAL_ERROR, f"cannot write {path!r}: {error.strerror}", {"path": path}
            ) from None
