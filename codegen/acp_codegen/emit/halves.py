"""Format a models module as two halves, one in a forked child and one here.

black builds a module's output statement by statement: each logical line is split on its own,
and the blank lines before it are the only thing that depends on the lines before it (black's
EmptyLineTracker). Before a top-level class that follows another class's body, with only blank
lines between them and no decorator, comment, function or `fmt:` directive involved, black
always writes exactly two blank lines, and the tracker's state after that class line is the
same whether or not anything came before it. So at such a seam, formatting the two halves apart
and joining them with two blank lines gives black's bytes for the whole; that holds for black's
second pass too, since its first pass keeps the seam as it is. `seam` finds one; anything else
is formatted whole.
"""

from __future__ import annotations

import ast

_BODY = (ast.AnnAssign, ast.Assign, ast.Expr, ast.Pass)


def seam(source: str, share: float) -> int | None:
    """The offset of a top-level class line where `source` can be cut, nearest `share` of its
    length; None when there is none (or anything makes the argument above doubtful)."""
    if "fmt:" in source or "\r" in source:
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None  # black will say what is wrong, formatting the whole
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    cuts = [
        starts[node.lineno - 1]
        for before, node in zip(tree.body, tree.body[1:], strict=False)
        if _plain_class(before)
        and _plain_class(node)
        and lines[node.lineno - 1].startswith("class ")
        and all(not lines[i].strip() for i in range(_end(before), node.lineno - 1))
    ]
    if not cuts:
        return None
    return min(cuts, key=lambda cut: abs(cut - share * len(source)))


def _plain_class(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.ClassDef)
        and not node.decorator_list
        and all(isinstance(statement, _BODY) for statement in node.body)
    )


def _end(node: ast.stmt) -> int:
    assert node.end_lineno is not None
    return node.end_lineno


def halves(source: str, cut: int) -> tuple[str, str]:
    """`source` cut at `cut`, the first half ending as a module does: black drops the blank
    lines before a module's end, and leaving them would cost it a second pass over that half."""
    return source[:cut].rstrip("\n") + "\n", source[cut:]


def joined(first: str, second: str) -> str:
    """The formatted halves as black writes the whole: two blank lines at the seam."""
    return first + "\n\n" + second
