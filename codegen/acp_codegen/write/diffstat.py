"""`--stat`: a summary of a diff like `git diff --stat`, one line per file and a total."""

from __future__ import annotations

BAR_WIDTH = 40  # the longest +/- bar; longer ones are scaled down, as git does


def counts(lines: list[str]) -> tuple[int, int]:
    """Lines added and removed in one file's unified diff (headers aside)."""
    added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    return added, removed


def stat(diffs: list[tuple[str, list[str]]], states: dict[str, str] | None = None) -> str:
    """` path (state) | N +++--` per file, then the totals. `states` marks some paths, for
    example "missing" or "extra"."""
    if not diffs:
        return ""
    marks = states or {}
    rows = []
    for shown, lines in diffs:
        added, removed = counts(lines)
        name = f"{shown} ({marks[shown]})" if shown in marks else shown
        rows.append((name, added, removed))
    widest = max(added + removed for _, added, removed in rows)
    scale = min(1.0, BAR_WIDTH / widest) if widest else 1.0
    name_width = max(len(name) for name, _, _ in rows)
    count_width = len(str(widest))
    out = []
    for name, added, removed in rows:
        plus, minus = _bar(added, scale), _bar(removed, scale)
        total = str(added + removed).rjust(count_width)
        out.append(f" {name.ljust(name_width)} | {total} {'+' * plus}{'-' * minus}".rstrip())
    added_all = sum(row[1] for row in rows)
    removed_all = sum(row[2] for row in rows)
    out.append(
        f" {len(rows)} file(s) changed, {added_all} insertion(s)(+), {removed_all} deletion(s)(-)"
    )
    return "\n".join(out) + "\n"


def _bar(count: int, scale: float) -> int:
    """At least one mark for any change, so a small change stays visible next to a large one."""
    return max(1, round(count * scale)) if count else 0
