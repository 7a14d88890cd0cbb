"""Build acp-codegen's canonical ACP v1 schema from upstream's newest v1 file.

    python scripts/build_v1_schema.py [--check]

`schema/acp.v1.schema.json` is upstream's v1 protocol (the structure of
`tests/fixtures/upstream/v1-2.4.0/schema.json`, which is data) in our own words: every upstream
description is dropped; a definition, property or variant whose name also exists in our v2
canonical schema (`schema/acp.schema.json`) takes our v2 text, and `schema/v1-descriptions.json`
gives our own texts for what v2 lacks or means otherwise (it wins over v2's); `_meta` and
`sessionId` properties left without text get the common ones. The structure is never
changed, so `tests/test_v1_schema.py` can check it is the same protocol as upstream's file.
`--check` exits 1 when the file on disk differs from what this script builds.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
UPSTREAM = REPO / "tests" / "fixtures" / "upstream" / "v1-2.4.0" / "schema.json"
V2 = REPO / "schema" / "acp.schema.json"
OWN = REPO / "schema" / "v1-descriptions.json"
OUT = REPO / "schema" / "acp.v1.schema.json"
TITLE = "Agent Client Protocol v1"
DESCRIPTION = (
    "Canonical schema of the Agent Client Protocol, version 1 (the newest published v1): every "
    "message type, method and session update of the protocol today's editors speak. Messages are "
    "JSON-RPC 2.0. acp-codegen generates it as the `v1` subpackage of the bindings."
)
BRANCH_KEYS = ("oneOf", "anyOf", "allOf")


def _signature(branch: Any) -> str | None:
    """What identifies a union branch across the two schemas: its title, its constant, the
    constant its tag property holds, or the definition it refers to."""
    if not isinstance(branch, dict):
        return None
    for key in ("title", "const", "$ref"):
        if isinstance(branch.get(key), str):
            return f"{key}={branch[key]}"
    for name, sub in (branch.get("properties") or {}).items():
        if isinstance(sub, dict) and "const" in sub:
            return f"{name}={sub['const']}"
    return None


def _strip(node: Any) -> Any:
    """`node` without upstream's words (descriptions; titles are names and stay)."""
    if isinstance(node, dict):
        return {k: _strip_key(k, v) for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


def _strip_key(key: str, value: Any) -> Any:
    """A `properties` map is keyed by field names, not keywords: a field named `description`
    (`AvailableCommand.description`, ...) is protocol and stays; only its words go."""
    if key == "properties" and isinstance(value, dict):
        return {name: _strip(sub) for name, sub in value.items()}
    return _strip(value)


def _borrow(node: Any, ours: Any) -> None:
    """Copy our v2 descriptions onto `node` where `ours` is the same place in the v2 schema."""
    if not (isinstance(node, dict) and isinstance(ours, dict)):
        return
    if isinstance(ours.get("description"), str):
        node["description"] = ours["description"]
    props, our_props = node.get("properties"), ours.get("properties")
    if isinstance(props, dict) and isinstance(our_props, dict):
        for name, sub in props.items():
            _borrow(sub, our_props.get(name))
    for key in BRANCH_KEYS:
        branches, our_branches = node.get(key), ours.get(key)
        if isinstance(branches, list) and isinstance(our_branches, list):
            by_sig = {_signature(b): b for b in our_branches if _signature(b) is not None}
            for branch in branches:
                _borrow(branch, by_sig.get(_signature(branch)))
    for key in ("items", "additionalProperties"):
        _borrow(node.get(key), ours.get(key))


def _own(defs: dict[str, Any], own: dict[str, str], meta_text: str) -> None:
    """Our short texts for what v2 lacks (or says otherwise), keyed `Def` or `Def.property`;
    then every `_meta` and `sessionId` property still without words gets the common ones."""
    for key, text in own.items():
        name, _, prop = key.partition(".")
        target = defs[name] if not prop else defs[name]["properties"][prop]
        target["description"] = text
    for schema in defs.values():
        for name, sub in (schema.get("properties") or {}).items():
            if isinstance(sub, dict) and "description" not in sub:
                if name == "_meta":
                    sub["description"] = meta_text
                elif name == "sessionId":
                    sub["description"] = "Session this message belongs to."


def build() -> bytes:
    upstream = json.loads(UPSTREAM.read_text(encoding="utf-8"))
    v2_defs = json.loads(V2.read_text(encoding="utf-8"))["$defs"]
    own = json.loads(OWN.read_text(encoding="utf-8")) if OWN.is_file() else {}
    doc = _strip(upstream)
    doc = {
        "$schema": doc["$schema"],
        "title": "AgentClientProtocolV1",
        "description": DESCRIPTION,
        "x-acp": {"protocolVersion": 1, "title": TITLE},
        **{k: v for k, v in doc.items() if k not in ("$schema", "title")},
    }
    for name, schema in doc["$defs"].items():
        _borrow(schema, v2_defs.get(name))
    meta_text = v2_defs["Implementation"]["properties"]["_meta"]["description"]
    _own(doc["$defs"], own, meta_text)
    return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def main(argv: list[str]) -> int:
    data = build()
    current = OUT.read_bytes() if OUT.is_file() else None
    if current == data:
        print(f"{OUT.relative_to(REPO)}: up to date")
        return 0
    if "--check" in argv:
        print(f"{OUT.relative_to(REPO)}: out of date; run python scripts/build_v1_schema.py")
        return 1
    OUT.write_bytes(data)
    print(f"{OUT.relative_to(REPO)}: written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
