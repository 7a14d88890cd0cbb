"""A tool call's `diff` content as the page draws it: each file changed (operation, paths) and
the patch's hunks, each line marked added, removed or kept with its line numbers. v2 carries
a git patch text; a v1 diff (whole texts before and after) is diffed here. The page folds
long hunks; this side only bounds what it sends (MAX_DIFF_LINES)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

MAX_DIFF_LINES: Final = 5000  # lines of one diff sent to the page; the rest are counted
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$")
_MARKS: Final = {"+": "add", "-": "del", " ": "ctx"}


def diff_view(item: Mapping[str, Any]) -> dict[str, Any]:
    """`{"files": [...], "hunks": [...], "omitted": N}` for a v2 `diff` (`changes`, `patch`)
    or a v1 one (`path`, `oldText`, `newText`)."""
    if isinstance(item.get("newText"), str) and isinstance(item.get("path"), str):
        return _v1(str(item["path"]), item.get("oldText"), str(item["newText"]))
    files = [_file(change) for change in item.get("changes") or [] if isinstance(change, dict)]
    patch = item.get("patch")
    text = patch.get("text") if isinstance(patch, dict) else None
    view = parse_patch(text.splitlines() if isinstance(text, str) else [])
    view["files"] = files
    return view


def _file(change: Mapping[str, Any]) -> dict[str, Any]:
    old_path = change.get("oldPath")
    return {
        "operation": str(change.get("operation") or "change"),
        "path": str(change.get("path") or ""),
        "oldPath": old_path if isinstance(old_path, str) else None,
    }


def _v1(path: str, old: Any, new: str) -> dict[str, Any]:
    before = old if isinstance(old, str) else ""
    lines = difflib.unified_diff(
        before.splitlines(), new.splitlines(), f"a{path}", f"b{path}", lineterm=""
    )
    view = parse_patch(lines)
    view["files"] = [
        {"operation": "modify" if isinstance(old, str) else "add", "path": path, "oldPath": None}
    ]
    return view


def _unprefixed(name: str) -> str:
    """A patch's `b/src/x.py` as `/src/x.py`: the side's letter off, the path kept whole (a
    v1 diff's absolute path is written `b/home/...`)."""
    return name[1:] if name.startswith("b/") else name


def parse_patch(lines: Iterable[str]) -> dict[str, Any]:
    """The hunks of a unified or git patch: `{"file", "header", "lines": [[mark, old, new,
    text]]}` with mark `add`, `del` or `ctx` and the line's number on each side (None where
    it has none). Lines outside hunks (headers, `\\ No newline`) are not drawn."""
    hunks: list[dict[str, Any]] = []
    current: list[list[Any]] | None = None
    path, old_no, new_no, kept = "", 0, 0, 0
    omitted = 0
    for line in lines:
        if line.startswith("diff --git "):
            current = None
            path = "/" + line.rsplit(" b/", 1)[-1] if " b/" in line else line[11:]
        elif current is None and line.startswith("+++ ") and line[4:].strip() != "/dev/null":
            path = _unprefixed(line[4:].strip())
        elif match := _HUNK.match(line):
            old_no, new_no = int(match[1]), int(match[2])
            current = []
            header = line[: line.index("@@", 2) + 2] + match[3]
            hunks.append({"file": path, "header": header, "lines": current})
        elif current is not None and line[:1] in _MARKS:
            if kept >= MAX_DIFF_LINES:
                omitted += 1
                continue
            mark = _MARKS[line[:1]]
            current.append(
                [
                    mark,
                    None if mark == "add" else old_no,
                    None if mark == "del" else new_no,
                    line[1:],
                ]
            )
            old_no += mark != "add"
            new_no += mark != "del"
            kept += 1
    return {"hunks": hunks, "omitted": omitted}
