"""Check-only validation of wire JSON: is this data what the schema's type allows?

The runtime checks every update it receives and every message it sends, and throws the
validated models away: the session state and the wire keep the JSON. Building those model
instances was over half the cost of a check. `wire_check(tp)` validates with the same core
schema as `tp`'s models, except that each plain model is validated as a typed dict (same
fields, aliases, defaults, extra-field rule, unions and discriminators; no instance built), so
what passes and what fails is unchanged. On a failure the models' own validator runs again, so
the error raised is exactly the one `wire.from_wire` raises (and if the models accept what the
dict form rejected, the data passes: the models stay the authority).

Input is wire JSON (dicts, lists, scalars): model instances are not accepted as dict data.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, partial
from typing import Any

from pydantic_core import SchemaValidator

from .wire import WIRE_RULES, adapter, wire_validator

Check = Callable[[Any], None]


def _plain_model(node: dict[str, Any]) -> bool:
    """A model whose validation is its fields alone: no custom `__init__`, no
    `model_post_init`, not a RootModel (those keep their model node)."""
    return (
        not node.get("root_model")
        and not node.get("custom_init")
        and "post_init" not in node
        and node["schema"].get("type") == "model-fields"
    )


def _as_typed_dict(node: dict[str, Any]) -> dict[str, Any]:
    fields = node["schema"]
    out_fields: dict[str, Any] = {}
    for name, field in fields["fields"].items():
        schema = dict_schema(field["schema"])
        out = {
            "type": "typed-dict-field",
            "schema": schema,
            # A model field is optional exactly when its schema carries a default.
            "required": schema.get("type") != "default",
        }
        if "validation_alias" in field:
            out["validation_alias"] = field["validation_alias"]
        out_fields[name] = out
    config = node.get("config", {})
    typed: dict[str, Any] = {"type": "typed-dict", "fields": out_fields, "config": config}
    if "ref" in node:
        typed["ref"] = node["ref"]  # definition references point at it
    if "extra_fields_behavior" in config:
        typed["extra_behavior"] = config["extra_fields_behavior"]
    if "extras_schema" in fields:
        typed["extras_schema"] = dict_schema(fields["extras_schema"])
    return typed


def dict_schema(node: Any) -> Any:
    """`node` (a pydantic-core schema) with each plain model validated as a typed dict; a new
    structure, the original is not changed."""
    if isinstance(node, dict):
        if node.get("type") == "model" and _plain_model(node):
            return _as_typed_dict(node)
        return {key: dict_schema(value) for key, value in node.items()}
    if isinstance(node, list):
        return [dict_schema(value) for value in node]
    return node


@cache
def wire_check(tp: Any) -> Check:
    """A check of wire JSON against `tp` (a model class or union alias): returns None when it
    fits, raises pydantic's `ValidationError` (the models' own) when it does not."""
    validator = SchemaValidator(dict_schema(adapter(tp).core_schema))
    fast = partial(validator.validate_python, **WIRE_RULES)
    authority = wire_validator(tp)

    def check(data: Any) -> None:
        try:
            fast(data)
        except Exception:  # ValidationError, or anything a route callback raised
            authority(data)  # the models decide, and raise their own error

    return check
