"""A tool call's `diff` content as the page draws it: the shared model (model/diff_view.py:
files, hunks, added/removed/context lines, v1 and v2, every piece of agent text made visible)
as JSON, each line given its numbers in the old and new file from its hunk's header. The page
folds long hunks itself; this side only bounds what it sends (MAX_DIFF_LINES)."""

from __future__ import annotations

import re
from typing import Any, Final

from ...model.diff_view import ADDED, CONTEXT_LINE, REMOVED, FileDiff, Hunk, diff_view

MAX_DIFF_LINES: Final = 5000  # rows of one diff sent to the page; the rest are counted
_HUNK: Final = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_KINDS: Final = {ADDED: "add", REMOVED: "del", CONTEXT_LINE: "ctx"}  # else "note"


def page_diff(item: Any) -> dict[str, Any]:
    """`{"files": [{"operation", "path", "oldPath", "added", "removed", "hidden", "hunks":
    [{"header", "lines": [[kind, old number, new number, text]]}]}]}`; kind `add`, `del`,
    `ctx` or `note` (`\\ No newline at end of file`), a number None where the side has none."""
    view = diff_view(item, max_lines=MAX_DIFF_LINES)
    return {"files": [_file(file) for file in view.files] if view is not None else []}


def _file(file: FileDiff) -> dict[str, Any]:
    return {
        "operation": file.operation,
        "path": file.path,
        "oldPath": file.old_path,
        "added": file.added,
        "removed": file.removed,
        "hidden": file.hidden,
        "hunks": [_hunk(hunk) for hunk in file.hunks],
    }


def _hunk(hunk: Hunk) -> dict[str, Any]:
    match = _HUNK.match(hunk.header)
    old, new = (int(match[1]), int(match[2])) if match else (0, 0)
    lines: list[list[Any]] = []
    for line in hunk.lines:
        kind = _KINDS.get(line.kind, "note")
        has_old, has_new = kind in ("del", "ctx"), kind in ("add", "ctx")
        lines.append(
            [
                kind,
                old if has_old and match else None,
                new if has_new and match else None,
                line.text,
            ]
        )
        old += has_old
        new += has_new
    return {"header": hunk.header, "lines": lines}
