"""The checks validate.py runs for names, references and tags a generator could trip on."""

from __future__ import annotations

from typing import Any

from ..model.errors import Problem
from .validate_names import field_names, handler_names, merged_field_names, titles
from .validate_refs import nonlocal_refs, ref_cycles, union_tags
from .validate_strings import lone_surrogates

CHECKS = (
    field_names,
    merged_field_names,
    titles,
    handler_names,
    nonlocal_refs,
    ref_cycles,
    union_tags,
    lone_surrogates,
)


def hostile_input_problems(doc: dict[str, Any], file: str) -> list[Problem]:
    """Every problem these checks find; each one reads only the parts that are well formed."""
    return [problem for check in CHECKS for problem in check(doc, file)]
