"""A tool call's `diff` content as something a person can read before approving it: each file
with its hunks of added, removed and context lines, long diffs folded. Pure: no I/O, no
terminal, no HTML; chat draws the rows, the inspector builds its page from the structure.

Both versions' shapes are read, as they come on the wire (the item is plain JSON):

- v1: `{"type": "diff", "path", "oldText", "newText"}`, the whole text before and after
  (`oldText` absent or null: a new file, every line added); compared here with `difflib`.
- v2: `{"type": "diff", "changes": [{"operation", "path", "oldPath"?}], "patch"?: {"format",
  "text"}}`; the patch (a git or plain unified diff) is split into files and hunks, each
  section given to the change whose path it names. A change the patch leaves out (or a diff
  without a patch) is shown as its operation and path alone.

Every piece of the agent's text in the result (paths, operations, line text, hunk headers) has
been made visible (`shown.visible_line` for names, `shown.visible` for a line's text, which
keeps tabs and can hold no newline): a hostile agent's escapes and direction controls arrive
as inert `\\e[...`, `\\u202e`. Callers may show any field as it is.

API (kept stable: `commands/chat` and `commands/inspect` use it):

- `diff_view(item, *, max_lines=MAX_LINES, context=CONTEXT) -> DiffView | None`: None when
  `item` is not a diff item; `max_lines=None` folds nothing.
- `DiffView.files`: `FileDiff(path, operation, old_path, hunks, added, removed, hidden)`;
  `Hunk(header, lines)`; `DiffLine(kind, text)` with `kind` one of `ADDED`, `REMOVED`,
  `CONTEXT`, `NOTE` (`\\ No newline at end of file`). `added`/`removed` count the whole file,
  `hidden` the lines folded away; `DiffView.hidden` is their sum.
- `diff_rows(view) -> list[DiffRow]`: the view as lines to print, each `DiffRow(kind, text)`
  (kinds `FILE`, `HUNK`, `FOLDED` and the line kinds; text already marked `+ `, `- `, `  `).
- `diff_text(view) -> str`: those rows' text, one per line.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Final, NamedTuple

from .shown import visible, visible_line

MAX_LINES: Final = 40  # rows of hunks (headers, lines) shown before the rest is folded
CONTEXT: Final = 3  # unchanged lines around each change (v1 texts, compared here)
MAX_LINE_CHARS: Final = 300  # one line's text beyond this is cut (minified code, data)
# Texts longer than this (in lines) are not compared line by line (difflib's time grows with
# the product of both lengths): shown as all removed, then all added.
MAX_COMPARED_LINES: Final = 5000

ADDED: Final = "added"
REMOVED: Final = "removed"
CONTEXT_LINE: Final = "context"
NOTE: Final = "note"
FILE: Final = "file"
HUNK: Final = "hunk"
FOLDED: Final = "folded"

_MARKS: Final = {ADDED: "+ ", REMOVED: "- ", CONTEXT_LINE: "  ", NOTE: "  "}
_PATCH_MARKS: Final = {"+": ADDED, "-": REMOVED, " ": CONTEXT_LINE, "": CONTEXT_LINE}
_HUNK_HEADER: Final = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")


class DiffLine(NamedTuple):
    kind: str  # ADDED, REMOVED, CONTEXT_LINE or NOTE
    text: str  # visible, without its mark


@dataclass(frozen=True)
class Hunk:
    header: str  # `@@ -1,3 +1,4 @@` and any section name after it, visible
    lines: tuple[DiffLine, ...]


@dataclass(frozen=True)
class FileDiff:
    path: str  # visible_line
    operation: str  # add, modify, delete, move, copy, or the agent's own word (visible_line)
    old_path: str | None = None  # a move's or copy's source (visible_line)
    hunks: tuple[Hunk, ...] = ()
    added: int = 0  # lines added in the whole file, folded ones included
    removed: int = 0
    hidden: int = 0  # lines of this file's hunks folded away


@dataclass(frozen=True)
class DiffView:
    files: tuple[FileDiff, ...] = field(default_factory=tuple)

    @property
    def hidden(self) -> int:
        return sum(file.hidden for file in self.files)


class DiffRow(NamedTuple):
    kind: str  # FILE, HUNK, FOLDED, or a DiffLine kind
    text: str


def diff_view(
    item: object, *, max_lines: int | None = MAX_LINES, context: int = CONTEXT
) -> DiffView | None:
    """`item` (a tool call content item, as JSON) as a `DiffView`; None if it is no diff."""
    if not isinstance(item, Mapping) or item.get("type") != "diff":
        return None
    if "changes" in item or "patch" in item:
        files = _v2_files(item.get("changes"), item.get("patch"))
    else:
        files = _v1_files(item, context)
    return DiffView(tuple(_folded(files, max_lines)))


def diff_rows(view: DiffView) -> list[DiffRow]:
    rows: list[DiffRow] = []
    for file in view.files:
        rows.append(DiffRow(FILE, _file_heading(file)))
        for hunk in file.hunks:
            rows.append(DiffRow(HUNK, hunk.header))
            rows += [DiffRow(line.kind, _MARKS[line.kind] + line.text) for line in hunk.lines]
        if file.hidden:
            rows.append(DiffRow(FOLDED, f"... {file.hidden} more line{_s(file.hidden)}"))
    return rows


def diff_text(view: DiffView) -> str:
    return "\n".join(row.text for row in diff_rows(view))


def _s(count: int) -> str:
    return "" if count == 1 else "s"


def _file_heading(file: FileDiff) -> str:
    source = f"{file.old_path} -> " if file.old_path else ""
    counts = f" +{file.added} -{file.removed}" if file.hunks or file.hidden else ""
    return f"diff: {source}{file.path} ({file.operation}{counts})"


def _text_line(text: str) -> str:
    """One line of a file: a CR before its end dropped (a Windows line end), cut if long."""
    text = text.removesuffix("\r")
    if len(text) > MAX_LINE_CHARS:
        text = f"{text[:MAX_LINE_CHARS]} ... ({len(text) - MAX_LINE_CHARS} more characters)"
    return visible(text)


def _name(value: object) -> str:
    return visible_line(value if isinstance(value, str) else str(value))


# -- v1: whole texts, compared here ----------------------------------------------------------


def _split(text: str) -> list[str]:
    """Lines on `\\n` alone (`splitlines` also splits on form feeds and separators, which a
    file holds as text)."""
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def _range(start: int, length: int) -> str:
    # As unified diffs number them: an empty range names the line before it.
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


def _v1_files(item: Mapping[object, object], context: int) -> list[FileDiff]:
    old, new = item.get("oldText"), item.get("newText")
    old_lines = _split(old) if isinstance(old, str) else []
    new_lines = _split(new) if isinstance(new, str) else []
    hunks: list[Hunk] = []
    for group in _grouped(old_lines, new_lines, context):
        lines: list[DiffLine] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [DiffLine(CONTEXT_LINE, _text_line(text)) for text in old_lines[i1:i2]]
                continue
            lines += [DiffLine(REMOVED, _text_line(text)) for text in old_lines[i1:i2]]
            lines += [DiffLine(ADDED, _text_line(text)) for text in new_lines[j1:j2]]
        first, last = group[0], group[-1]
        old_range = _range(first[1], last[2] - first[1])
        new_range = _range(first[3], last[4] - first[3])
        hunks.append(Hunk(f"@@ -{old_range} +{new_range} @@", tuple(lines)))
    operation = "add" if old is None else "modify"
    return [_counted(FileDiff(_name(item.get("path")), operation, hunks=tuple(hunks)))]


Opcode = tuple[str, int, int, int, int]


def _grouped(old: list[str], new: list[str], context: int) -> Iterator[list[Opcode]]:
    if len(old) > MAX_COMPARED_LINES or len(new) > MAX_COMPARED_LINES:
        if old != new:
            yield [("replace", 0, len(old), 0, len(new))]
        return
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    yield from matcher.get_grouped_opcodes(context)


# -- v2: changes and a patch -----------------------------------------------------------------


@dataclass
class _Section:
    """One file's part of a patch, as read so far."""

    old_path: str | None = None
    new_path: str | None = None
    operation: str = "modify"
    hunks: list[Hunk] = field(default_factory=list)


