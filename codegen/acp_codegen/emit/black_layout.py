"""Literals and long lines written the way black would write them.

black formats a module twice whenever its first pass changed the text, so a rendered module that
is already black's layout costs one pass instead of two. These helpers cover what our templates
emit; black still formats every module, so a layout they get wrong costs time, never bytes.
"""

from __future__ import annotations

LINE_LENGTH = 100  # render.py's black mode


def py_literal(value: object) -> str:
    """`repr`, but strings in double quotes when that needs no escape (inside tuples and lists
    too): black rewrites them so anyway."""
    if isinstance(value, tuple):
        items = [py_literal(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(py_literal(v) for v in value) + "]"
    text = repr(value)
    if isinstance(value, str) and text.startswith("'") and '"' not in text:
        return f'"{text[1:-1]}"'
    return text


def from_import(indent: str, module: str, names: list[str]) -> str:
    """`from module import names` at `indent`: one line when it fits, else one name a line."""
    line = f"{indent}from {module} import {', '.join(names)}"
    if len(line) <= LINE_LENGTH:
        return line
    body = "".join(f"{indent}    {name},\n" for name in names)
    return f"{indent}from {module} import (\n{body}{indent})"


def union_alias(head: str, value: str) -> str:
    """`head = value` for a top-level union `A | B | ...`: one line, else the union on one line in
    parentheses, else one member a line."""
    line = f"{head} = {value}"
    if len(line) <= LINE_LENGTH:
        return line
    if len(f"    {value}") <= LINE_LENGTH:
        return f"{head} = (\n    {value}\n)"
    return f"{head} = (\n    " + "\n    | ".join(_members(value)) + "\n)"


def _members(union: str) -> list[str]:
    """The `|` operands of a type expression, split outside brackets only."""
    members: list[str] = []
    depth = start = 0
    for i, char in enumerate(union):
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
        elif char == "|" and depth == 0:
            members.append(union[start:i].strip())
            start = i + 1
    members.append(union[start:].strip())
    return members


def call(indent: str, head: str, args: list[str], tail: str = "", brackets: str = "()") -> str:
    """`head(args)tail` at `indent` (a call, a `def` with `tail` its return annotation, or with
    `brackets="{}"` a dict display): one line when it fits, else the arguments on one line of
    their own (not for a dict display of several items: black puts those one a line), else one
    a line."""
    opening, closing = brackets[0], brackets[1]
    line = f"{indent}{head}{opening}{', '.join(args)}{closing}{tail}"
    if len(line) <= LINE_LENGTH:
        return line
    body = f"{indent}    {', '.join(args)}"
    if len(body) <= LINE_LENGTH and not (opening == "{" and len(args) > 1):
        return f"{indent}{head}{opening}\n{body}\n{indent}{closing}{tail}"
    lines = "".join(f"{indent}    {arg},\n" for arg in args)
    return f"{indent}{head}{opening}\n{lines}{indent}{closing}{tail}"
