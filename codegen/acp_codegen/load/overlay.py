"""Overlays: our merge rules and patch fields, applied to a schema that lacks them.

Upstream's published schema files describe the same `session/update` variants as ours but carry
no `x-merge` / `x-tristate`. An overlay file holds those annotations keyed by update tag and type
name, so any such input gets the whole session-state engine:

    {
      "acpCodegenOverlay": 1,
      "merge": {"<update tag>": <x-merge rule>, ...},
      "tristate": {"<type name>": ["<wire property>", ...], ...}
    }

`overlays/acp-v2.json` is derived from `schema/acp.schema.json` (`scripts/update_overlay.py`
writes it, a test keeps the two equal). It applies automatically to a v2 input without `x-merge`;
`--overlay FILE` supplies another. Applying works on a copy of the document: a rule goes on the
update-union branch with that tag, a patch marker on the named property, each only where it fits;
what is left out is named in a note.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported on first use: most runs load no overlay
    from jsonschema import Draft202012Validator

from ..model.errors import Problem, SchemaError, pointer
from ..model.unions import find_union, ref_name
from ..paths import OVERLAY_DIR
from .validate import accepts_null
from .x_keywords import meta_schema

FORMAT_VERSION = 1
V2_OVERLAY = OVERLAY_DIR / "acp-v2.json"
V1_OVERLAY = OVERLAY_DIR / "acp-v1.json"  # hand-written: v1 has no canonical x-merge source
UPDATE_UNION = "SessionUpdate"


@dataclass(frozen=True, slots=True)
class Overlay:
    name: str  # how notes refer to it
    merge: dict[str, dict[str, Any]]  # update tag -> x-merge rule
    tristate: dict[str, list[str]]  # type name -> patch properties


@cache
def _validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    merge_rule = meta_schema()["$defs"]
    schema = {
        "type": "object",
        "properties": {
            "acpCodegenOverlay": {"const": FORMAT_VERSION},
            "description": {"type": "string"},
            "merge": {"type": "object", "additionalProperties": {"$ref": "#/$defs/merge"}},
            "tristate": {
                "type": "object",
                "additionalProperties": {
                    "type": "array",
                    "items": {"type": "string", "minLength": 1},
                    "uniqueItems": True,
                },
            },
        },
        "required": ["acpCodegenOverlay"],
        "additionalProperties": False,
        "$defs": {"merge": merge_rule["merge"], "pointer": merge_rule["pointer"]},
    }
    return Draft202012Validator(schema)


def load_overlay(path: Path, display_name: str | None = None) -> Overlay:
    """Read and check an overlay file; every problem names the file and a JSON pointer."""
    name = display_name or str(path)
    try:
        doc = json.loads(path.read_bytes())
    except OSError as exc:
        raise SchemaError([Problem(name, "", f"cannot read overlay: {exc.strerror}")]) from exc
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise SchemaError([Problem(name, "", f"not valid JSON at {where}: {exc.msg}")]) from exc
    except UnicodeDecodeError as exc:
        raise SchemaError([Problem(name, "", f"not UTF-8 text: {exc}")]) from exc
    problems = [
        Problem(name, pointer(*err.absolute_path), f"overlay: {err.message}")
        for err in _validator().iter_errors(doc)
    ]
    if problems:
        raise SchemaError(problems)
    return Overlay(name, dict(doc.get("merge") or {}), dict(doc.get("tristate") or {}))


def overlay_from_schema(doc: dict[str, Any]) -> dict[str, Any]:
    """The overlay document holding `doc`'s own merge rules and patch fields."""
    defs: dict[str, Any] = doc["$defs"]
    union_name = doc.get("x-update-union", UPDATE_UNION)
    shape = find_union(union_name, defs[union_name], "")
    merge: dict[str, Any] = {}
    if shape is not None:
        for b in shape.branches:
            rule = defs[union_name][shape.key][b.index].get("x-merge")
            if b.tag is not None and isinstance(rule, dict):
                merge[b.tag] = rule
    tristate = {
        name: sorted(
            p for p, sub in props.items() if isinstance(sub, dict) and sub.get("x-tristate")
        )
        for name in sorted(defs)
        if isinstance(props := defs[name].get("properties"), dict)
    }
    return {
        "acpCodegenOverlay": FORMAT_VERSION,
        "description": "Merge rules (by session-update tag) and patch fields (by type name) of "
        "acp-codegen's canonical ACP v2 schema; written by scripts/update_overlay.py.",
        "merge": dict(sorted(merge.items())),
        "tristate": {k: v for k, v in tristate.items() if v},
    }


def has_merge_rules(doc: dict[str, Any]) -> bool:
    """Whether any branch of the document's session-update union carries `x-merge`."""
    union_name = doc.get("x-update-union", UPDATE_UNION)
    union = doc["$defs"].get(union_name)
    branches = (union.get("anyOf") or union.get("oneOf") or []) if isinstance(union, dict) else []
    return any(isinstance(b, dict) and "x-merge" in b for b in branches)


