"""The opt-in unstable surface: our unstable overlay merged onto a schema document.

`acp-codegen generate --unstable` (or `unstable = true` in `[tool.acp-codegen]`) reads, beside
the canonical schema of each version, its overlay (`schema/acp.unstable.schema.json`,
`schema/acp.v1.unstable.schema.json`; `scripts/build_unstable_schema.py` writes them from
upstream's unstable files). An overlay only adds, never changes:

    {
      "x-acp-unstable": {"format": 1, "protocolVersion": <int>, ...},
      "x-methods": [<method table rows>],                 (a base with a method table)
      "x-add-properties": {"<Def>": {"<property>": <schema>}},
      "x-add-branches": {"<union Def>": [<tagged branch>]},
      "$defs": {"<new Def>": <schema>}
    }

Every addition is marked: `x-unstable: true` and a description that starts with `MARK`, so the
models' docstrings, the typed handlers and proxies and PROTOCOL.md all say so. Something the
base already has is an error naming the overlay: rebuild it (the base moved on).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from ..model.errors import Problem, SchemaError, pointer
from ..paths import BUNDLED_UNSTABLE_SCHEMA, BUNDLED_V1_UNSTABLE_SCHEMA
from .newer import protocol_version

FORMAT = 1
MARK = "Unstable (generated with `--unstable`; may change or go away)."
UNSTABLE = "x-unstable"
REBUILD = "rebuild it: python scripts/build_unstable_schema.py"
OVERLAYS = {2: BUNDLED_UNSTABLE_SCHEMA, 1: BUNDLED_V1_UNSTABLE_SCHEMA}


def overlay_for(version: int | None) -> Path | None:
    """The bundled unstable overlay of a protocol version, if we have one."""
    return OVERLAYS.get(version or 0)


def unstable_input_bytes(raw: bytes) -> bytes:
    """What a package generated with `--unstable` fingerprints for the schema `raw`: its bytes,
    then its version's overlay's (as `pipeline.with_unstable` hands the parser)."""
    path = overlay_for(protocol_version(json.loads(raw))[0])
    return raw if path is None else raw + path.read_bytes()


def marked(node: dict[str, Any]) -> dict[str, Any]:
    """`node` flagged unstable, its description (if any) after the mark."""
    text = node.get("description")
    words = f"{MARK} {text}" if isinstance(text, str) and text else MARK
    return {
        "description": words,
        UNSTABLE: True,
        **{k: v for k, v in node.items() if k != "description"},
    }


def merge_unstable(doc: dict[str, Any], path: Path, file: str) -> tuple[dict[str, Any], bytes]:
    """A copy of `doc` with the overlay at `path` merged in, and the overlay's bytes (they join
    the schema's in the package's fingerprint)."""
    name = path.name
    raw = path.read_bytes()
    overlay = json.loads(raw)
    head = overlay.get("x-acp-unstable")
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise SchemaError([Problem(name, pointer("x-acp-unstable"), "not an unstable overlay")])
    out = copy.deepcopy(doc)
    defs: dict[str, Any] = out["$defs"]
    problems: list[Problem] = []

    def clash(at: str, what: str) -> None:
        problems.append(Problem(name, at, f"{file} already has {what}; {REBUILD}"))

    for def_name, schema in overlay.get("$defs", {}).items():
        if def_name in defs:
            clash(pointer("$defs", def_name), f"definition {def_name}")
        else:
            defs[def_name] = marked(schema)
    for def_name, props in overlay.get("x-add-properties", {}).items():
        if not isinstance(defs.get(def_name), dict):
            at = pointer("x-add-properties", def_name)
            problems.append(Problem(name, at, f"{file} has no definition {def_name}; {REBUILD}"))
            continue
        target = defs[def_name].setdefault("properties", {})
        for prop, schema in props.items():
            if prop in target:
                clash(pointer("x-add-properties", def_name, prop), f"{def_name}.{prop}")
            else:
                target[prop] = marked(schema)
    for def_name, branches in overlay.get("x-add-branches", {}).items():
        problems += _add_branches(defs.get(def_name), def_name, branches, name, file)
    rows = overlay.get("x-methods")
    if isinstance(rows, list) and isinstance(out.get("x-methods"), list):
        known = {(r["method"], r["kind"]) for r in out["x-methods"]}
        for i, row in enumerate(rows):
            if (row["method"], row["kind"]) in known:
                clash(pointer("x-methods", i), f"method {row['method']} ({row['kind']})")
        out["x-methods"] = [*out["x-methods"], *rows]
    if problems:
        raise SchemaError(problems)
    return out, raw


def _add_branches(
    union: Any, union_name: str, branches: list[Any], name: str, file: str
) -> list[Problem]:
    """Put each new tagged branch before the union's open fallback (`title: other`) and add its
    tag to the fallback's exclusions, so unknown tags still land there and only there."""
    at = pointer("x-add-branches", union_name)
    key = "anyOf" if isinstance(union, dict) and "anyOf" in union else "oneOf"
    existing = union.get(key) if isinstance(union, dict) else None
    if not isinstance(existing, list):
        return [Problem(name, at, f"{file} has no union {union_name}; {REBUILD}")]
    fallback = next(
        (b for b in existing if isinstance(b, dict) and b.get("title") == "other"), None
    )
    for branch in branches:
        tag, value = next((p, s["const"]) for p, s in branch["properties"].items() if "const" in s)
        if any(
            isinstance(b, dict) and (b.get("properties") or {}).get(tag, {}).get("const") == value
            for b in existing
        ):
            return [Problem(name, at, f"{file} already has {union_name} {tag}={value}; {REBUILD}")]
        spot = existing.index(fallback) if fallback is not None else len(existing)
        existing.insert(spot, marked(branch))
        if fallback is not None and isinstance(fallback.get("not"), dict):
            fallback["not"].setdefault("anyOf", []).append(
                {
                    "type": "object",
                    "properties": {tag: {"type": "string", "const": value}},
                    "required": [tag],
                }
            )
    return []
