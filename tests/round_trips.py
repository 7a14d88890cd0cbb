"""Round-trip checks the generated-package tests share: validate a sample as a type, dump it
back by alias and expect the same JSON."""

from __future__ import annotations

import copy
import json
from typing import Any

from pydantic import BaseModel, TypeAdapter

_adapters: dict[int, TypeAdapter[Any]] = {}


def adapter(tp: Any) -> TypeAdapter[Any]:
    """One TypeAdapter per type (building one is the slow part)."""
    if id(tp) not in _adapters:
        _adapters[id(tp)] = TypeAdapter(tp)
    return _adapters[id(tp)]


def round_trip(tp: Any, sample: Any) -> Any:
    """Validate `sample` as `tp`, dump it back (by alias, JSON mode) and expect the same JSON."""
    ta = adapter(tp)
    obj = ta.validate_python(copy.deepcopy(sample))
    assert ta.dump_python(obj, mode="json", by_alias=True) == sample
    again = ta.validate_json(json.dumps(sample))
    assert json.loads(ta.dump_json(again, by_alias=True)) == sample
    return obj


def field_name(model: type[BaseModel], wire: str) -> str:
    """The Python name of the field that `model` reads from the wire name `wire`."""
    names = [n for n, f in model.model_fields.items() if (f.alias or n) == wire]
    assert names, f"{model.__name__} has no field for {wire!r}"
    return names[0]
