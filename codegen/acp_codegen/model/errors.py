"""Errors that carry where they happened: a file and a JSON pointer into it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


def pointer(*parts: str | int) -> str:
    """Build an RFC 6901 JSON pointer from path parts."""
    escaped = (str(p).replace("~", "~0").replace("/", "~1") for p in parts)
    return "".join("/" + p for p in escaped)


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a schema, located by file and JSON pointer."""

    file: str
    pointer: str
    message: str

    def __str__(self) -> str:
        return f"{_shown(self.file)}#{_shown(self.pointer) or '/'}: {_shown(self.message)}"


def _shown(text: str) -> str:
    """`text` with control and bidi characters escaped: schema text must not drive a terminal."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


class SchemaError(Exception):
    """The schema cannot be turned into bindings; carries every problem found."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = tuple(sorted(set(problems), key=lambda p: (p.pointer, p.message)))
        super().__init__("\n".join(str(p) for p in self.problems))
