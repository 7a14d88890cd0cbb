"""Models <-> wire JSON through pydantic TypeAdapters (works for classes and union aliases)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, partial
from typing import Any

from pydantic import TypeAdapter

# Strict JSON types, wire names only (see `from_wire`).
WIRE_RULES: dict[str, Any] = {"strict": True, "by_alias": True, "by_name": False}


@cache
def adapter(tp: Any) -> TypeAdapter[Any]:
    """One TypeAdapter per model or union alias, built on first use.

    Generated models defer building their schemas (import time); build this adapter's now, so
    its `validator` is the real one and not a placeholder that rebuilds itself on access."""
    checked: TypeAdapter[Any] = TypeAdapter(tp)
    checked.rebuild(_types_namespace={})  # names resolve in the models' own modules
    return checked


def to_wire(value: Any, tp: Any | None = None) -> Any:
    """A model (or plain JSON data) as JSON-ready data with wire names; absent stays absent."""
    if isinstance(value, dict | list | str | int | float | bool) or value is None:
        return adapter(Any).dump_python(value, mode="json", by_alias=True)
    target: Any = type(value) if tp is None else tp
    return adapter(target).dump_python(value, mode="json", by_alias=True)


def from_wire(tp: Any, data: Any) -> Any:
    """Validate wire JSON into `tp` (missing params count as `{}`); raises ValidationError.

    Strict JSON types and wire names only: `"5"` is no integer, and the Python field names models
    also accept are for code, not for peers."""
    # The adapter's core validator directly: `TypeAdapter.validate_python` only re-checks the
    # by_alias/by_name pair, which is fixed here, and costs a Python call per message.
    return adapter(tp).validator.validate_python({} if data is None else data, **WIRE_RULES)


def wire_validator(tp: Any) -> Callable[[Any], Any]:
    """`from_wire` for one type, as a function (e.g. the session-update validator)."""
    # A partial of the core validator: no Python frame of ours per call.
    return partial(adapter(tp).validator.validate_python, **WIRE_RULES)
