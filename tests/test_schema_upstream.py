"""Cross-check schema/acp.schema.json against upstream's published ACP v2 schema.

Structure and names must match upstream's latest published v2
(`tests/fixtures/upstream/sdk-2.4.0/`), plus the v2 items upstream defined after it (their
entries' reason: "upstream after 2.4.0, <url>").
Every deliberate difference is listed in tests/upstream_differences.json with a reason. The test
fails on a difference that is not listed, and on a listed difference that no longer exists.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
OURS_PATH = REPO / "schema" / "acp.schema.json"
TABLE_PATH = REPO / "tests" / "upstream_differences.json"
UPSTREAM_DIR = REPO / "tests" / "fixtures" / "upstream" / "sdk-2.4.0"

Key = tuple[str, str | None, str]  # (def, property or None, aspect)

# Keywords that only annotate; they never change which documents are valid.
ANNOTATIONS = {
    "title",
    "description",
    "x-tristate",
    "x-merge",
    "x-union",
    "x-method",
    "x-side",
    "x-deserialize-default-on-error",
    "x-deserialize-skip-invalid-items",
    "x-docs-ignore",
}
# Value keywords compared one by one.
CONSTRAINTS = (
    "format",
    "const",
    "enum",
    "contentEncoding",
    "pattern",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "default",
)
NULL = {"type": "null"}


# ---------------------------------------------------------------- normalisation


def ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def nullable_inner(s: dict[str, Any]) -> dict[str, Any] | None:
    """The non-null branch of an `anyOf: [X, {"type": "null"}]` form, else None."""
    branches = s.get("anyOf")
    if isinstance(branches, list) and len(branches) == 2 and NULL in branches:
        return next(b for b in branches if b != NULL)
    return None


def shape(s: Any) -> Any:
    """Type of a schema with the spelling normalised.

    `type` lists, the nullable `anyOf` form and `allOf: [{$ref}]` wrappers all reduce to
    `{"types", "nullable", "ref", "items", "values"}`.
    """
    if not isinstance(s, dict):
        return s
    s = {k: v for k, v in s.items() if k not in ANNOTATIONS}
    allof = s.get("allOf")
    if isinstance(allof, list) and len(allof) == 1 and list(allof[0]) == ["$ref"]:
        s.pop("allOf")
        s.setdefault("$ref", allof[0]["$ref"])
    inner = nullable_inner(s)
    if inner is not None:
        rest = {k: v for k, v in s.items() if k != "anyOf"}
        out = shape({**rest, **inner})
        out["nullable"] = True
        return out
    t = s.get("type")
    types = {t} if isinstance(t, str) else set(t or ())
    out: dict[str, Any] = {"types": sorted(types - {"null"}), "nullable": "null" in types}
    if "$ref" in s:
        out["ref"] = ref_name(s["$ref"])
    if isinstance(s.get("items"), dict):
        out["items"] = shape(s["items"])
    if isinstance(s.get("additionalProperties"), dict):
        out["values"] = shape(s["additionalProperties"])
    return out


def constraints(s: Any, prefix: str = "") -> dict[str, Any]:
    """Value keywords of a property schema, looking through the nullable form and into items."""
    out: dict[str, Any] = {}
    if not isinstance(s, dict):
        return out
    for kw in CONSTRAINTS:
        if kw in s:
            out[prefix + kw] = s[kw]
    if isinstance(s.get("additionalProperties"), bool):
        out[prefix + "additionalProperties"] = s["additionalProperties"]
    inner = nullable_inner(s)
    if inner is not None:
        out.update(constraints(inner, prefix))
    if isinstance(s.get("items"), dict):
        out.update(constraints(s["items"], prefix + "items."))
    return out


def tag_const(branch: dict[str, Any]) -> tuple[str, Any] | None:
    for name, prop in branch.get("properties", {}).items():
        if isinstance(prop, dict) and "const" in prop:
            return name, prop["const"]
    return None


def branches_of(d: dict[str, Any]) -> list[dict[str, Any]]:
    return list(d.get("anyOf") or d.get("oneOf") or [])


def classify(d: dict[str, Any]) -> str:
    branches = branches_of(d)
    if branches and any(tag_const(b) for b in branches):
        return "tagged-union"
    if (
        branches
        and all(
            "const" in b
            or (
                "properties" not in b
                and "$ref" not in b
                and "allOf" not in b
                and "anyOf" not in b
                and "type" in b
            )
            for b in branches
        )
        and any("const" in b for b in branches)
    ):
        return "enum"
    if branches and nullable_inner(d) is None:
        return "object+untagged" if "properties" in d else "untagged-union"
    if "properties" in d or d.get("type") == "object":
        return "object"
    if "type" in d:
        return "alias"
    return "any"


# ---------------------------------------------------------------- facts


def object_facts(
    name: str, prefix: str, s: dict[str, Any], facts: dict[Key, Any], skip: str | None = None
) -> None:
    required = set(s.get("required", []))
    props = s.get("properties", {})
    for prop, ps in props.items():
        if prop == skip:
            continue
        label = prefix + prop
        facts[(name, label, "present")] = True
        facts[(name, label, "required")] = prop in required
        facts[(name, label, "type")] = shape(ps)
        for kw, v in constraints(ps).items():
            facts[(name, label, kw)] = v
    for prop in required - set(props) - {skip}:
        facts[(name, prefix + prop, "required")] = True
    for kw in ("additionalProperties", "unevaluatedProperties"):
        if kw in s:
            v = s[kw]
            facts[(name, prefix or None, kw)] = v if isinstance(v, bool) else shape(v)


def untagged_facts(name: str, label: str | None, s: dict[str, Any], facts: dict[Key, Any]) -> None:
    reps = []
    for b in branches_of(s):
        reps.append(json.dumps({"shape": shape(b), "constraints": constraints(b)}, sort_keys=True))
    facts[(name, label, "untagged_branches")] = sorted(reps)


def def_facts(name: str, d: dict[str, Any]) -> dict[Key, Any]:
    facts: dict[Key, Any] = {}
    kind = classify(d)
    facts[(name, None, "kind")] = kind
    for kw in ("x-method", "x-side"):
        if kw in d:
            facts[(name, None, kw)] = d[kw]
    t = d.get("type")
    if t is not None:
        facts[(name, None, "type")] = sorted([t] if isinstance(t, str) else t)
    for kw in ("format", "minimum", "maximum", "pattern", "contentEncoding"):
        if kw in d:
            facts[(name, None, kw)] = d[kw]
    object_facts(name, "", d, facts)

    branches = branches_of(d)
    if kind == "tagged-union":
        tag = next(tc[0] for b in branches if (tc := tag_const(b)))
        facts[(name, None, "tag")] = tag
        known: list[Any] = []
        fallback = None
        untagged = []
        for b in branches:
            tc = tag_const(b)
            if tc is not None:
                value = tc[1]
                known.append(value)
                label = f"[{value}]"
                facts[(name, label, "payload")] = sorted(
                    ref_name(a["$ref"]) for a in b.get("allOf", []) if "$ref" in a
                )
                object_facts(name, label + ".", b, facts, skip=tag)
                if "anyOf" in b:
                    untagged_facts(name, label, b, facts)
            elif tag in b.get("properties", {}) and tag in b.get("required", []):
                fallback = b
            else:
                untagged.append(b)
        facts[(name, None, "tag_values")] = sorted(known, key=repr)
        facts[(name, None, "open")] = fallback is not None
        if fallback is not None:
            facts[(name, None, "fallback_title")] = fallback.get("title")
            excluded = [
                tc[1] for n in fallback.get("not", {}).get("anyOf", []) if (tc := tag_const(n))
            ]
            facts[(name, None, "fallback_not")] = sorted(excluded, key=repr)
            object_facts(name, "[other].", fallback, facts, skip=tag)
            if "anyOf" in fallback:
                untagged_facts(name, "[other]", fallback, facts)
        if untagged:
            untagged_facts(name, None, {"anyOf": untagged}, facts)
    elif kind == "enum":
        values = [b["const"] for b in branches if "const" in b]
        fallbacks = [b for b in branches if "const" not in b]
        facts[(name, None, "enum_values")] = sorted(values, key=repr)
        facts[(name, None, "open")] = bool(fallbacks)
        if fallbacks:
            facts[(name, None, "fallback_title")] = fallbacks[0].get("title")
        facts[(name, None, "enum_branch_types")] = sorted(
            {json.dumps([shape(b)["types"], b.get("format")]) for b in branches}
        )
    elif kind in ("untagged-union", "object+untagged"):
        untagged_facts(name, None, d, facts)
    return facts


def schema_keywords(s: Any, acc: set[str]) -> set[str]:
    """Every keyword used in schema objects (property names and $defs names excluded)."""
    if isinstance(s, dict):
        for k, v in s.items():
            acc.add(k)
            if k in ("properties", "$defs"):
                for sub in v.values():
                    schema_keywords(sub, acc)
            elif k in ("anyOf", "allOf", "oneOf"):
                for sub in v:
                    schema_keywords(sub, acc)
            elif k in ("not", "items", "additionalProperties"):
                schema_keywords(v, acc)
    return acc


def upstream_methods(up: dict[str, Any], meta: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Upstream's methods from its `x-method`/`x-side` annotations, checked against meta.json's
    tables where the release ships one (the npm package does not)."""
    sides = {"agentMethods": "agent", "clientMethods": "client", "protocolMethods": "protocol"}
    meta_side = {
        wire: side for table, side in sides.items() for wire in (meta or {}).get(table, {}).values()
    }
    rows: dict[str, dict[str, Any]] = {}
    for name, d in up["$defs"].items():
        method = d.get("x-method")
        if method is None:
            continue
        row = rows.setdefault(method, {"side": set(), "params": None, "result": None})
        row["side"].add(d["x-side"])
        if name.endswith("Response"):
            row["result"] = name
        else:
            row["params"] = name
    out = {}
    for method, row in rows.items():
        (side,) = row["side"]
        assert meta is None or meta_side.get(method) == side, f"meta.json disagrees on {method}"
        kind = "notification" if row["params"].endswith("Notification") else "request"
        out[method] = {"side": side, "kind": kind, "params": row["params"], "result": row["result"]}
    assert meta is None or set(out) == set(meta_side), "meta.json lists other methods"
    return out


