"""datamodel-code-generator's models module rewritten in black's layout before black sees it.

black formats a module twice whenever its first pass changed the text (render.py's
`format_python`), and datamodel-code-generator writes every field on one line in single quotes,
so black's two passes over models.py were the largest step of a full generate. Written here in
the layout black gives the shapes that module is made of (fields `name: Annotated[T, Field(...)]
= default`, `TypeAliasType(...)` aliases, double-quoted strings, a blank line after a class
docstring), black's first pass changes nothing and it stops there.

black still formats the result: this only chooses where lines break, the way black breaks them,
and leaves any line it does not recognise as it is for black to lay out (which costs black's
second pass, never other bytes). tests/test_models_layout.py checks, on the canonical schema and
every upstream one, that black leaves this layout unchanged and that it is black's output for
datamodel-code-generator's own text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator

from .black_layout import LINE_LENGTH

_FIELD = re.compile(
    r"^(?P<indent> +)(?P<name>\w+): (?P<value>Annotated\[.*\])(?: = (?P<default>.+))?$"
)
_ALIAS = re.compile(r'^(?P<name>\w+) = (?P<value>TypeAliasType\(".*\))$')
_STRING = r""""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'"""
_PLAIN_DEFAULT = re.compile(rf"^(?:\w+|{_STRING}|-?\d+(?:\.\d+)?)$")
_ATOM = re.compile(rf"^(?:\w+=)?(?:\w+|{_STRING})$")
_OPEN = {"(": ")", "[": "]", "{": "}"}


def models_layout(source: str) -> str:
    """`source` with its recognised one-line statements in black's layout."""
    source = _double_quoted(source)
    lines = source.split("\n")
    inside, docstring_ends = _in_strings(source, lines)
    out: list[str] = []
    for number, line in enumerate(lines):
        if number in inside:
            out.append(line)
        else:
            out.append(_statement(line) if len(line) > LINE_LENGTH else line)
        if number in docstring_ends and number + 1 < len(lines) and lines[number + 1].strip():
            out.append("")  # black leaves one blank line after a class docstring
    return "\n".join(_after_imports(out)).rstrip("\n") + "\n"  # one newline at the end


def _in_strings(source: str, lines: list[str]) -> tuple[set[int], set[int]]:
    """The lines (0-based) that a multi-line string continues on, never rewritten here; and the
    last lines of class docstrings that open on a line of their own."""
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    inside: set[int] = set()
    ends: set[int] = set()
    for match in _TOKENS.finditer(source):
        text = match["skip"]
        if text is None or not text.startswith(('"""', "'''")) or "\n" not in text:
            continue
        first = bisect_right(starts, match.start()) - 1
        last = first + text.count("\n")
        inside.update(range(first + 1, last + 1))
        opening = lines[first]
        if opening.strip() == text[:3] and first > 0 and lines[first - 1].startswith("class "):
            ends.add(last)
    return inside, ends


def _after_imports(lines: list[str]) -> list[str]:
    """One blank line between the leading imports and a first statement that is not a class
    or def (black's rule); anything else at the top is left as it is."""
    last = None
    for number, line in enumerate(lines):
        if line.startswith(("from ", "import ")):
            if line.endswith(("(", "\\")):
                return lines  # an import over several lines: left to black
            last = number
        elif line.strip() and not line.startswith("#"):
            break
    if last is None:
        return lines
    following = next((i for i in range(last + 1, len(lines)) if lines[i].strip()), None)
    if following is None or lines[following].startswith(("class ", "def ", "@", "#")):
        return lines
    return [*lines[: last + 1], "", *lines[following:]]


# One left-to-right pass over the source, as a tokenizer reads it: docstrings, comments,
# double-quoted and prefixed strings are matched whole (so a quote inside them never starts a
# string); only plain single-quoted strings on one line are rewritten.
_TOKENS = re.compile(
    r'(?P<skip>"""[\s\S]*?"""' + r"|'''[\s\S]*?'''"
    r'|#[^\n]*|"(?:[^"\\\n]|\\.)*"'
    r"|[A-Za-z]+'(?:[^'\\\n]|\\.)*')"
    r"|'(?P<single>(?:[^'\\\n]|\\.)*)'"
)


def _double_quoted(source: str) -> str:
    """Single-quoted strings in double quotes where that needs no escape, as black writes them."""

    def swap(match: re.Match[str]) -> str:
        body = match["single"]
        if body is None or '"' in body or "\\'" in body:
            return match[0]  # black keeps single quotes where double ones would need escapes
        return f'"{body}"'

    return _TOKENS.sub(swap, source)


