"""Bounds on what the generator accepts, so a hostile schema fails fast instead of exhausting
the machine: the largest real ACP schemas are under 1 MiB, with under 300 definitions nested
at most 13 levels deep."""

from __future__ import annotations

from typing import Any, Final

from ..model.errors import Problem, SchemaError
from .schema_walk import depth

MAX_SCHEMA_BYTES: Final = 32 << 20  # 32 MiB
# JSON nesting of the whole document. The validators and datamodel-code-generator recurse once or
# more per level; 64 keeps them well inside Python's default recursion limit.
MAX_SCHEMA_DEPTH: Final = 64
# datamodel-code-generator's time grows faster than linearly with the number of definitions
# (10,000 took minutes); real schemas have under 300.
MAX_DEFINITIONS: Final = 2000


def check_size(size: int, file: str) -> None:
    if size > MAX_SCHEMA_BYTES:
        mib = MAX_SCHEMA_BYTES >> 20
        msg = f"the file is larger than {mib} MiB; a protocol schema is far smaller"
        raise SchemaError([Problem(file, "", msg)])


def check_depth(doc: Any, file: str) -> None:
    found = depth(doc)
    if found > MAX_SCHEMA_DEPTH:
        msg = f"nested {found} levels deep; at most {MAX_SCHEMA_DEPTH} levels are supported"
        raise SchemaError([Problem(file, "", msg)])


def check_definitions(defs: dict[str, Any], file: str) -> None:
    if len(defs) > MAX_DEFINITIONS:
        msg = f"{len(defs)} definitions; at most {MAX_DEFINITIONS} are supported"
        raise SchemaError([Problem(file, "/$defs", msg)])


def too_deep(file: str) -> SchemaError:
    """What the JSON decoder's own recursion limit means to the user."""
    msg = f"nested too deeply to decode; at most {MAX_SCHEMA_DEPTH} levels are supported"
    return SchemaError([Problem(file, "", msg)])
