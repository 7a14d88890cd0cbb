"""Enum values, union tags and session-update variants added or removed, open or closed."""

from __future__ import annotations

from collections.abc import Iterator

from .facts import Facts, Values
from .flow import NOBODY, Flow, owner_type, sides
from .rules import Change


def _open_closed(
    category: str, subject: str, a: Values, b: Values, flow: Flow, noun: str
) -> Iterator[Change]:
    for value in sorted(b.values - a.values):
        yield Change(
            category,
            subject,
            "added",
            None,
            value,
            NOBODY if a.open else flow.reader(),
            (
                f"open: an OLD reader keeps an unknown {noun}"
                if a.open
                else f"closed: the OLD reader rejects the {noun}"
            ),
        )
    for value in sorted(a.values - b.values):
        yield Change(
            category,
            subject,
            "removed",
            value,
            None,
            NOBODY if b.open else flow.writer(),
            (
                f"open: a NEW reader keeps it as an unknown {noun}"
                if b.open
                else "closed: the OLD writer may still send it"
            ),
        )
    if a.open and not b.open:
        yield Change(
            category,
            subject,
            "became-closed",
            "open",
            "closed",
            flow.writer(),
            f"the OLD writer may send custom {noun}s",
        )
    if b.open and not a.open:
        yield Change(
            category,
            subject,
            "became-open",
            "closed",
            "open",
            flow.reader(),
            f"NEW writers may send {noun}s outside the list",
        )


def update_variant_changes(old: Facts, new: Facts) -> Iterator[Change]:
    if old.update_union is None or new.update_union is None:
        return
    a, b = old.unions.get(old.update_union), new.unions.get(new.update_union)
    if a is None or b is None:
        return
    flow = Flow(old, new, new.update_union)
    for c in _open_closed("session-updates", new.update_union, a[1], b[1], flow, "update"):
        if c.change in ("added", "removed"):  # one entry per tag: the tag is the subject
            c = Change(c.category, c.new or c.old or "", c.change, None, None, c.breaks, c.why)
        yield c


def enum_changes(old: Facts, new: Facts) -> Iterator[Change]:
    for name in sorted(old.enums.keys() & new.enums.keys()):
        flow = Flow(old, new, owner_type(name.split(".", 1)[0]))
        yield from _open_closed(
            "enum-values", name, old.enums[name], new.enums[name], flow, "value"
        )


def union_changes(old: Facts, new: Facts) -> Iterator[Change]:
    for name in sorted(old.unions.keys() & new.unions.keys()):
        if name in (old.update_union, new.update_union):
            continue  # reported as session-updates
        (tag_a, a), (tag_b, b) = old.unions[name], new.unions[name]
        flow = Flow(old, new, name)
        if tag_a != tag_b:
            yield Change(
                "union-tags",
                name,
                "tag-renamed",
                tag_a,
                tag_b,
                sides(flow.writers | flow.readers),
                "the tag property is renamed",
            )
            continue
        yield from _open_closed("union-tags", name, a, b, flow, "tag")
