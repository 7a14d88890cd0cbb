"""`wire_check`'s fast form (typed dicts, tags looked up by key) accepts and rejects exactly
what the models do.

Samples are built from the source schema for every type the generated package defines, then
mutated one place at a time. For each: the fast form never accepts what the models reject, it
accepts every sample that uses known tags (so the fast path is the one taken), and `wire_check`
agrees with the models, raising their own errors.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import SCHEMA, GeneratedPackage
from fixtures.samples import SampleBuilder, Unsupported
from pydantic import BaseModel, ValidationError
from pydantic_core import SchemaValidator

_SCHEMA: dict[str, Any] = json.loads(SCHEMA.read_text(encoding="utf-8"))
_DEFS: dict[str, Any] = _SCHEMA["$defs"]
BUILDER = SampleBuilder(_DEFS)
# Values put in place of each one in turn: wrong types, null, an unknown tag, a string tag.
REPLACEMENTS: list[Any] = [None, 5, 1.5, True, "text", [], {}, {"x": 1}, "_unknown_tag"]


def _mutations(value: Any) -> Iterator[Any]:
    """`value` changed in one place: a key dropped or added, a value replaced (recursively)."""
    if isinstance(value, dict):
        for key in value:
            yield {k: v for k, v in value.items() if k != key}
            # The Python name in place of the wire name: peers must use wire names.
            python_name = re.sub(r"(?<!^)([A-Z])", r"_\1", key.lstrip("_")).lower()
            if python_name != key:
                yield {(python_name if k == key else k): v for k, v in value.items()}
            for replacement in REPLACEMENTS:
                yield {**value, key: replacement}
            for inner in _mutations(value[key]):
                yield {**value, key: inner}
        yield {**value, "extraField": {"kept": True}}
    elif isinstance(value, list) and value:
        yield value[1:]
        for replacement in REPLACEMENTS:
            yield [replacement, *value[1:]]
        for inner in _mutations(value[0]):
            yield [inner, *value[1:]]


def _samples(name: str) -> list[Any]:
    try:
        return [BUILDER.build(_DEFS[name], full=full) for full in (False, True)]
    except Unsupported:
        return []


def _accepts(validate: Any, data: Any) -> bool:
    try:
        validate(copy.deepcopy(data))
    except ValidationError:
        return False
    return True


def _types(canonical: GeneratedPackage) -> list[tuple[str, Any]]:
    models = canonical.models
    return [(name, getattr(models, name)) for name in sorted(_DEFS) if hasattr(models, name)]


def test_fast_form_never_accepts_what_the_models_reject(canonical: GeneratedPackage) -> None:
    checks = canonical.submodule("_runtime.wire.checks")
    wire = canonical.submodule("_runtime.wire.convert")
    checked = fast_taken = 0
    for name, tp in _types(canonical):
        fast_validate = checks.fast_form(tp)
        models_validate = wire.wire_validator(tp)
        for sample in _samples(name):
            if not _accepts(models_validate, sample):
                continue  # the sample builder's simple choices miss a few types' rules
            fast_taken += _accepts(fast_validate, sample)
            for mutated in _mutations(sample):
                if _accepts(fast_validate, mutated):
                    assert _accepts(models_validate, mutated), (name, mutated)
                checked += 1
    assert checked > 10_000  # the corpus is not empty by accident
    assert fast_taken > 100


def test_known_tag_samples_take_the_fast_path(canonical: GeneratedPackage) -> None:
    """Every update variant's sample (known tags throughout) is accepted by the fast form."""
    checks = canonical.submodule("_runtime.wire.checks")
    fast = checks.fast_form(canonical.models.SessionUpdate)
    variants = [b for b in _DEFS["SessionUpdate"]["anyOf"] if b.get("title") != "other"]
    assert len(variants) >= 10
    for branch in variants:
        for full in (False, True):
            sample = BUILDER.build(branch, full=full)
            fast(sample)


def test_wire_check_agrees_with_the_models_and_raises_their_errors(
    canonical: GeneratedPackage,
) -> None:
    checks = canonical.submodule("_runtime.wire.checks")
    wire = canonical.submodule("_runtime.wire.convert")
    for name, tp in _types(canonical):
        check = checks.wire_check(tp)
        models_validate = wire.wire_validator(tp)
        for sample in _samples(name):
            for data in [sample, *_mutations(sample)]:
                try:
                    models_validate(copy.deepcopy(data))
                    expected = None
                except ValidationError as error:
                    expected = error.errors(include_url=False)
                if expected is None:
                    check(copy.deepcopy(data))
                    continue
                with pytest.raises(ValidationError) as raised:
                    check(copy.deepcopy(data))
                assert raised.value.errors(include_url=False) == expected, (name, data)


def test_unknown_and_missing_tags_still_reach_the_fallback(canonical: GeneratedPackage) -> None:
    """The fast form knows only the known tags; the models' open-union fallback still decides
    the rest (here: an update from a newer protocol version is accepted)."""
    checks = canonical.submodule("_runtime.wire.checks")
    union = canonical.models.SessionUpdate
    checks.wire_check(union)({"sessionUpdate": "_vendor_update", "anything": [1, 2]})
    with pytest.raises(ValidationError):
        checks.wire_check(union)({"anything": 1})  # no tag at all: the models reject it too


def test_models_with_their_own_init_keep_their_model_node() -> None:
    """Only plain models become typed dicts: a post-init hook or a root model must run."""
    from acp_codegen.runtime.wire.checks import dict_schema
    from acp_codegen.runtime.wire.convert import adapter
    from pydantic import RootModel

    class Hooked(BaseModel):
        n: int

        def model_post_init(self, context: Any) -> None:
            if self.n < 0:
                raise ValueError("negative")

    class Root(RootModel[list[int]]):
        pass

    for tp in (Hooked, Root):
        schema = dict_schema(adapter(tp).core_schema)
        assert schema["type"] == "model", tp
    plain = SchemaValidator(dict_schema(adapter(Hooked).core_schema))
    with pytest.raises(ValidationError):
        plain.validate_python({"n": -1})  # the hook ran: it is still the model


def test_routes_that_declare_nothing_keep_their_callback() -> None:
    """A hand-written route (no `tag_key`/`known` keyword defaults) is left as it is."""
    from typing import Annotated, Literal

    from acp_codegen.runtime.wire.checks import dict_schema
    from acp_codegen.runtime.wire.convert import adapter
    from pydantic import Discriminator, Tag

    class A(BaseModel):
        kind: Literal["a"]

    class B(BaseModel):
        kind: Literal["b"]

    def route(value: Any) -> str | None:
        return value.get("kind") if isinstance(value, dict) else None

    union = Annotated[Annotated[A, Tag("a")] | Annotated[B, Tag("b")], Discriminator(route)]
    schema = dict_schema(adapter(union).core_schema)
    tagged = schema if schema["type"] == "tagged-union" else schema["schema"]
    assert tagged["discriminator"] is route


def test_a_field_with_its_own_strictness_is_checked_as_the_models_check_it() -> None:
    """The fast form reads strictness from its configuration, except where a field sets its
    own (which only the models' call argument overrides): there it keeps the argument."""
    from acp_codegen.runtime.wire.checks import fast_form
    from acp_codegen.runtime.wire.convert import wire_validator
    from pydantic import Field

    class Lax(BaseModel):
        n: int = Field(strict=False)

    class Plain(BaseModel):
        n: int

    for tp in (Lax, Plain):
        for validate in (fast_form(tp), wire_validator(tp)):
            with pytest.raises(ValidationError):
                validate({"n": "5"})  # strict on the wire: a string is not an integer
            validate({"n": 5})