def method_facts(rows: dict[str, dict[str, Any]]) -> dict[Key, Any]:
    facts: dict[Key, Any] = {}
    for method, row in rows.items():
        facts[("(methods)", method, "present")] = True
        for aspect in ("side", "kind", "params", "result"):
            facts[("(methods)", method, aspect)] = row[aspect]
    return facts


def compare(
    up: dict[str, Any], meta: dict[str, Any] | None, ours: dict[str, Any]
) -> dict[Key, tuple[Any, Any]]:
    """All differences as {(def, property, aspect): (upstream value, our value)}."""
    diffs: dict[Key, tuple[Any, Any]] = {}
    up_defs, our_defs = up["$defs"], ours["$defs"]
    for name in up_defs.keys() - our_defs.keys():
        diffs[(name, None, "missing")] = ("present", None)
    for name in our_defs.keys() - up_defs.keys():
        diffs[(name, None, "extra_def")] = (None, "present")

    def add(a: dict[Key, Any], b: dict[Key, Any]) -> None:
        absent_props = {(k[0], k[1]) for k in a.keys() ^ b.keys() if k[2] == "present"}
        for key in a.keys() | b.keys():
            if key[2] != "present" and (key[0], key[1]) in absent_props:
                continue  # reported once as a missing/extra property
            va, vb = a.get(key), b.get(key)
            if va != vb:
                diffs[key] = (va, vb)

    for name in up_defs.keys() & our_defs.keys():
        add(def_facts(name, up_defs[name]), def_facts(name, our_defs[name]))

    ours_rows = {
        row["method"]: {k: row[k] for k in ("side", "kind", "params", "result")}
        for row in ours["x-methods"]
    }
    add(method_facts(upstream_methods(up, meta)), method_facts(ours_rows))

    up_kw, our_kw = schema_keywords(up, set()), schema_keywords(ours, set())
    for kw in sorted(up_kw - our_kw):
        diffs[("*", None, f"keyword:{kw}")] = ("used", None)
    for kw in sorted(up.keys() - ours.keys()):
        diffs[("(root)", None, kw)] = ("present", None)
    return diffs


