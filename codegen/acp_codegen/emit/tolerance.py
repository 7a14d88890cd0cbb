"""The tolerant-reading table: where a reader may drop a bad part of a session update, of
the params of a message the agent or the client receives, or of the result of a request it
sent.

The schema marks properties with `x-deserialize-skip-invalid-items` (a bad array item is
dropped), `x-deserialize-default-on-error` (a bad value falls back to its default: absent for
an optional property) and `x-deserialize-default-on-null` (a `null` the type does not allow
falls back to its default, absent; any other bad value is still an error). `load.marks`
collects them per class (a `$defs` name, or the title of a tagged-union branch);
`tolerance_table` joins them with the models' type graph so the runtime
(`_runtime/wire/tolerant.py`) can follow a validation error's location from the update union
(or from a params class) down to the innermost marked property. Only paths that lead to a mark
are kept.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..model.ir import Protocol
from .model_fields import ModelInfo

Flags = tuple[bool, bool, bool]  # default on error, skip invalid items, default on null


@dataclass(frozen=True, slots=True)
class FieldEntry:
    default_on_error: bool
    skip_invalid_items: bool
    required: bool
    type: str | None  # the class or tagged union its value (or items) hold, when it leads on
    default_on_null: bool = False

    @property
    def marked(self) -> bool:
        return self.default_on_error or self.skip_invalid_items or self.default_on_null


@dataclass(frozen=True, slots=True)
class Table:
    root: str
    classes: dict[str, dict[str, FieldEntry]]
    unions: dict[str, dict[str, str]]
    carriers: tuple[tuple[str, str], ...]  # (notification, params class) carrying an update
    # (method, params class) of the requests / notifications an agent receives whose params
    # lead to a mark: the agent repairs those params before its handlers see them.
    agent_requests: tuple[tuple[str, str], ...] = ()
    agent_notifications: tuple[tuple[str, str], ...] = ()
    # The same for the client (its notifications without the carriers: those are above).
    client_requests: tuple[tuple[str, str], ...] = ()
    client_notifications: tuple[tuple[str, str], ...] = ()
    # (method, result class) of the requests each side sends (its proxy's calls) whose result
    # leads to a mark: the proxy repairs such a result when it fails validation.
    agent_results: tuple[tuple[str, str], ...] = ()
    client_results: tuple[tuple[str, str], ...] = ()


def _bases(lowered: Mapping[str, Any], class_name: str) -> list[str]:
    """`class_name` and the definitions it inherits (`allOf` refs in the lowered schema)."""
    out = [class_name]
    definition = lowered.get(class_name)
    if isinstance(definition, dict):
        for part in definition.get("allOf", ()):
            ref = part.get("$ref") if isinstance(part, dict) else None
            if isinstance(ref, str):
                out.extend(_bases(lowered, ref.rsplit("/", 1)[-1]))
    return out


def _leads_to(annotation: ast.expr, info: ModelInfo, unions: Mapping[str, Any]) -> str | None:
    """The one class or tagged union a field's value or items are, if exactly one."""
    names = {
        n.id
        for n in ast.walk(annotation)
        if isinstance(n, ast.Name) and (n.id in info.classes or n.id in unions)
    }
    return names.pop() if len(names) == 1 else None


def tolerance_table(protocol: Protocol, info: ModelInfo) -> Table | None:
    if protocol.update_union is None:
        return None
    unions = {
        u.name: {v.tag: v.class_name for v in u.known if v.tag is not None} for u in protocol.unions
    }
    lowered = protocol.model_schema.get("$defs", {})
    marks: dict[str, dict[str, Flags]] = {}
    for class_name, field, default, skip, null in protocol.deserialize_marks:
        marks.setdefault(class_name, {})[field] = (default, skip, null)

    def entries(class_name: str) -> dict[str, FieldEntry]:
        own: dict[str, Flags] = {}
        for base in reversed(_bases(lowered, class_name)):
            own.update(marks.get(base, {}))
        out = {}
        for f in info.classes.get(class_name, ()):
            default, skip, null = own.get(f.wire_name, (False, False, False))
            leads = _leads_to(f.annotation, info, unions)
            out[f.wire_name] = FieldEntry(default, skip, f.required, leads, null)
        return out

    everything = {name: entries(name) for name in info.classes}
    # Keep only fields that carry a mark or lead to one (a fixed point over the type graph).
    carriers = tuple(
        (m.name, m.params)
        for m in protocol.methods
        if m.kind == "notification"
        and any(e.type == protocol.update_union for e in everything.get(m.params, {}).values())
    )
    useful: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, fields in everything.items():
            if name not in useful and any(e.marked or e.type in useful for e in fields.values()):
                useful.add(name)
                changed = True
        for name, branches in unions.items():
            if name not in useful and any(c in useful for c in branches.values()):
                useful.add(name)
                changed = True

    # What each side receives (as `AGENT_SPECS` / `CLIENT_SPECS`: everything not for the other
    # side alone); the client's update carriers are repaired by `params_repairs()` already.
    def received(other: str, skip: tuple[tuple[str, str], ...] = ()) -> list[tuple[str, str, str]]:
        return [
            (m.name, m.params, m.kind)
            for m in protocol.methods
            if m.side != other and m.params in useful and (m.name, m.params) not in skip
        ]

    by_agent, by_client = received("client"), received("agent", carriers)

    # What each side reads back: the results of the requests its proxy sends (the methods the
    # other side handles, as the proxies list them).
    def answered(handler: str) -> tuple[tuple[str, str], ...]:
        return tuple(
            (m.name, m.result)
            for m in protocol.methods_for(handler)
            if m.kind == "request" and m.result is not None and m.result in useful
        )

    agent_results, client_results = answered("client"), answered("agent")
    # ... and reachable from the update union or those params and results.
    reachable: set[str] = set()
    pending = [protocol.update_union, *(params for _, params in carriers)]
    pending += [params for _, params, _ in by_agent + by_client]
    pending += [result for _, result in agent_results + client_results]
    while pending:
        name = pending.pop()
        if name in reachable or name not in useful:
            continue
        reachable.add(name)
        pending.extend(unions.get(name, {}).values())
        pending.extend(e.type for e in everything.get(name, {}).values() if e.type is not None)
    useful &= reachable
    classes = {
        name: {
            field: entry for field, entry in fields.items() if entry.marked or entry.type in useful
        }
        for name, fields in sorted(everything.items())
        if name in useful
    }
    kept_unions = {name: branches for name, branches in sorted(unions.items()) if name in useful}
    for fields in classes.values():
        for field, entry in fields.items():
            if entry.type not in useful:
                fields[field] = FieldEntry(
                    entry.default_on_error,
                    entry.skip_invalid_items,
                    entry.required,
                    None,
                    entry.default_on_null,
                )
    return Table(
        protocol.update_union,
        classes,
        kept_unions,
        carriers,
        _of_kind(by_agent, "request"),
        _of_kind(by_agent, "notification"),
        _of_kind(by_client, "request"),
        _of_kind(by_client, "notification"),
        agent_results,
        client_results,
    )


def _of_kind(methods: list[tuple[str, str, str]], kind: str) -> tuple[tuple[str, str], ...]:
    return tuple((name, params) for name, params, k in methods if k == kind)
