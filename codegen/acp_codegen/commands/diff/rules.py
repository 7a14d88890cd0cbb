"""When a change breaks a peer built on the OLD schema: one rule per kind of change.

`writer` is the side that sends the type in some message (callers send params, the handling
side sends results; a type reached from both counts for both, and one no method reaches counts
as sent both ways), `reader` the side that receives it. The table is shown by `--help` and
copied in docs/diff.md (a test keeps the two in step).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Change:
    """One difference between OLD and NEW."""

    category: str  # one of CATEGORIES
    subject: str  # method name, type, `Type.field`, enum or union name, update tag
    change: str  # what happened, e.g. "added", "became-required" (see RULES)
    old: str | None  # the OLD value or description, when there is one
    new: str | None
    breaks: tuple[str, ...]  # sides ("agent", "client") built on OLD that this breaks
    why: str

    @property
    def breaking(self) -> bool:
        return bool(self.breaks)

    def sort_key(self) -> tuple[int, str, str, str, str]:
        return (
            CATEGORIES.index(self.category),
            self.subject,
            self.change,
            self.old or "",
            self.new or "",
        )


CATEGORIES = (
    "methods",
    "session-updates",
    "types",
    "fields",
    "enum-values",
    "union-tags",
    "merge-rules",
)

LEGEND = (
    "writer: the side that sends the type in some message (callers send params, the handling "
    "side sends results, both sides send what any answer may carry, such as the error object; "
    "a type no method reaches counts as sent both ways); reader: the side "
    "that receives it; caller: the side that sends a method's request or notification; "
    "open: the enum or union has a fallback for values outside its list."
)

# (category, change, who it breaks, why)
RULES: tuple[tuple[str, str, str, str], ...] = (
    ("methods", "added", "nobody", "a peer built on OLD never calls it"),
    ("methods", "removed", "caller", "the caller built on OLD still sends it"),
    ("methods", "side-changed", "both", "the other side now handles it"),
    ("methods", "kind-changed", "both", "request and notification are framed differently"),
    ("methods", "params-changed", "both", "another shape (a rename of the same shape: nobody)"),
    ("methods", "result-changed", "both", "another shape (a rename of the same shape: nobody)"),
    ("session-updates", "added", "reader if closed", "an OLD client rejects the unknown tag"),
    ("session-updates", "removed", "writer if closed", "an OLD agent still sends it"),
    ("types", "added", "nobody", "new names are not on the wire by themselves"),
    ("types", "removed", "nobody", "the places that used it report their own change"),
    ("fields", "added", "nobody", "optional: OLD peers omit and ignore it"),
    ("fields", "added", "reader if OLD forbids extra fields", "the OLD reader rejects it"),
    ("fields", "added-required", "writer", "the OLD writer does not send it"),
    ("fields", "removed", "reader if it was required", "the OLD reader expects it"),
    ("fields", "removed", "writer if NEW forbids extra fields", "the OLD writer still sends it"),
    ("fields", "became-required", "writer", "the OLD writer may omit it"),
    ("fields", "became-optional", "reader", "the OLD reader expects it"),
    ("fields", "became-nullable", "reader", "the OLD reader does not accept null"),
    ("fields", "no-longer-nullable", "writer", "the OLD writer may send null"),
    ("fields", "type-renamed", "nobody", "another name for the same values on the wire"),
    ("fields", "type-narrowed", "writer", "NEW accepts less: it may reject what OLD sends"),
    (
        "fields",
        "type-widened",
        "reader",
        "NEW accepts more: the OLD reader may get what it rejects",
    ),
    ("fields", "type-changed", "writer and reader", "another type"),
    ("enum-values", "added", "reader if closed", "the OLD reader rejects the value"),
    ("enum-values", "removed", "writer if closed", "the OLD writer may still send it"),
    ("enum-values", "became-open", "reader", "NEW writers may send values outside the list"),
    ("enum-values", "became-closed", "writer", "the OLD writer may send custom values"),
    ("union-tags", "added", "reader if closed", "the OLD reader rejects the tag"),
    ("union-tags", "removed", "writer if closed", "the OLD writer may still send it"),
    ("union-tags", "became-open", "reader", "NEW writers may send tags outside the list"),
    ("union-tags", "became-closed", "writer", "the OLD writer may send custom tags"),
    ("union-tags", "tag-renamed", "writer and reader", "the tag property has another name"),
    ("merge-rules", "added", "nobody", "an OLD client keeps the update as unknown"),
    ("merge-rules", "removed", "nobody", "NEW says nothing about folding it"),
    ("merge-rules", "changed", "reader", "an OLD client folds the update differently"),
)


def rules_table() -> str:
    """The rules as a plain-text table (for `--help`) or a Markdown one (docs/diff.md)."""
    rows = [("category", "change", "breaks (built on OLD)", "because"), *RULES]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    return "\n".join(
        "  " + "  ".join(cell.ljust(w) for cell, w in zip(r[:3], widths, strict=True)) + "  " + r[3]
        for r in rows
    )


def markdown_table() -> str:
    lines = ["| category | change | breaks (built on OLD) | because |", "|---|---|---|---|"]
    lines += [f"| {c} | `{ch}` | {who} | {why} |" for c, ch, who, why in RULES]
    return "\n".join(lines)