# ---------------------------------------------------------------- fixtures and tests


@pytest.fixture(scope="module")
def upstream() -> tuple[dict[str, Any], dict[str, Any] | None]:
    schema, meta = UPSTREAM_DIR / "schema.json", UPSTREAM_DIR / "meta.json"
    tables = json.loads(meta.read_text()) if meta.is_file() else None
    return json.loads(schema.read_text()), tables


@pytest.fixture(scope="module")
def ours() -> dict[str, Any]:
    return json.loads(OURS_PATH.read_text())


@pytest.fixture(scope="module")
def table() -> list[dict[str, Any]]:
    return json.loads(TABLE_PATH.read_text())["differences"]


@pytest.fixture(scope="module")
def diffs(
    upstream: tuple[dict[str, Any], dict[str, Any] | None], ours: dict[str, Any]
) -> dict[Key, tuple[Any, Any]]:
    up, meta = upstream
    return compare(up, meta, ours)


def table_keys(table: list[dict[str, Any]]) -> Iterator[Key]:
    for entry in table:
        yield (entry["def"], entry.get("property"), entry["aspect"])


def fmt(key: Key, values: tuple[Any, Any] | None = None) -> str:
    d, p, a = key
    where = d if p is None else f"{d} {p}"
    if values is None:
        return f"{where}: {a}"
    return f"{where}: {a}: upstream={values[0]!r} ours={values[1]!r}"