def _patch_path(text: str) -> str | None:
    path = text.split("\t", 1)[0].strip()
    if path == "/dev/null" or not path:
        return None
    return path[2:] if path.startswith(("a/", "b/")) else path


def _sections(text: str) -> list[_Section]:
    sections: list[_Section] = []
    lines: list[DiffLine] = []
    header = ""
    old_left = new_left = 0  # lines the open hunk still holds

    def close_hunk() -> None:
        nonlocal lines
        if header and sections:
            sections[-1].hunks.append(Hunk(header, tuple(lines)))
        lines = []

    for raw in _split(text):
        line = raw.removesuffix("\r")
        if header and (old_left > 0 or new_left > 0) and line[:1] in _PATCH_MARKS:
            kind = _PATCH_MARKS[line[:1]]
            old_left -= kind != ADDED
            new_left -= kind != REMOVED
            lines.append(DiffLine(kind, _text_line(line[1:])))
            continue
        if header and line.startswith("\\"):
            lines.append(DiffLine(NOTE, _text_line(line)))
            continue
        match = _HUNK_HEADER.match(line)
        if match and sections:
            close_hunk()
            old_left = 1 if match[2] is None else int(match[2])
            new_left = 1 if match[4] is None else int(match[4])
            header = visible_line(line)
            continue
        close_hunk()
        header = ""
        if line.startswith("diff --git ") or (
            line.startswith("--- ") and (not sections or sections[-1].hunks)
        ):
            sections.append(_Section())
        if not sections:
            continue
        section = sections[-1]
        if line.startswith("--- "):
            section.old_path = _patch_path(line[4:])
            if section.old_path is None:
                section.operation = "add"
        elif line.startswith("+++ "):
            section.new_path = _patch_path(line[4:])
            if section.new_path is None:
                section.operation = "delete"
        elif line.startswith("new file mode"):
            section.operation = "add"
        elif line.startswith("deleted file mode"):
            section.operation = "delete"
        elif line.startswith(("rename from ", "copy from ")):
            section.old_path = line.split(" ", 2)[2]
            section.operation = "move" if line.startswith("rename") else "copy"
        elif line.startswith(("rename to ", "copy to ")):
            section.new_path = line.split(" ", 2)[2]
    close_hunk()
    return sections


