"""Show a list of changes: grouped text for people, a stable JSON document for machines.

JSON shape (keys sorted, changes in the text order):
    {"old": str, "new": str, "breaking": int, "compatible": int,
     "changes": [{"category": str, "subject": str, "change": str, "old": str|null,
                  "new": str|null, "breaking": bool, "breaks": ["agent"|"client", ...],
                  "why": str}, ...]}
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from .rules import CATEGORIES, Change


def summary(changes: Sequence[Change], old: str, new: str) -> str:
    if not changes:
        return f"no changes from {old} to {new}"
    breaking = sum(c.breaking for c in changes)
    return (
        f"{len(changes)} change(s) from {old} to {new}: "
        f"{breaking} breaking, {len(changes) - breaking} compatible"
    )


def _values(c: Change) -> str:
    if c.old is not None and c.new is not None:
        return f": {c.old} -> {c.new}"
    if c.old is not None or c.new is not None:
        return f": {c.old if c.old is not None else c.new}"
    return ""


def as_text(changes: Sequence[Change], old: str, new: str) -> str:
    lines: list[str] = []
    for category in CATEGORIES:
        group = [c for c in changes if c.category == category]
        if not group:
            continue
        lines.append(f"{category}:")
        for c in group:
            mark = f"BREAKING ({', '.join(c.breaks)})" if c.breaking else "compatible"
            lines.append(f"  {mark:<27} {c.change:<18} {c.subject}{_values(c)}  [{c.why}]")
    lines.append(summary(changes, old, new))
    return "\n".join(lines) + "\n"


def as_json(changes: Sequence[Change], old: str, new: str) -> str:
    breaking = sum(c.breaking for c in changes)
    doc = {
        "old": old,
        "new": new,
        "breaking": breaking,
        "compatible": len(changes) - breaking,
        "changes": [
            {
                "category": c.category,
                "subject": c.subject,
                "change": c.change,
                "old": c.old,
                "new": c.new,
                "breaking": c.breaking,
                "breaks": list(c.breaks),
                "why": c.why,
            }
            for c in changes
        ],
    }
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"
