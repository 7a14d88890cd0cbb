"""Plain JSON values: RFC 6901 pointers, cheap structural copies, model-to-JSON conversion."""

from __future__ import annotations

import math
from collections.abc import Mapping
from enum import Enum
from typing import Any, Final, TypeAlias

from pydantic import BaseModel


class _Absent(Enum):
    """Marks "no value here", which JSON `null` cannot express."""

    ABSENT = "absent"


ABSENT: Final = _Absent.ABSENT
Absent = _Absent

JsonScalar: TypeAlias = str | int | float | bool | None
JsonValue: TypeAlias = JsonScalar | list["JsonValue"] | dict[str, "JsonValue"]
JsonObject: TypeAlias = dict[str, JsonValue]


def parse_pointer(pointer: str) -> tuple[str, ...]:
    """Split an RFC 6901 pointer into unescaped reference tokens ("" is the whole document)."""
    if pointer == "":
        return ()
    if not pointer.startswith("/"):
        raise ValueError(f"JSON pointer must be empty or start with '/': {pointer!r}")
    return tuple(token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/"))


def pointer_to(field: str) -> str:
    """The pointer to a top-level member named `field`."""
    return "/" + field.replace("~", "~0").replace("/", "~1")


def resolve(document: Any, tokens: tuple[str, ...]) -> Any:
    """The value `tokens` point to inside `document`, or ABSENT when the path does not exist."""
    if len(tokens) == 1 and isinstance(document, dict):  # the common case: a top-level member
        return document.get(tokens[0], ABSENT)
    current = document
    for token in tokens:
        if isinstance(current, dict):
            if token not in current:
                return ABSENT
            current = current[token]
        elif isinstance(current, list) and token.isdigit() and token == str(int(token)):
            index = int(token)
            if index >= len(current):
                return ABSENT
            current = current[index]
        else:
            return ABSENT
    return current


def copy_json(value: Any) -> Any:
    """A structural copy of a JSON value (objects and arrays are new; scalars are immutable).

    Faster than `copy.deepcopy` and enough for data decoded from JSON or dumped from models.
    """
    # Copy the container in C, then recurse only into nested containers: most members of
    # protocol objects are scalars, and a call per scalar was most of the cost.
    if isinstance(value, dict):
        out = value.copy()
        for key, item in out.items():
            if isinstance(item, dict | list):
                out[key] = copy_json(item)  # replacing a value keeps the dict's size
        return out
    if isinstance(value, list):
        items = value.copy()
        for index, item in enumerate(items):
            if isinstance(item, dict | list):
                items[index] = copy_json(item)
        return items
    return value


_SCALARS: frozenset[type] = frozenset({str, int, float, bool, type(None)})
_TEXTS: frozenset[type] = _SCALARS - {float}  # scalars that are always finite
_CONTAINERS: frozenset[type] = frozenset({dict, list})  # empty: nothing to convert inside
_SEQUENCES = (list, tuple)


def non_finite_location(value: Any) -> list[str | int] | None:
    """Where a number that is no finite double sits in decoded JSON (`1e400` decodes to
    infinity, which no JSON text can carry back), as a pydantic-style `loc`; else None."""
    if _finite_throughout(value):
        return None  # every request's params are walked: the locations only when needed
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), value)]
    while stack:
        loc, current = stack.pop()
        if isinstance(current, float):
            if not math.isfinite(current):
                return list(loc)
        elif isinstance(current, dict):
            stack.extend(((*loc, k), v) for k, v in current.items() if v.__class__ not in _TEXTS)
        elif isinstance(current, list):
            stack.extend(((*loc, i), v) for i, v in enumerate(current) if v.__class__ not in _TEXTS)
    return None


def _finite_throughout(value: Any) -> bool:
    stack = [value]
    pop, push = stack.pop, stack.extend
    while stack:
        current = pop()
        if current.__class__ in _TEXTS:
            continue
        if isinstance(current, dict):
            push(current.values())
        elif isinstance(current, list):
            push(current)
        elif isinstance(current, float) and not math.isfinite(current):
            return False
    return True


def to_json(value: Any) -> Any:
    """Wire form of a value: pydantic models (also inside dicts and lists) are dumped by alias.

    Fields a model never set (pydantic's `MISSING`) are left out; `None` stays `null`. Plain
    JSON comes back as the same object (nothing is copied when no model is inside), in one pass.
    """
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, dict):
        changed: dict[Any, Any] | None = None
        for key, item in value.items():
            kind = item.__class__
            if kind in _SCALARS or (kind in _CONTAINERS and not item):
                continue  # most members: no call per scalar (this runs for every message sent)
            converted = to_json(item)
            if converted is not item:
                if changed is None:
                    changed = dict(value)
                changed[key] = converted
        return value if changed is None else changed
    if isinstance(value, _SEQUENCES):
        items: list[Any] | None = None if isinstance(value, list) else list(value)
        for index, item in enumerate(value):
            if item.__class__ in _SCALARS:
                continue
            converted = to_json(item)
            if converted is not item:
                if items is None:
                    items = list(value)
                items[index] = converted
        return value if items is None else items
    return value


def as_object(value: Mapping[str, Any] | BaseModel) -> dict[str, Any]:
    """A fresh JSON object from a mapping or a generated model (unset fields stay absent)."""
    converted = to_json(value)
    return dict(converted) if converted is value or not isinstance(converted, dict) else converted
