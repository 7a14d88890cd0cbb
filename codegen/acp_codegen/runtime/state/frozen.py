"""Compact, immutable storage for the items a session's records accumulate (chunk contents).

Most of a long session's state is the content its chunks appended, one small JSON object per
chunk. Kept as decoded, each costs a dict (~184 bytes) on top of its text; kept frozen here, a
text block `{"type": "text", "text": s}` costs nothing but `s` itself, and any other object a
tuple of its values behind a shape (its keys) shared by every object of the same keys. The
state stays smaller than the stream it was folded from, and a snapshot, which must build fresh
dicts for its caller anyway, shares only immutable parts (strings, numbers) with the state.

Two encodings, each decoded by `thaw_item` / `_thaw_member`:
- an *item* (of an accumulated list or a frozen array): a `str` is a text block, a `Boxed`
  1-tuple a string, a plain `tuple` (its `Shape` first, then its members) an object, a
  `FrozenArray` an array, anything else a scalar as it is;
- a *member* value of a frozen object: like an item, except that a `str` is a string unless
  its shape marks that position as a text block, and strings are never boxed.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

TEXT: Final = "text"
_SHAPES_KEPT: Final = 4096  # distinct shapes shared; a hostile stream's endless new keys
_shapes: dict[tuple[tuple[str, ...], int], Shape] = {}  # still work, unshared


class Shape(NamedTuple):
    """The keys of a frozen object, in order, and which of its members are text blocks (bits)."""

    keys: tuple[str, ...]
    texts: int


class FrozenArray(tuple[Any, ...]):
    """A JSON array of items."""

    __slots__ = ()


class Boxed(tuple[Any, ...]):
    """(string,): a string where a bare `str` would mean a text block."""

    __slots__ = ()


def freeze_item(value: Any) -> Any:
    """The frozen form of one accumulated item; shares no mutable object with `value`."""
    kind = value.__class__
    if kind is dict:  # a text block is its text (checked inline: this runs once per chunk)
        if len(value) == 2 and value.get("type") == TEXT:
            text = value.get(TEXT)
            if text.__class__ is str and next(iter(value)) == "type":
                return text
        return _freeze_object(value)
    if kind is str:
        return Boxed((value,))
    if kind is list:
        return FrozenArray(freeze_item(item) for item in value)
    return _freeze_other(value, boxed=True)


def thaw_item(value: Any) -> Any:
    """Fresh plain JSON for a frozen item: new containers, the same strings and numbers."""
    kind = value.__class__
    if kind is str:
        return {"type": TEXT, TEXT: value}
    if kind is tuple:
        return _thaw_object(value)
    if kind is FrozenArray:
        return [thaw_item(item) for item in value]
    if kind is Boxed:
        return value[0]
    return value


def _freeze_other(value: Any, *, boxed: bool) -> Any:
    """Subclasses of the JSON containers and strings (rare: decoded JSON has none)."""
    if isinstance(value, dict):  # a member is never a text block here: no shape marks it
        return freeze_item(dict(value)) if boxed else _freeze_object(dict(value))
    if isinstance(value, list | tuple):
        return FrozenArray(freeze_item(item) for item in value)
    if isinstance(value, str):
        return Boxed((str(value),)) if boxed else str(value)
    return value  # numbers, booleans, null


_PLAIN: Final = frozenset({str, int, float, bool, type(None)})  # members kept as they are


def _freeze_object(value: dict[Any, Any]) -> tuple[Any, ...]:
    members = [None, *value.values()]  # [0]: the shape, once the text members are known
    texts = 0
    for index in range(1, len(members)):
        member = members[index]
        kind = member.__class__
        if kind in _PLAIN:
            continue  # most members: no call for them (this runs for chunks)
        if kind is dict:
            if len(member) == 2 and member.get("type") == TEXT:
                text = member.get(TEXT)
                if text.__class__ is str and next(iter(member)) == "type":
                    members[index] = text
                    texts |= 1 << (index - 1)
                    continue
            members[index] = _freeze_object(member)
        elif kind is list:
            members[index] = FrozenArray(freeze_item(item) for item in member)
        else:
            members[index] = _freeze_other(member, boxed=False)
    keys = tuple(value)
    members[0] = _shapes.get((keys, texts)) or _shape(keys, texts)
    return tuple(members)  # a plain tuple (cheapest to build) is always an object


def _shape(keys: tuple[str, ...], texts: int) -> Shape:
    known = _shapes.get((keys, texts))
    if known is not None:
        return known
    shape = Shape(keys, texts)
    if len(_shapes) < _SHAPES_KEPT:
        _shapes[keys, texts] = shape
    return shape


def _thaw_object(value: tuple[Any, ...]) -> dict[str, Any]:
    shape: Shape = value[0]
    out: dict[str, Any] = {}
    texts = shape.texts
    for index, key in enumerate(shape.keys):
        member = value[index + 1]
        kind = member.__class__
        if kind is str:
            out[key] = {"type": TEXT, TEXT: member} if texts >> index & 1 else member
        elif kind is tuple:
            out[key] = _thaw_object(member)
        elif kind is FrozenArray:
            out[key] = [thaw_item(item) for item in member]
        else:
            out[key] = member
    return out
