"""Check-only validation of wire JSON: is this data what the schema's type allows?

The runtime checks every update it receives and every message it sends, and throws the
validated models away: the session state and the wire keep the JSON. Building those model
instances was over half the cost of a check. `wire_check(tp)` validates with the same core
schema as `tp`'s models, with two changes that keep what passes and what fails:

- each plain model is validated as a typed dict (same fields, aliases, required fields and
  extra-field rule; no instance built, no defaults filled in);
- a tagged union whose route callback declares its tag key and known tags (the generated
  `_route_*` functions do, as keyword defaults) picks its branch in pydantic-core by that key,
  among the known tags only: the callback returns a known string tag as it is, and everything
  else (unknown or missing tags, the fallback branch) fails here and goes on to the models.

On a failure the models' own validator runs again, so the error raised is exactly the one
`wire.from_wire` raises (and if the models accept what the fast form rejected, the data passes:
the models stay the authority).

Input is wire JSON (dicts, lists, scalars): model instances are not accepted as dict data.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, cast

from pydantic_core import CoreConfig, SchemaValidator

from .convert import WIRE_RULES, adapter, per_type, wire_validator

if TYPE_CHECKING:
    from typing_extensions import TypeForm

# A check of wire JSON: returns when the data fits, raises pydantic's ValidationError if not.
Check: TypeAlias = Callable[[object], None]
# A node of pydantic-core's schema. Its TypedDicts name one shape per node kind; this walk
# treats every kind alike, by its keys, so it reads them as plain dicts.
Node: TypeAlias = dict[str, Any]
_T = TypeVar("_T")

# `WIRE_RULES` as configuration (see `_wire_config`), strictness included: a keyword argument
# with every call cost a quarter of a small update's check. Configured strictness equals the
# models' call argument unless a field sets its own, which only the argument overrides: then
# strictness stays an argument (`_sets_strict`).
_NAME_RULES = {
    "validate_by_alias": WIRE_RULES["by_alias"],
    "validate_by_name": WIRE_RULES["by_name"],
    "strict": WIRE_RULES["strict"],
}


def _plain_model(node: Node) -> bool:
    """A model whose validation is its fields alone: no custom `__init__`, no
    `model_post_init`, not a RootModel (those keep their model node)."""
    return (
        not node.get("root_model")
        and not node.get("custom_init")
        and "post_init" not in node
        and node["schema"].get("type") == "model-fields"
    )


def _without_default(schema: Node) -> Node:
    """An optional field's value schema: nothing is filled in for an absent field (a check
    keeps no output), and the `MISSING` sentinel, never found in JSON, is not accepted (the
    models, which accept it, then decide). Kept when the default does more than fill in."""
    if schema.get("validate_default") or schema.get("on_error", "raise") != "raise":
        return schema
    inner: Node = schema["schema"]
    return inner["schema"] if inner.get("type") == "missing-sentinel" else inner


def _as_typed_dict(node: Node) -> Node:
    fields = node["schema"]
    out_fields: dict[str, Node] = {}
    for name, field in fields["fields"].items():
        schema = field["schema"]
        # A model field is optional exactly when its schema carries a default.
        required = schema.get("type") != "default"
        out: Node = {
            "type": "typed-dict-field",
            "schema": dict_schema(schema if required else _without_default(schema)),
            "required": required,
        }
        if "validation_alias" in field:
            out["validation_alias"] = field["validation_alias"]
        out_fields[name] = out
    config = _wire_config(node.get("config", {}))
    extra = config.get("extra_fields_behavior")
    if extra == "allow" and "extras_schema" not in fields:
        # Extra fields of any value pass either way; "ignore" does not copy them out.
        extra = config["extra_fields_behavior"] = "ignore"
    typed: Node = {"type": "typed-dict", "fields": out_fields, "config": config}
    if "ref" in node:
        typed["ref"] = node["ref"]  # definition references point at it
    if extra is not None:
        typed["extra_behavior"] = extra
    if "extras_schema" in fields:
        typed["extras_schema"] = dict_schema(fields["extras_schema"])
    return typed


def _wire_config(config: Node) -> Node:
    """`config` reading wire names only (`WIRE_RULES`), so no call has to say so: passing
    `by_alias`/`by_name` with every call cost more than a small update's whole check."""
    return {**config, **_NAME_RULES}


def _by_tag_key(node: Node) -> Node | None:
    """A tagged union routed by a callback, as one routed by its declared key; else None."""
    route = node.get("discriminator")
    declared = getattr(route, "__kwdefaults__", None) if callable(route) else None
    if not declared or not isinstance(declared.get("tag_key"), str):
        return None
    known = declared.get("known")
    if not isinstance(known, frozenset):
        return None
    choices = {tag: dict_schema(schema) for tag, schema in node["choices"].items() if tag in known}
    return {**node, "discriminator": declared["tag_key"], "choices": choices}


def dict_schema(node: _T) -> _T:
    """`node` (a pydantic-core schema) in its fast form (see above); a new structure of the
    same kind, the original is not changed."""
    if isinstance(node, dict):
        kind = node.get("type")
        if kind == "model" and _plain_model(node):
            return cast(_T, _as_typed_dict(node))
        if kind == "tagged-union":
            by_key = _by_tag_key(node)
            if by_key is not None:
                return cast(_T, by_key)
        copied = {key: dict_schema(value) for key, value in node.items()}
        if isinstance(node.get("config"), dict):  # a model kept as it is, for one
            copied["config"] = _wire_config(node["config"])
        return cast(_T, copied)
    if isinstance(node, list):
        return cast(_T, [dict_schema(value) for value in node])
    return node


def _sets_strict(node: object) -> bool:
    """Whether any schema node below `node` (a config aside) sets its own strictness."""
    if isinstance(node, dict):
        return "strict" in node or any(
            _sets_strict(value) for key, value in node.items() if key != "config"
        )
    if isinstance(node, list):
        return any(_sets_strict(value) for value in node)
    return False


def fast_form(tp: TypeForm[object]) -> Callable[[object], object]:
    """The fast form of `tp`'s validation alone (`wire_check` falls back to the models); it
    raises whatever the validation raises (a route callback's own errors included)."""
    core = adapter(tp).core_schema
    config = cast(CoreConfig, _wire_config({}))
    validator = SchemaValidator(dict_schema(core), config)
    if _sets_strict(core):
        return partial(validator.validate_python, strict=WIRE_RULES["strict"])
    return validator.validate_python


@per_type
def pre_check(tp: TypeForm[object]) -> Callable[[object], object]:
    """`tp`'s fast form, built once: passing it means `wire_check(tp)` passes too; failing it
    (any exception) means only that `wire_check` must decide."""
    return fast_form(tp)


@per_type
def wire_check(tp: TypeForm[object]) -> Check:
    """A check of wire JSON against `tp` (a model class or union alias): returns None when it
    fits, raises pydantic's `ValidationError` (the models' own) when it does not."""
    fast = pre_check(tp)
    authority = wire_validator(tp)

    def check(data: object) -> None:
        try:
            fast(data)
        except Exception:  # ValidationError, or anything a route callback raised
            authority(data)  # the models decide, and raise their own error

    return check
