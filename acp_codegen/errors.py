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
        return f"{self.file}#{self.pointer or '/'}: {self.message}"


class SchemaError(Exception):
    """The schema cannot be turned into bindings; carries every problem found."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = tuple(sorted(set(problems), key=lambda p: (p.pointer, p.message)))
        super().__init__("\n".join(str(p) for p in self.problems))
