"""Text as the wire can carry it, for the hypothesis strategies of the suite: every code point a
JSON string may hold, lone surrogates included (hypothesis leaves them out unless told), with
the characters that break encoders drawn often."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

# Lone surrogates of both halves, NUL, characters beyond the BMP, JSON's own escapes, and the
# separators some JSON tools treat as line ends.
AWKWARD = ["\ud800", "\udbff", "\udc00", "\udfff", "\x00", "\U0001f600", "\U0010ffff"]
AWKWARD += ['"', "\\", "\n", "\u2028", "\u2029", "\x7f", "é"]

# One strategy per source: `st.text` (and `|` of character strategies) would merge them into
# one character set, and that set loses the surrogates again.
characters = st.one_of(st.sampled_from(AWKWARD), st.characters(exclude_categories=()))


def json_text(*, min_size: int = 0, max_size: int = 4) -> st.SearchStrategy[str]:
    return st.lists(characters, min_size=min_size, max_size=max_size).map("".join)


def wire_line(message: Any) -> bytes:
    """A frame as a peer may write it: raw UTF-8 where it can be, else escaped ASCII."""
    try:
        return json.dumps(message, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return json.dumps(message).encode()


def as_json_reads_it(text: str) -> str:
    """`text` after a trip through JSON: an adjacent high and low surrogate become the one
    character they encode (a JSON string is UTF-16 code units, so the two cannot differ)."""
    decoded: str = json.loads(json.dumps(text))
    return decoded
