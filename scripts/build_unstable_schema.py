"""Build acp-codegen's unstable overlays (v2 and v1) from upstream's unstable schema files.

    python scripts/build_unstable_schema.py [--check]

Upstream publishes each protocol version twice: `schema.json` (stable) and
`schema.unstable.json` (stable plus the methods and fields it has not settled yet). The
difference between the two, less what our canonical schema already has, is what
`acp-codegen generate --unstable` adds; it is written as one overlay per version:

    schema/acp.unstable.schema.json     (on top of schema/acp.schema.json, v2)
    schema/acp.v1.unstable.schema.json  (on top of schema/acp.v1.schema.json, v1)

An overlay holds new definitions (`$defs`), new properties of existing definitions
(`x-add-properties`), new branches of existing unions (`x-add-branches`) and, for v2, the new
rows of the method table (`x-methods`). `codegen/acp_codegen/load/unstable.py` merges it and
marks every addition unstable. Upstream's words are dropped: `schema/unstable-descriptions.json`
gives ours, keyed `Def`, `Def.property` or `Def=value` (a branch of an enum); every new
definition must have one. Left out on purpose (the session-update variants belong to the stable
v2 work of issue 33; their merge rules come with it): the branches of `SessionUpdate` and what
only they use, but for v1's subagent updates (`KEPT_BRANCHES`: v2 has them in its canonical
schema, v1 only here). `--check` exits 1 when a file on disk differs from what this script
builds.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
UPSTREAM = REPO / "tests" / "fixtures" / "upstream"
OWN = REPO / "schema" / "unstable-descriptions.json"
# Our own table of what upstream made unstable after 2.4.0 (or shipping agents still send from
# older unstable files); docs/design.md cites each item's upstream definition.
AFTER = REPO / "schema" / "unstable-after-2.4.0.json"
VERSIONS = {
    2: ("sdk-2.4.0", REPO / "schema" / "acp.schema.json", "acp.unstable.schema.json"),
    1: ("v1-2.4.0", REPO / "schema" / "acp.v1.schema.json", "acp.v1.unstable.schema.json"),
}
LEFT_OUT_UNIONS = ("SessionUpdate",)  # see the docstring
# Branches of a left-out union the overlay of a version carries all the same: v1's subagents
# (a v1 client folds them by v2's merge rules; runtime/v1/children.py).
KEPT_BRANCHES = {
    1: {"SessionUpdate": ("subagent_update", "session_message", "session_message_chunk")}
}
ENVELOPES = {
    "AgentRequest",
    "AgentResponse",
    "AgentNotification",
    "ClientRequest",
    "ClientResponse",
    "ClientNotification",
}
FORMAT = 1
KEY_ORDER = ("title", "description")


def _strip(node: Any) -> Any:
    """`node` without upstream's words (a property named `description` stays)."""
    if isinstance(node, dict):
        return {
            k: ({p: _strip(s) for p, s in v.items()} if k == "properties" else _strip(v))
            for k, v in node.items()
            if k != "description"
        }
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


