"""Models <-> wire JSON through pydantic TypeAdapters (works for classes and union aliases).

A type here is a `TypeForm` (PEP 747): a model class or a union alias, what
`pydantic.TypeAdapter` takes; `from_wire(tp, data)` returns a value of that type.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache, partial
from typing import TYPE_CHECKING, Any, Final, TypedDict, TypeVar, cast, overload

from pydantic import BaseModel, TypeAdapter

from .jsonvalue import JsonObject, JsonValue

if TYPE_CHECKING:
    from typing_extensions import TypeForm

_T = TypeVar("_T")
_Built = TypeVar("_Built", bound=Callable[..., object])


def per_type(build: _Built) -> _Built:
    """`functools.cache` for a function of a type (one result per type, built on first use),
    typed as the function itself: mypy does not count a `TypeForm` as `Hashable`, though every
    class and alias is."""
    return cast(_Built, cache(build))


class WireRules(TypedDict):
    """The validation keywords every wire read passes (`from_wire`)."""

    strict: bool
    by_alias: bool
    by_name: bool


# Strict JSON types, wire names only (see `from_wire`).
WIRE_RULES: Final[WireRules] = {"strict": True, "by_alias": True, "by_name": False}


@per_type
def adapter(tp: TypeForm[object]) -> TypeAdapter[object]:
    """One TypeAdapter per model or union alias, built on first use.

    Generated models defer building their schemas (import time); build this adapter's now, so
    its `validator` is the real one and not a placeholder that rebuilds itself on access."""
    checked = TypeAdapter(tp)
    checked.rebuild(_types_namespace={})  # names resolve in the models' own modules
    return checked


@overload
def to_wire(
    value: BaseModel | Mapping[str, object], tp: TypeForm[object] | None = None
) -> JsonObject: ...
@overload
def to_wire(value: object, tp: TypeForm[object] | None = None) -> JsonValue: ...
def to_wire(value: object, tp: TypeForm[object] | None = None) -> JsonValue:
    """A model (or plain JSON data) as JSON-ready data with wire names; absent stays absent.

    Typed as an object for a model or a mapping, as `jsonvalue.to_json` is (and with its
    assumption: no RootModel of a scalar or array is passed here)."""
    if isinstance(value, dict | list | str | int | float | bool) or value is None:
        dumped: JsonValue = adapter(Any).dump_python(value, mode="json", by_alias=True)
        return dumped
    target = type(value) if tp is None else tp
    wire: JsonValue = adapter(target).dump_python(value, mode="json", by_alias=True)
    return wire


def from_wire(tp: TypeForm[_T], data: object) -> _T:
    """Validate wire JSON into `tp` (missing params count as `{}`); raises ValidationError.

    Strict JSON types and wire names only: `"5"` is no integer, and the Python field names models
    also accept are for code, not for peers."""
    # The adapter's core validator directly: `TypeAdapter.validate_python` only re-checks the
    # by_alias/by_name pair, which is fixed here, and costs a Python call per message.
    valid: _T = adapter(tp).validator.validate_python({} if data is None else data, **WIRE_RULES)
    return valid


def wire_validator(tp: TypeForm[_T]) -> Callable[[object], _T]:
    """`from_wire` for one type, as a function (e.g. the session-update validator)."""
    # A partial of the core validator: no Python frame of ours per call.
    return partial(adapter(tp).validator.validate_python, **WIRE_RULES)
