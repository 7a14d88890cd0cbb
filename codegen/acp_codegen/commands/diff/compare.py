"""Compare the facts of two schemas into a sorted list of changes, each judged by RULES."""

from __future__ import annotations

from collections.abc import Iterator

from ...model.ir import MergeRule, Method
from .facts import SIDES, Facts
from .fields import field_changes
from .flow import BOTH, NOBODY, Flow, sides
from .rules import Change
from .values import enum_changes, union_changes, update_variant_changes


def compare(old: Facts, new: Facts) -> list[Change]:
    """Every change from OLD to NEW, in a stable order."""
    found: list[Change] = []
    parts = (
        _methods,
        update_variant_changes,
        _types,
        field_changes,
        enum_changes,
        union_changes,
        _merge_rules,
    )
    for part in parts:
        found += part(old, new)
    return sorted(set(found), key=Change.sort_key)


def _describe(m: Method) -> str:
    types = m.params + (f" -> {m.result}" if m.result else "")
    return f"{m.side} {m.kind}: {types}"


def _callers(m: Method) -> tuple[str, ...]:
    return sides(set(SIDES) - {m.side}) or BOTH


def _methods(old: Facts, new: Facts) -> Iterator[Change]:
    for name in sorted(old.methods.keys() | new.methods.keys()):
        before, after = old.methods.get(name, ()), new.methods.get(name, ())
        pairs: list[tuple[Method | None, Method | None]]
        if len(before) == 1 and len(after) == 1:
            pairs = [(before[0], after[0])]
        else:  # a name used for both a request and a notification: match by kind
            kinds = {m.kind for m in before} | {m.kind for m in after}
            pairs = [
                (
                    next((m for m in before if m.kind == k), None),
                    next((m for m in after if m.kind == k), None),
                )
                for k in sorted(kinds)
            ]
        for a, b in pairs:
            if a is None and b is not None:
                yield Change(
                    "methods",
                    name,
                    "added",
                    None,
                    _describe(b),
                    NOBODY,
                    "a peer built on OLD never calls it",
                )
            elif b is None and a is not None:
                yield Change(
                    "methods",
                    name,
                    "removed",
                    _describe(a),
                    None,
                    _callers(a),
                    "the caller built on OLD still sends it",
                )
            elif a is not None and b is not None:
                yield from _method_changed(old, new, a, b)


def _method_changed(old: Facts, new: Facts, a: Method, b: Method) -> Iterator[Change]:
    name = a.name
    if a.side != b.side:
        yield Change(
            "methods", name, "side-changed", a.side, b.side, BOTH, "the other side now handles it"
        )
    if a.kind != b.kind:
        yield Change(
            "methods",
            name,
            "kind-changed",
            a.kind,
            b.kind,
            BOTH,
            "request and notification are framed differently",
        )
    for role, x, y in (("params", a.params, b.params), ("result", a.result, b.result)):
        if x == y:
            continue
        same = x is not None and y is not None and old.types.get(x) == new.types.get(y)
        yield Change(
            "methods",
            name,
            f"{role}-changed",
            x,
            y,
            NOBODY if same else BOTH,
            "renamed, same shape" if same else f"the {role} type has a different shape",
        )


def _types(old: Facts, new: Facts) -> Iterator[Change]:
    for name in sorted(new.types.keys() - old.types.keys()):
        yield Change(
            "types",
            name,
            "added",
            None,
            None,
            NOBODY,
            "new names are not on the wire by themselves",
        )
    for name in sorted(old.types.keys() - new.types.keys()):
        yield Change(
            "types",
            name,
            "removed",
            None,
            None,
            NOBODY,
            "the places that used it report their own change",
        )


def _rule_text(rule: MergeRule) -> str:
    parts = [f"{rule.op} {rule.entity}"]
    for label, value in (
        ("key", rule.key),
        ("field", rule.field),
        ("from", rule.source),
        ("role", rule.role),
        ("encoding", rule.encoding),
    ):
        if value is not None:
            parts.append(f"{label}={value}")
    parts += [f"bytes {k}={v}" for k, v in rule.bytes_fields]
    return " ".join(parts)


def _merge_rules(old: Facts, new: Facts) -> Iterator[Change]:
    a, b = old.merge_rules, new.merge_rules
    if not any(a.values()) and not any(b.values()):
        return
    readers = Flow(old, new, new.update_union or "").reader()
    for tag in sorted(a.keys() & b.keys()):
        x, y = a[tag], b[tag]
        if x == y:
            continue
        if x is None and y is not None:
            yield Change(
                "merge-rules",
                tag,
                "added",
                None,
                _rule_text(y),
                NOBODY,
                "an OLD client keeps the update as unknown",
            )
        elif y is None and x is not None:
            yield Change(
                "merge-rules",
                tag,
                "removed",
                _rule_text(x),
                None,
                NOBODY,
                "NEW says nothing about folding it",
            )
        elif x is not None and y is not None:
            yield Change(
                "merge-rules",
                tag,
                "changed",
                _rule_text(x),
                _rule_text(y),
                readers,
                "an OLD client folds the update differently",
            )
