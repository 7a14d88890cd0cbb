"""Visit every subschema of a document (never data such as `const`, `enum` or `examples`).

Iterative, so a deeply nested document cannot exhaust the interpreter's stack.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

Path = tuple[str | int, ...]

# Keywords whose value is one subschema, a list of them, or a name -> subschema map.
_ONE = (
    "items",
    "additionalProperties",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
)
_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAP = ("properties", "patternProperties", "$defs", "dependentSchemas")


def subschemas(doc: dict[str, Any]) -> Iterator[tuple[Path, dict[str, Any]]]:
    """(path, schema) for the root's `$defs` entries and everything below them, depth first."""
    defs = doc.get("$defs")
    if not isinstance(defs, dict):
        return
    stack: list[tuple[Path, Any]] = [(("$defs", k), v) for k, v in reversed(defs.items())]
    while stack:
        path, node = stack.pop()
        if not isinstance(node, dict):
            continue
        yield path, node
        children: list[tuple[Path, Any]] = []
        for key in _ONE:
            if isinstance(node.get(key), dict):
                children.append(((*path, key), node[key]))
        for key in _LIST:
            if isinstance(node.get(key), list):
                children += [((*path, key, i), v) for i, v in enumerate(node[key])]
        for key in _MAP:
            if isinstance(node.get(key), dict):
                children += [((*path, key, k), v) for k, v in node[key].items()]
        stack += reversed(children)


def depth(node: Any) -> int:
    """How deeply `node` nests objects and arrays (a scalar is 0)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(node, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            stack += [(v, level + 1) for v in item.values()]
        elif isinstance(item, list):
            stack += [(v, level + 1) for v in item]
        else:
            continue
        deepest = max(deepest, level + 1)
    return deepest
