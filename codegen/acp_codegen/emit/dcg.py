"""Run datamodel-code-generator in process on a lowered schema; the only place that calls it."""

from __future__ import annotations

import json
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Any

from datamodel_code_generator import Error, InputFileType, PythonVersion, generate
from datamodel_code_generator.enums import DataModelType

from ..load.schema_walk import subschemas
from ..load.validate_names import FIELD_ALIASES, protected_fields
from ..model.errors import Problem, SchemaError
from ..model.naming import surrogates_named
from ..model.shown import visible
from ..paths import TEMPLATE_DIR

# The oldest pydantic the generated models work with: datamodel-code-generator targets it, and the
# generated package checks it at import (`_pydantic_check.py`).
PYDANTIC_MINIMUM = "2.14"

# Every option that shapes the output is fixed here; together with the pinned version of
# datamodel-code-generator they decide the bytes of models.py.
_OPTIONS: dict[str, Any] = {
    "input_file_type": InputFileType.JsonSchema,
    "output_model_type": DataModelType.PydanticV2BaseModel,
    "target_python_version": PythonVersion.PY_311,
    "target_pydantic_version": PYDANTIC_MINIMUM,
    "use_title_as_name": True,
    "use_schema_description": True,
    "use_double_quotes": True,
    "use_annotated": True,
    "field_constraints": True,
    "use_union_operator": True,
    "use_standard_collections": True,
    "use_type_alias": True,
    "use_one_literal_as_default": True,
    "use_missing_sentinel": True,
    "enum_field_as_literal": "all",
    "snake_case_field": True,
    "allow_population_by_field_name": True,
    "extra_fields": "allow",
    "aliases": FIELD_ALIASES,  # and each schema's `protected_fields`
    "keep_model_order": True,
    "disable_timestamp": True,
    "formatters": [],
    # The schema root has no type of its own; datamodel-code-generator still emits an alias for
    # it, so give it a name that says what it is (any JSON value).
    "class_name": "JsonValue",
    "additional_imports": ["pydantic.Discriminator", "pydantic.Tag"],
    "custom_template_dir": Path(TEMPLATE_DIR) / "dcg",
}


def generate_models(schema: dict[str, Any], template_data: dict[str, Any], header: str) -> str:
    """Source of the models module, opening with `header` (unformatted: the caller formats)."""
    text = json.dumps(_descriptions_shown(schema))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = generate(
                text,
                extra_template_data=defaultdict(dict, template_data),
                custom_file_header=header.rstrip("\n"),
                **{**_OPTIONS, "aliases": {**FIELD_ALIASES, **protected_fields(schema)}},
            )
        except (Error, RecursionError) as exc:  # validate missed something: still no traceback
            raise SchemaError([Problem("datamodel-code-generator", "", str(exc))]) from exc
    if not isinstance(out, str):
        raise TypeError("datamodel-code-generator returned no single module")
    # It writes descriptions into class docstrings as they are (backslashes and quotes escaped,
    # string constants all escaped): a lone surrogate there is named, as in our own docstrings.
    return surrogates_named(out, backslash="\\\\")


def _descriptions_shown(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with every description's terminal-steering characters (ESC, CR, C1, direction
    overrides, lone surrogates) written as visible escapes: datamodel-code-generator copies a
    description into a docstring verbatim, so a hostile schema could otherwise put raw escape
    sequences into models.py (shown by `cat`, `check`'s diff, an editor) or text that reads
    differently from how it runs. A copy is made only when some description needs it."""

    def nodes(doc: dict[str, Any]) -> list[dict[str, Any]]:
        return [doc, *(node for _, node in subschemas(doc))]

    def needs(node: dict[str, Any]) -> bool:
        text = node.get("description")
        return isinstance(text, str) and visible(text) != text

    if not any(needs(node) for node in nodes(schema)):
        return schema
    copied: dict[str, Any] = json.loads(json.dumps(schema))
    for node in nodes(copied):
        if needs(node):
            node["description"] = visible(node["description"])
    return copied
