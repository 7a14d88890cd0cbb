"""JSON Schema 2020-12's meta-schema as one flat document with plain `$ref`s, for a faster check.

The published meta-schema is eight documents joined by `$dynamicRef: "#meta"`, and `jsonschema`
resolves every such reference by walking its dynamic scope: that was a third of a full
generate's schema checks. Checked from the 2020-12 root, every `#meta` lands on that root (the
only `$dynamicAnchor: meta` in scope), so here `#meta` is a `$ref` to the bundle's root. Each
vocabulary only names the keywords it checks (`properties`) over the root's `type`, so their
`properties` are merged into the root's: every subschema of a checked document is then one
lookup instead of eight (the vocabularies' `$defs` stay under `$defs/<vocabulary>`). A
vocabulary of another shape is kept whole and joined by `allOf`, as the published root does.
The checks are the same keywords on the same instance, so the problems (pointers and messages)
are the same, but each once where the published document repeats one per vocabulary (`type`):
tests/test_meta_bundle.py compares them with the published meta-schema's on valid and broken
documents.

Built from the copy `jsonschema` ships (jsonschema-specifications), never from a file of ours.
"""

from __future__ import annotations

from functools import cache
from typing import Any

_BASE = "https://json-schema.org/draft/2020-12/"
# Keywords of a meta-schema document's root that say what it is, not what it checks.
_IDENTITY = ("$id", "$schema", "$dynamicAnchor", "$vocabulary", "allOf")


@cache
def bundled_meta_schema() -> dict[str, Any]:
    # jsonschema's own copy of the published documents (a dependency of it; ships no types).
    from jsonschema_specifications import REGISTRY  # type: ignore[import-untyped]

    root: dict[str, Any] = REGISTRY.contents(_BASE + "schema")
    bundle: dict[str, Any] = _rewritten(_without_identity(root), "")
    bundle["$defs"] = {}
    joined: list[dict[str, str]] = []
    for part in root["allOf"]:
        name = part["$ref"].rsplit("/", 1)[-1]  # "meta/core" -> "core"
        vocabulary = _rewritten(_without_identity(REGISTRY.contents(_BASE + part["$ref"])), name)
        if _merged(bundle, vocabulary):
            if "$defs" in vocabulary:
                bundle["$defs"][name] = {"$defs": vocabulary["$defs"]}
        else:
            bundle["$defs"][name] = vocabulary
            joined.append({"$ref": f"#/$defs/{name}"})
    if joined:
        bundle["allOf"] = joined
    bundle = _inlined(bundle, bundle, ())
    if not _all_local(bundle):  # a later meta-schema of another shape: check with it as it is
        return root
    return bundle


# What a vocabulary may hold to be merged into the root: words for readers, the root's own
# `type`, the keywords it checks, and its `$defs` (kept apart, where its references point).
_MERGEABLE = frozenset({"title", "description", "$comment", "type", "properties", "$defs"})


def _merged(bundle: dict[str, Any], vocabulary: dict[str, Any]) -> bool:
    """Merge `vocabulary`'s `properties` into `bundle`'s; False (nothing changed) when it checks
    more than that, under another `type`, or a keyword the bundle already checks."""
    own = vocabulary.get("properties", {})
    if (
        not set(vocabulary) <= _MERGEABLE
        or vocabulary.get("type") != bundle.get("type")
        or not isinstance(own, dict)
        or set(own) & set(bundle.get("properties", {}))
    ):
        return False
    bundle.setdefault("properties", {}).update(own)
    return True


def _inlined(node: Any, bundle: dict[str, Any], through: tuple[str, ...]) -> Any:
    """`node` with each `$ref` into `$defs` replaced by what it points at (a lookup per use was
    a fifth of the check); one that comes back to where it started stays a reference."""
    if isinstance(node, list):
        return [_inlined(item, bundle, through) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref not in through:
        target: Any = bundle
        for part in ref.removeprefix("#/").split("/"):
            target = target.get(part) if isinstance(target, dict) else None
        if isinstance(target, dict):
            rest = {key: value for key, value in node.items() if key != "$ref"}
            inlined = _inlined(target, bundle, (*through, ref))
            if not rest:
                return inlined
            rest = _inlined(rest, bundle, through)
            return {**rest, "allOf": [*rest.get("allOf", []), inlined]}
    return {key: _inlined(value, bundle, through) for key, value in node.items()}


def _all_local(node: Any) -> bool:
    """No reference leaves the document (one that did would be looked up, or fetched)."""
    if isinstance(node, list):
        return all(_all_local(item) for item in node)
    if not isinstance(node, dict):
        return True
    for key, value in node.items():
        if key in ("$ref", "$dynamicRef") and isinstance(value, str) and not value.startswith("#"):
            return False
        if key == "$dynamicRef" and isinstance(value, str):
            return False
        if not _all_local(value):
            return False
    return True


def _without_identity(document: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in document.items() if key not in _IDENTITY}


def _rewritten(node: Any, vocabulary: str) -> Any:
    """`node` with `#meta` pointing at the bundle's root and a vocabulary's own `#/$defs/...`
    pointing into its entry of the bundle."""
    if isinstance(node, list):
        return [_rewritten(item, vocabulary) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$dynamicRef" and value == "#meta":
            out["$ref"] = "#"
        elif key == "$ref" and isinstance(value, str) and value.startswith("#/$defs/"):
            inside = f"#/$defs/{vocabulary}/$defs/" if vocabulary else "#/$defs/"
            out["$ref"] = inside + value.removeprefix("#/$defs/")
        elif key == "$ref" and isinstance(value, str) and value.startswith("meta/"):
            other, _, pointer = value.removeprefix("meta/").partition("#")  # another vocabulary's
            out["$ref"] = f"#/$defs/{other}{pointer}"
        else:
            out[key] = _rewritten(value, vocabulary)
    return out