def apply_overlay(
    doc: dict[str, Any], overlay: Overlay, file: str, read_as_v2: Mapping[str, str] | None = None
) -> tuple[dict[str, Any], list[str]]:
    """A copy of `doc` annotated by `overlay`, and notes naming what did not fit.

    `read_as_v2`: the update tags without a rule here that the package's Client folds all the
    same, reading them as v2 updates (a v1 schema beside v2), by tag -> what they become."""
    out = copy.deepcopy(doc)
    defs: dict[str, Any] = out["$defs"]
    notes: list[str] = []
    union_name = out.get("x-update-union", UPDATE_UNION)
    union = defs.get(union_name)
    shape = find_union(union_name, union, file) if isinstance(union, dict) else None
    if shape is None or not isinstance(union, dict):
        notes.append(
            f"{file}: no {union_name} union; overlay {overlay.name} has nothing to annotate"
        )
        return out, notes
    unruled, misfit = [], []
    for b in shape.branches:
        if b.fallback or b.tag is None:
            continue
        branch = union[shape.key][b.index]
        rule = overlay.merge.get(b.tag)
        missing = [ptr for ptr in _rule_pointers(rule) if not _resolves(ptr, branch, defs)]
        if rule is not None and not missing:
            branch["x-merge"] = copy.deepcopy(rule)
        elif rule is not None:
            misfit.append(f"{b.tag} ({', '.join(missing)})")
        elif "x-merge" not in branch:
            unruled.append(b.tag)
    if misfit:
        notes.append(
            f"{file}: overlay {overlay.name} rules left out, their pointers name no property of "
            f"the variant here: {'; '.join(misfit)}; SessionState keeps those updates under "
            "`unknown`"
        )
    read = [tag for tag in unruled if tag in (read_as_v2 or {})]
    if read:  # the note must not say they are lost: the Client, the user's reader, folds them
        what = "; ".join(f"{tag} as {(read_as_v2 or {})[tag]}" for tag in read)
        notes.append(
            f"{file}: overlay {overlay.name} has no merge rule for {', '.join(read)}; the "
            f"package's Client folds them all the same ({what}), and only this schema's own "
            "SessionState, fed them directly, keeps them under `unknown`"
        )
    if rest := [tag for tag in unruled if tag not in read]:
        notes.append(
            f"{file}: overlay {overlay.name} has no merge rule for {', '.join(rest)}; "
            "SessionState keeps those updates under `unknown`"
        )
    skipped = []
    for type_name, props in sorted(overlay.tristate.items()):
        schema = defs.get(type_name)
        for prop in props:
            sub = (schema.get("properties") or {}).get(prop) if isinstance(schema, dict) else None
            required = schema.get("required") or [] if isinstance(schema, dict) else []
            if isinstance(sub, dict) and prop not in required and accepts_null(sub, defs):
                sub["x-tristate"] = True
            else:
                skipped.append(f"{type_name}.{prop}")
    if skipped:
        notes.append(
            f"{file}: overlay {overlay.name} patch fields left out (absent, required or not "
            f"nullable here): {', '.join(skipped)}"
        )
    return out, notes


def _rule_pointers(rule: dict[str, Any] | None) -> list[str]:
    """The pointers into the update object a merge rule reads."""
    if rule is None:
        return []
    pointers = [rule[k] for k in ("key", "from") if k in rule]
    if rule.get("op") == "append" and "from" not in rule and "field" in rule:
        pointers.append("/" + rule["field"])  # a log entry (no field) is the update itself
    return pointers


def _resolves(ptr: str, schema: Any, defs: dict[str, Any]) -> bool:
    """Whether each step of `ptr` names a property the schema (or what it merges) declares."""
    node = schema
    for part in ptr.split("/")[1:]:
        props = _properties(node, defs, 0)
        name = part.replace("~1", "/").replace("~0", "~")
        if name not in props:
            return False
        node = props[name]
    return True


def _properties(schema: Any, defs: dict[str, Any], depth: int) -> dict[str, Any]:
    """Properties of `schema` including those merged by `$ref`/`allOf` and its alternatives."""
    if not isinstance(schema, dict) or depth > 8:  # deep enough for any real schema, no cycles
        return {}
    found: dict[str, Any] = {}
    if (name := ref_name(schema)) is not None:
        found.update(_properties(defs.get(name), defs, depth + 1))
    for part in schema.get("allOf") or []:
        found.update(_properties(part, defs, depth + 1))
    for alt in schema.get("anyOf") or schema.get("oneOf") or []:
        for key, value in _properties(alt, defs, depth + 1).items():
            found.setdefault(key, value)
    found.update(schema.get("properties") or {})
    return found