def test_table_is_well_formed(table: list[dict[str, Any]]) -> None:
    keys = list(table_keys(table))
    assert len(keys) == len(set(keys)), "duplicate entries in upstream_differences.json"
    for entry in table:
        assert set(entry) <= {"def", "property", "aspect", "reason"}, entry
        assert isinstance(entry["def"], str) and isinstance(entry["aspect"], str), entry
        assert (
            isinstance(entry.get("reason"), str) and entry["reason"].strip()
        ), f"no reason: {entry}"


AFTER_2_4_0 = "upstream after 2.4.0"


def test_what_only_ours_has_is_what_upstream_added_after_2_4_0(
    diffs: dict[Key, tuple[Any, Any]], table: list[dict[str, Any]]
) -> None:
    """Every definition, property or variant the canonical schema has and 2.4.0 lacks is one
    upstream defined later, listed with where (docs/design.md, section 5, "Beyond 2.4.0"): the
    reason names it so and gives a URL; no entry claims it for anything 2.4.0 has too."""
    reasons = {key: entry["reason"] for key, entry in zip(table_keys(table), table, strict=True)}
    only_ours = {key for key, (upstream, ours) in diffs.items() if upstream is None and ours}
    assert only_ours, "the canonical schema has upstream's post-2.4.0 items"
    for key in only_ours:
        assert reasons.get(key, "").startswith(AFTER_2_4_0 + ", https://"), fmt(key, diffs[key])
    claimed = {key for key, reason in reasons.items() if reason.startswith(AFTER_2_4_0)}
    assert claimed <= set(diffs), sorted(claimed - set(diffs), key=repr)


def test_no_unlisted_difference(
    diffs: dict[Key, tuple[Any, Any]], table: list[dict[str, Any]]
) -> None:
    listed = set(table_keys(table))
    unlisted = sorted((k for k in diffs if k not in listed), key=repr)
    assert (
        not unlisted
    ), "differences from upstream not in tests/upstream_differences.json:\n" + "\n".join(
        fmt(k, diffs[k]) for k in unlisted
    )