def _refs(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            found.add(ref.removeprefix("#/$defs/"))
        for value in node.values():
            found |= _refs(value)
    elif isinstance(node, list):
        for value in node:
            found |= _refs(value)
    return found


def _tag_of(branch: Any) -> tuple[str, str] | None:
    """(tag property, value) of a tagged union branch, or None (fallback, plain)."""
    for name, sub in (branch.get("properties") or {}).items() if isinstance(branch, dict) else ():
        if isinstance(sub, dict) and isinstance(sub.get("const"), str):
            return name, sub["const"]
    return None


def _branches(schema: Any) -> list[Any]:
    if not isinstance(schema, dict):
        return []
    return list(schema.get("anyOf") or schema.get("oneOf") or [])


def _ordered(schema: dict[str, Any]) -> dict[str, Any]:
    first = {k: schema[k] for k in KEY_ORDER if k in schema}
    return {**first, **{k: v for k, v in schema.items() if k not in first}}


def _titled(name: str, schema: dict[str, Any], own: dict[str, str]) -> dict[str, Any]:
    """A new definition in our style: its name as title, our description, `x-union` on a
    tagged union, class-name titles on its tagged branches, our words on its properties."""
    out = dict(schema)
    out["title"] = name
    if name not in own:
        raise SystemExit(f"{OWN.name}: no description for new definition {name}")
    out["description"] = own[name]
    for prop, sub in (out.get("properties") or {}).items():
        text = own.get(f"{name}.{prop}", own.get(prop) if prop == "_meta" else None)
        if text is not None and isinstance(sub, dict):
            out["properties"][prop] = {"description": text, **sub}
    branches = _branches(out)
    tags = {t[0] for b in branches if (t := _tag_of(b)) is not None}
    if len(tags) == 1:
        out["x-union"] = {"tag": tags.pop()}
    for i, branch in enumerate(branches):
        if not isinstance(branch, dict):
            continue
        refs = [r for r in _refs(branch.get("allOf")) if r]
        if _tag_of(branch) is not None and len(refs) == 1:
            branches[i] = {"title": refs[0], **branch}
        elif isinstance(branch.get("const"), str) and f"{name}={branch['const']}" in own:
            branches[i] = {"description": own[f"{name}={branch['const']}"], **branch}
    return _ordered(out)


def _branch(branch: dict[str, Any]) -> dict[str, Any]:
    refs = sorted(_refs(branch.get("allOf")))
    return {"title": refs[0], **branch} if len(refs) == 1 else branch


def build(version: int) -> bytes:
    folder, canonical_path, _ = VERSIONS[version]
    stable = _strip(json.loads((UPSTREAM / folder / "schema.json").read_text("utf-8"))["$defs"])
    unstable = _strip(
        json.loads((UPSTREAM / folder / "schema.unstable.json").read_text("utf-8"))["$defs"]
    )
    ours = json.loads(canonical_path.read_text("utf-8"))["$defs"]
    own: dict[str, str] = json.loads(OWN.read_text("utf-8"))
    own["_meta"] = ours["Implementation"]["properties"]["_meta"]["description"]

    properties: dict[str, dict[str, Any]] = {}
    branches: dict[str, list[Any]] = {}
    kept = KEPT_BRANCHES.get(version, {})
    for name, schema in unstable.items():
        if name not in stable or name in ENVELOPES or name not in ours:
            continue
        if name in LEFT_OUT_UNIONS:
            for branch in _branches(schema):
                tag = _tag_of(branch)
                if tag is not None and tag[1] in kept.get(name, ()):
                    branches.setdefault(name, []).append(_branch(branch))
            continue
        old_props = stable[name].get("properties") or {}
        for prop, sub in (schema.get("properties") or {}).items():
            if prop not in old_props and prop not in (ours[name].get("properties") or {}):
                text = own.get(f"{name}.{prop}")
                properties.setdefault(name, {})[prop] = (
                    {"description": text, **sub} if text else sub
                )
        old_tags = {_tag_of(b) for b in _branches(stable[name])} | {
            _tag_of(b) for b in _branches(ours[name])
        }
        for branch in _branches(schema):
            tag = _tag_of(branch)
            if tag is not None and tag not in old_tags:
                branches.setdefault(name, []).append(_branch(branch))

    methods = [
        n for n, s in unstable.items() if n not in stable and n not in ours and "x-method" in s
    ]
    wanted: set[str] = set(methods) | _refs(properties) | _refs(branches)
    new_defs: dict[str, Any] = {}
    later_defs = _add_after_240(version, properties, branches, own)
    while wanted:
        name = wanted.pop()
        if name in new_defs or name in ours or name not in unstable or name in stable:
            continue
        new_defs[name] = unstable[name]
        wanted |= _refs(unstable[name])
    new_defs.update(later_defs)
    for name, props in properties.items():
        for prop, sub in props.items():
            text = own.get(f"{name}.{prop}")
            if text and "description" not in sub:
                props[prop] = {"description": text, **sub}
    defs = {n: _titled(n, new_defs[n], own) for n in sorted(new_defs)}

    doc: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"AgentClientProtocolV{version}Unstable",
        "description": (
            f"acp-codegen's overlay of the unstable ACP v{version} surface: what upstream's "
            "unstable schema adds to the stable one, in our words. Written by "
            "scripts/build_unstable_schema.py; merged by `acp-codegen generate --unstable`."
        ),
        "x-acp-unstable": {"format": FORMAT, "protocolVersion": version, "from": folder},
    }
    if version >= 2:
        doc["x-methods"] = _method_rows(defs)
    doc["x-add-properties"] = {n: dict(sorted(p.items())) for n, p in sorted(properties.items())}
    doc["x-add-branches"] = dict(sorted(branches.items()))
    doc["$defs"] = defs
    return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _add_after_240(
    version: int,
    properties: dict[str, dict[str, Any]],
    branches: dict[str, list[Any]],
    own: dict[str, str],
) -> dict[str, Any]:
    """Fold our after-2.4.0 table (`AFTER`: items for every version, then this version's) into
    `properties` and `branches`; return its new definitions. A v2 branch takes its merge rule
    from the table's `x-merge` (v2 session updates must each have one)."""
    table = json.loads(AFTER.read_text("utf-8"))
    rules: dict[str, Any] = table.get(str(version), {}).get("x-merge", {})
    defs: dict[str, Any] = {}
    for part in (table["both"], table.get(str(version), {})):
        defs.update(part.get("$defs", {}))
        for name, props in part.get("x-add-properties", {}).items():
            properties.setdefault(name, {}).update(props)
        for name, new in part.get("x-add-branches", {}).items():
            for branch in new:
                tag = _tag_of(branch)
                value = tag[1] if tag is not None else ""
                words = {"description": own[f"{name}={value}"]} if f"{name}={value}" in own else {}
                rule = {"x-merge": rules[value]} if value in rules else {}
                branches.setdefault(name, []).append({**words, **branch, **rule})
    return defs


def _method_rows(defs: dict[str, Any]) -> list[dict[str, Any]]:
    """The method table rows of the new methods, in our table's shape (a wire name that is a
    request one way and a notification the other way has a row of each kind)."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for name, schema in defs.items():
        if "x-method" not in schema:
            continue
        kind = "notification" if name.endswith("Notification") else "request"
        row = rows.setdefault(
            (schema["x-method"], kind),
            {"method": schema["x-method"], "side": schema["x-side"], "kind": kind},
        )
        if name.endswith("Response"):
            row["result"] = name
        else:
            row["params"] = name
    out = []
    for (_, kind), row in sorted(rows.items()):
        full = {"method": row["method"], "side": row["side"], "kind": kind}
        full["params"] = row["params"]
        full["result"] = row.get("result") if kind == "request" else None
        out.append(full)
    return out


def main(argv: list[str]) -> int:
    stale = 0
    for version, (_, _, out_name) in VERSIONS.items():
        out = REPO / "schema" / out_name
        data = build(version)
        current = out.read_bytes() if out.is_file() else None
        if current == data:
            print(f"schema/{out_name}: up to date")
        elif "--check" in argv:
            print(f"schema/{out_name}: out of date; run python scripts/build_unstable_schema.py")
            stale = 1
        else:
            out.write_bytes(data)
            print(f"schema/{out_name}: written")
    return stale


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
