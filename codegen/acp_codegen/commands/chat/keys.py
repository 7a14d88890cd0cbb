"""Reading the terminal without blocking the event loop: whole lines (the terminal's own line
editing) for prompts; while a turn runs, keys as they are pressed (cbreak mode, no echo), so a
permission answer is read at once and other typing never lands in the turn's view. Ctrl-C stays
a signal in both modes, so the chat's SIGINT handler sees it."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import sys
import termios
import tty
from collections.abc import Callable, Iterator


class Terminal:
    def __init__(self, fd: int | None = None) -> None:
        self.fd = sys.stdin.fileno() if fd is None else fd

    async def read_line(self) -> str | None:
        """The next line typed (without its newline), or None at end of input (Ctrl-D)."""
        data = await self._read()
        if not data:
            return None
        return data.decode("utf-8", errors="replace").rstrip("\r\n")

    async def read_key(self) -> str:
        """One key press, without echo and without waiting for Enter ("" at end of input)."""
        with self._cbreak():
            data = await self._read()
        return data.decode("utf-8", errors="replace")[:1]

    @contextlib.contextmanager
    def keys(self, on_keys: Callable[[str], None]) -> Iterator[None]:
        """While inside: the terminal in cbreak mode, each read's keys handed to `on_keys` as
        they come ("" once at end of input). Nothing typed is echoed or left for later."""
        loop = asyncio.get_running_loop()
        decoder = codecs.getincrementaldecoder("utf-8")("replace")

        def on_readable() -> None:
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                data = b""
            if not data:
                loop.remove_reader(self.fd)  # once: the end stays readable
                on_keys("")
            elif text := decoder.decode(data):
                on_keys(text)

        with self._cbreak():
            loop.add_reader(self.fd, on_readable)
            try:
                yield
            finally:
                loop.remove_reader(self.fd)

    async def _read(self) -> bytes:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[bytes] = loop.create_future()

        def on_readable() -> None:
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                data = b""
            if not ready.done():
                ready.set_result(data)

        loop.add_reader(self.fd, on_readable)
        try:
            return await ready
        finally:
            loop.remove_reader(self.fd)

    @contextlib.contextmanager
    def _cbreak(self) -> Iterator[None]:
        saved = termios.tcgetattr(self.fd)
        tty.setcbreak(self.fd, termios.TCSANOW)  # keep what was typed ahead: it is read
        try:
            yield
        finally:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, saved)