def _names(path: str, section: _Section) -> bool:
    """Whether the patch section is about `path` (an absolute path; a patch's are relative)."""
    for named in (section.new_path, section.old_path):
        if named and (path == named or path.endswith("/" + named.lstrip("/"))):
            return True
    return False


def _v2_files(changes: object, patch: object) -> list[FileDiff]:
    text = patch.get("text") if isinstance(patch, Mapping) else None
    sections = _sections(text) if isinstance(text, str) else []
    files: list[FileDiff] = []
    for change in changes if isinstance(changes, list) else []:
        if not isinstance(change, Mapping):
            continue
        path = change.get("path")
        path = path if isinstance(path, str) else ""
        found = next((s for s in sections if _names(path, s)), None)
        if found is not None:
            sections.remove(found)
        old_path = change.get("oldPath")
        files.append(
            _counted(
                FileDiff(
                    _name(path),
                    _name(change.get("operation") or "modify"),
                    _name(old_path) if isinstance(old_path, str) else None,
                    tuple(found.hunks) if found is not None else (),
                )
            )
        )
    for section in sections:  # what the patch says beyond the changes listed
        path = section.new_path or section.old_path or ""
        moved = section.operation in ("move", "copy")
        files.append(
            _counted(
                FileDiff(
                    _name(path),
                    section.operation,
                    _name(section.old_path) if moved and section.old_path else None,
                    tuple(section.hunks),
                )
            )
        )
    return files


# -- counting and folding ---------------------------------------------------------------------


def _counted(file: FileDiff) -> FileDiff:
    kinds = [line.kind for hunk in file.hunks for line in hunk.lines]
    return replace(file, added=kinds.count(ADDED), removed=kinds.count(REMOVED))


def _folded(files: Iterable[FileDiff], max_lines: int | None) -> Iterator[FileDiff]:
    """`files` with hunks cut once `max_lines` rows of hunks (headers and lines, over all
    files) were shown."""
    left = max_lines
    for file in files:
        if left is None:
            yield file
            continue
        kept: list[Hunk] = []
        hidden = 0
        for hunk in file.hunks:
            # A hunk costs its header too; begun only if a line of it fits after the header.
            shown = hunk.lines[: left - 1] if left >= 2 else ()
            hidden += len(hunk.lines) - len(shown)
            if shown:
                left -= 1 + len(shown)
                kept.append(Hunk(hunk.header, shown))
        yield replace(file, hunks=tuple(kept), hidden=hidden)
