"""Field changes: added, removed, required or optional, nullable, another type."""

from __future__ import annotations

from collections.abc import Iterator

from .facts import Facts, resolve, split_alternatives
from .flow import NOBODY, Flow, owner_type, sides
from .rules import Change


def field_changes(old: Facts, new: Facts) -> Iterator[Change]:
    for owner in sorted(old.fields.keys() & new.fields.keys()):
        a, b = old.fields[owner], new.fields[owner]
        flow = Flow(old, new, owner_type(owner))
        for prop in sorted(a.keys() | b.keys()):
            subject = f"{owner}.{prop}"
            x, y = a.get(prop), b.get(prop)
            if x is None and y is not None:
                if y.required:
                    yield Change(
                        "fields",
                        subject,
                        "added-required",
                        None,
                        y.signature,
                        flow.writer(),
                        "the OLD writer does not send it",
                    )
                elif owner_type(owner) in old.closed_types:
                    yield Change(
                        "fields",
                        subject,
                        "added",
                        None,
                        y.signature,
                        flow.reader(),
                        "the OLD reader rejects unknown fields",
                    )
                else:
                    yield Change(
                        "fields",
                        subject,
                        "added",
                        None,
                        y.signature,
                        NOBODY,
                        "optional: OLD peers omit and ignore it",
                    )
            elif y is None and x is not None:
                if x.required:
                    yield Change(
                        "fields",
                        subject,
                        "removed",
                        x.signature,
                        None,
                        flow.reader(),
                        "the OLD reader expects it",
                    )
                elif owner_type(owner) in new.closed_types:
                    yield Change(
                        "fields",
                        subject,
                        "removed",
                        x.signature,
                        None,
                        flow.writer(),
                        "the NEW reader rejects it from an OLD writer",
                    )
                else:
                    yield Change(
                        "fields",
                        subject,
                        "removed",
                        x.signature,
                        None,
                        NOBODY,
                        "it was optional: OLD readers cope without it",
                    )
            elif x is not None and y is not None:
                yield from _field_changed(
                    subject,
                    x.required,
                    y.required,
                    x.signature,
                    y.signature,
                    flow,
                    (_wire(old, x.signature), _wire(new, y.signature)),
                )


def _wire(facts: Facts, sig: str) -> set[str]:
    """What a field accepts on the wire: its alternatives, or just `any` when one of them is
    open to every value (null included)."""
    found = set(split_alternatives(resolve(sig, lambda n: facts.wire.get(n, n))))
    return {"any"} if "any" in found else found


def _field_changed(
    subject: str,
    was_required: bool,
    is_required: bool,
    a: str,
    b: str,
    flow: Flow,
    wire: tuple[set[str], set[str]],
) -> Iterator[Change]:
    if is_required and not was_required:
        yield Change(
            "fields",
            subject,
            "became-required",
            "optional",
            "required",
            flow.writer(),
            "the OLD writer may omit it",
        )
    if was_required and not is_required:
        yield Change(
            "fields",
            subject,
            "became-optional",
            "required",
            "optional",
            flow.reader(),
            "the OLD reader expects it",
        )
    if a == b:
        return
    x, y = wire
    kind, breaks, why = "type-changed", sides(flow.writers | flow.readers), "another type"
    if x == y:
        kind, breaks, why = "type-renamed", NOBODY, "same values on the wire"
    elif x == {"any"} or y < x:  # NEW accepts less
        kind, breaks, why = (
            ("no-longer-nullable", flow.writer(), "the OLD writer may send null")
            if x - y == {"null"}
            else ("type-narrowed", flow.writer(), "the OLD writer may send what NEW rejects")
        )
    elif y == {"any"} or x < y:  # NEW accepts more
        kind, breaks, why = (
            ("became-nullable", flow.reader(), "the OLD reader does not accept null")
            if y - x == {"null"}
            else ("type-widened", flow.reader(), "the OLD reader may get what it rejects")
        )
    yield Change("fields", subject, kind, a, b, breaks, why)
