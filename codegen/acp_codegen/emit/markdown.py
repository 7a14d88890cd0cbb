"""Markdown helpers for the generated protocol reference (`PROTOCOL.md`).

Everything the reference shows comes from the schema, so it is untrusted text: it must stay
data. Descriptions keep their inline code spans (the schema writes `messageId` that way) and
lose every other Markdown or HTML meaning; any text becomes one line, so it cannot start a
heading, a list or a table row, or end a table cell early.
"""

from __future__ import annotations

import re
import unicodedata

# ASCII punctuation that starts inline Markdown (emphasis, links, HTML, entities, tables,
# strikethrough, math) anywhere in a line; a backslash before ASCII punctuation is a literal.
_SPECIAL = frozenset("\\`*_[]<>|~&$")
# What starts a block (heading, quote, list, setext underline) when it opens a line.
_BLOCK_START = re.compile(r"^(?:[#>+=-]|\d{1,9}(?=[.)]))")
_BACKTICKS = re.compile(r"`+")
_WHITESPACE = re.compile(r"\s+")
ANCHOR_LIMIT = 60


# Printable ASCII holds no character `visible` escapes: most schema text is only that.
_PLAIN = re.compile(r"[ -~]*")
_HIDDEN = frozenset(("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))


def visible(text: str) -> str:
    """One line of text: whitespace runs become one space; control and format characters
    (NUL, escape sequences, bidi overrides, zero-width marks) are shown as `\\uXXXX`."""
    line = _WHITESPACE.sub(" ", text).strip()
    if _PLAIN.fullmatch(line):
        return line
    return "".join(map(_shown, line))


def _shown(char: str) -> str:
    if unicodedata.category(char) in _HIDDEN:
        return f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}"
    return char


def _escape_plain(text: str) -> str:
    return "".join(f"\\{c}" if c in _SPECIAL else c for c in text)


def code(text: str, *, cell: bool = False) -> str:
    """`text` as one inline code span, whatever backticks it holds. In a table `cell`, `|` is
    escaped (GitHub removes that backslash inside code in tables; elsewhere it would show)."""
    text = visible(text)
    if cell:
        text = text.replace("|", "\\|")
    if not text:
        return "` `"
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _code_spans(text: str) -> list[tuple[bool, str]]:
    """Split text into (is_code, part): a backtick run opens a code span that the next run of
    the same length closes (CommonMark's rule); an unclosed run is plain text."""
    parts: list[tuple[bool, str]] = []
    pos = 0
    plain_start = 0
    while (opening := _BACKTICKS.search(text, pos)) is not None:
        closing = next(
            (
                m
                for m in _BACKTICKS.finditer(text, opening.end())
                if len(m.group()) == len(opening.group())
            ),
            None,
        )
        if closing is None:
            pos = opening.end()
            continue
        if plain_start < opening.start():
            parts.append((False, text[plain_start : opening.start()]))
        parts.append((True, text[opening.end() : closing.start()]))
        pos = plain_start = closing.end()
    if plain_start < len(text):
        parts.append((False, text[plain_start:]))
    return parts


def prose(text: str | None, *, cell: bool = False) -> str:
    """A schema description as one line of Markdown: code spans kept, all else literal."""
    if not text:
        return ""
    out = []
    for is_code, part in _code_spans(visible(text)):
        if is_code and part.strip():
            out.append(code(part, cell=cell))
        else:
            out.append(_escape_plain(part))
    line = "".join(out)
    if (lead := _BLOCK_START.match(line)) is not None:
        end = lead.end()
        if line[:1].isdigit():  # `1.` / `1)` starts an ordered list: escape the punctuation
            return line[:end] + "\\" + line[end:]
        return "\\" + line
    return line


def slug(text: str) -> str:
    """Lower-case letters, digits and single hyphens; never empty."""
    cut = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:ANCHOR_LIMIT].strip("-")
    return cut or "x"


class Anchors:
    """Unique anchor ids, handed out in the order asked: a repeated slug gets `-2`, `-3`...

    The template asks in document order, so the same schema always gives the same ids."""

    def __init__(self) -> None:
        self._taken: set[str] = set()
        self._by_key: dict[tuple[str, str], str] = {}

    def get(self, prefix: str, name: str, key_extra: str = "") -> str:
        """The anchor of `name` (the same one every time it is asked for again)."""
        key = (prefix, f"{name}\0{key_extra}")
        if key not in self._by_key:
            base = f"{prefix}-{slug(name)}"
            anchor, n = base, 1
            while anchor in self._taken:
                n += 1
                anchor = f"{base}-{n}"
            self._taken.add(anchor)
            self._by_key[key] = anchor
        return self._by_key[key]