def test_every_listed_difference_is_real(
    diffs: dict[Key, tuple[Any, Any]], table: list[dict[str, Any]]
) -> None:
    stale = [k for k in table_keys(table) if k not in diffs]
    assert (
        not stale
    ), "entries in tests/upstream_differences.json that no longer differ:\n" + "\n".join(
        fmt(k) for k in stale
    )


def test_our_extra_defs_are_explained(
    upstream: tuple[dict[str, Any], dict[str, Any] | None],
    ours: dict[str, Any],
    table: list[dict[str, Any]],
) -> None:
    up, _ = upstream
    explained = {e["def"] for e in table if e["aspect"] == "extra_def"}
    extra = sorted(ours["$defs"].keys() - up["$defs"].keys())
    assert [d for d in extra if d not in explained] == []


def test_methods_match_upstream(
    upstream: tuple[dict[str, Any], dict[str, Any] | None], ours: dict[str, Any]
) -> None:
    up, meta = upstream
    expected = upstream_methods(up, meta)
    rows = {row["method"]: row for row in ours["x-methods"]}
    assert len(rows) == len(ours["x-methods"]), "a method appears twice in x-methods"
    assert rows.keys() == expected.keys()
    for method, row in rows.items():
        want = expected[method]
        assert (row["side"], row["kind"], row["params"], row["result"]) == (
            want["side"],
            want["kind"],
            want["params"],
            want["result"],
        ), method


def test_method_table_agrees_with_annotations(ours: dict[str, Any]) -> None:
    defs = ours["$defs"]
    annotated = {name for name, d in defs.items() if "x-method" in d or "x-side" in d}
    listed = set()
    for row in ours["x-methods"]:
        assert row["kind"] in ("request", "notification")
        assert (row["result"] is None) == (row["kind"] == "notification"), row
        for name in (row["params"], row["result"]):
            if name is None:
                continue
            listed.add(name)
            assert defs[name].get("x-method") == row["method"], name
            assert defs[name].get("x-side") == row["side"], name
    assert annotated == listed


def test_comparison_detects_changes(
    upstream: tuple[dict[str, Any], dict[str, Any] | None], ours: dict[str, Any]
) -> None:
    """Guard against a comparison that silently finds nothing."""
    up, meta = upstream
    baseline = set(compare(up, meta, ours))
    mutated = json.loads(json.dumps(ours))
    d = mutated["$defs"]
    d["UsageUpdate"]["properties"]["used"]["format"] = "uint32"
    d["Cost"]["required"].remove("currency")
    d["NoticeSeverity"]["anyOf"].pop()  # close the enum
    del d["PromptRequest"]["properties"]["prompt"]
    d["ContentChunk"]["properties"]["content"] = {
        "type": "array",
        "items": {"$ref": "#/$defs/ContentBlock"},
    }
    mutated["x-methods"][0]["side"] = "client"
    new = set(compare(up, meta, mutated)) - baseline
    assert {
        ("UsageUpdate", "used", "format"),
        ("Cost", "currency", "required"),
        ("NoticeSeverity", None, "open"),
        ("PromptRequest", "prompt", "present"),
        ("ContentChunk", "content", "type"),
        ("(methods)", "initialize", "side"),
    } <= new


def test_the_schema_readme_names_the_upstream_release_and_the_prompt_answer() -> None:
    """schema/README.md says which upstream release the schema matches (the one compared here)
    and what `session/prompt` answers: the insertion receipt, not alpha.3's `{}`."""
    text = (REPO / "schema" / "README.md").read_text(encoding="utf-8")
    release = UPSTREAM_DIR.name.removeprefix("sdk-")
    assert f"{release}, kept in `tests/fixtures/upstream/{UPSTREAM_DIR.name}/`" in text
    ours = json.loads((REPO / "schema" / "acp.schema.json").read_text(encoding="utf-8"))
    answer = ours["$defs"]["PromptResponse"]
    assert answer["required"] == ["messageId"]
    assert "insertion receipt `{messageId}`" in " ".join(text.split())
    assert "empty object" not in text and "(2.0.0-alpha.3)" not in text