def _statement(line: str) -> str:
    if field := _FIELD.match(line):
        indent, default = field["indent"], field["default"]
        head = f"{indent}{field['name']}: "
        if default is None:
            return _split(head, field["value"], "", indent) or line
        if not _PLAIN_DEFAULT.match(default):
            return line
        before = f"{head}{field['value']} ="
        if len(before) + 2 <= LINE_LENGTH:  # the left side fits whole: the value in parentheses
            return f"{before} (\n{indent}    {default}\n{indent})"
        return _split(head, field["value"], f" = {default}", indent) or line
    if alias := _ALIAS.match(line):
        return _split(f"{alias['name']} = ", alias["value"], "", "") or line
    return line


def _split(head: str, value: str, tail: str, indent: str) -> str | None:
    """`head + value + tail` laid out as black splits it at `value`'s last bracket pair; None
    for a shape this does not know."""
    whole = head + value + tail
    if len(whole) <= LINE_LENGTH:
        return whole
    opening = _outer_opening(value)
    if opening is None:  # a name, a string or `key=` one of them: black cannot split it either
        return whole if _ATOM.match(value) else _union(head, value, tail)
    if len(head) + opening + 1 > LINE_LENGTH:
        return None
    first = f"{head}{value[: opening + 1]}"
    body, close = value[opening + 1 : -1], f"{indent}{value[-1]}{tail}"
    inner = indent + "    "
    if len(inner + body) <= LINE_LENGTH:
        return f"{first}\n{inner}{body}\n{close}"
    items = _items(body)
    if items is None:
        return None
    if len(items) == 1:  # one argument too long for a line: black leaves it so
        laid = _split(inner, items[0], "", inner)
        return None if laid is None else f"{first}\n{laid}\n{close}"
    parts = []
    for item in items:
        laid = _split(inner, item, ",", inner)
        if laid is None:
            return None
        parts.append(laid)
    return "\n".join([first, *parts, close])


def _union(head: str, value: str, tail: str) -> str | None:
    """A `|` union too long for its line inside brackets: one member a line, each after `| `."""
    members = _members(value)
    if members is None or head.strip():  # only where the union is a line of its own
        return None
    lines = [head + members[0], *(f"{head}| {member}" for member in members[1:])]
    lines[-1] += tail
    return None if any(len(line) > LINE_LENGTH for line in lines) else "\n".join(lines)


def _outer_opening(value: str) -> int | None:
    """Where the bracket pair that closes `value` opens, when `value` ends with one that follows
    a name (a call or a subscript)."""
    if not value or value[-1] not in ")]}":
        return None
    opened: list[int] = []
    last = None
    for index, char, depth in _scan(value):
        del depth
        if char in _OPEN:
            opened.append(index)
        elif char in ")]}":
            last = opened.pop() if opened else None
    if last is None or last == 0 or not (value[last - 1].isalnum() or value[last - 1] == "_"):
        return None
    return last


def _scan(text: str) -> Iterator[tuple[int, str, int]]:
    """Each character outside string literals, with its position and bracket depth."""
    depth = 0
    quote = ""
    escaped = False
    for index, char in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
            continue
        if char in "\"'":
            quote = char
            continue
        if char in ")]}":
            depth -= 1
        yield index, char, depth
        if char in _OPEN:
            depth += 1


def _items(body: str) -> list[str] | None:
    """`body` split at its top-level commas; None when anything else (a `|` union, a lambda, a
    comment) would decide black's split at that level."""
    items = _top_level(body, ",")
    if items is None or (len(items) == 1 and _members(body)):  # black would split at the `|`s
        return None
    return items


def _members(value: str) -> list[str] | None:
    """The members of a top-level `|` union; None when `value` is not one."""
    members = _top_level(value, "|")
    return None if members is None or len(members) < 2 else members


def _top_level(body: str, separator: str) -> list[str] | None:
    """`body` split at `separator` outside brackets and strings; None for anything that would
    make black split elsewhere (a comment, a lambda or slice, a comma when splitting at `|`)."""
    items: list[str] = []
    start = 0
    for index, char, depth in _scan(body):
        if depth != 0:
            continue
        if char == separator:
            items.append(body[start:index].strip())
            start = index + 1
        elif char in "#:,":
            return None
    items.append(body[start:].strip())
    return items
