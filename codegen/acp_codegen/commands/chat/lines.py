"""Plain text that grows: streams of text (an answer, a tool's output) written as they arrive,
each under its label, between whole lines. No cursor movement and nothing rewritten, so the
output reads the same in a terminal, a pipe or a file. Everything is written through `_write`,
which escapes what would steer a terminal (`visible`): no text of the agent's reaches it raw."""

from __future__ import annotations

from collections.abc import Hashable
from typing import NamedTuple, TextIO

from .visible import visible


class Stream(NamedTuple):
    label: str  # starts its first line, and its line again when something came in between
    indent: str  # starts each following line
    revised: str  # the label when its text is replaced rather than extended


class Lines:
    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._open: Hashable | None = None  # the stream whose line is not ended yet
        # Whitespace at the end of a stream waits for text after it: a stream reads stripped.
        self._held: dict[Hashable, str] = {}

    def line(self, text: str) -> None:
        """Whole lines, below whatever stream was being written."""
        self.close()
        self._write(text + "\n")

    def add(self, key: Hashable, stream: Stream, text: str, *, revised: bool = False) -> None:
        """Append `text` to the stream `key` (with `revised`: start it again, marked)."""
        if revised:
            if self._open == key:
                self.close()
            self._held.pop(key, None)
        text = self._held.pop(key, "") + text
        if self._open != key:
            text = text.lstrip()  # a (re)started line begins with text
        body = text.rstrip()
        if not body:
            if text and self._open == key:
                self._held[key] = text
            return
        if body != text:
            self._held[key] = text[len(body) :]
        if self._open != key:
            self.close()
            self._write(stream.revised if revised else stream.label)
            self._open = key
        self._write(body.replace("\n", "\n" + stream.indent))

    def close(self) -> None:
        """End the line of the stream being written, if any."""
        if self._open is not None:
            self._open = None
            self._write("\n")

    def _write(self, text: str) -> None:
        self._out.write(visible(text))
        self._out.flush()  # each piece as it comes, also through a pipe
