"""What an input is and what it has that this generator does not know: protocol version
inference and the notes that name newer constructs.

Upstream's published files carry no `x-acp` block, so the protocol version is read from the
shape: a `session/update` union with `state_update` and a prompt result without a stop reason is
the v2 prompt lifecycle; a prompt result that carries the stop reason is v1.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..model.errors import pointer
from ..model.ir import KNOWN_SIDES, Method, Protocol
from ..model.unions import find_union

# Every `x-` keyword the generator reads (ours) or knowingly skips (upstream's envelopes).
KNOWN_KEYWORDS = frozenset(
    {
        "x-acp",
        "x-methods",
        "x-update-union",
        "x-method",
        "x-side",
        "x-union",
        "x-merge",
        "x-unstable",
        "x-tristate",
        "x-docs-ignore",
        "x-deserialize-default-on-error",
        "x-deserialize-skip-invalid-items",
        "x-deserialize-default-on-null",
    }
)
UPDATE_UNION = "SessionUpdate"


def protocol_version(doc: dict[str, Any]) -> tuple[int | None, str | None]:
    """The protocol version and, when it was inferred rather than declared, from what."""
    meta = doc.get("x-acp")
    if isinstance(meta, dict) and isinstance(meta.get("protocolVersion"), int):
        return meta["protocolVersion"], None
    defs: dict[str, Any] = doc["$defs"]
    prompt_result = defs.get("PromptResponse")
    required = prompt_result.get("required") or [] if isinstance(prompt_result, dict) else []
    if "stopReason" in required:
        return 1, "the shape (the session/prompt result carries the stop reason)"
    union = defs.get(doc.get("x-update-union") or UPDATE_UNION)
    shape = find_union(UPDATE_UNION, union, "") if isinstance(union, dict) else None
    if shape is not None and "state_update" in {b.tag for b in shape.branches}:
        return 2, "the shape (session/update reports `state_update`; prompts end by state)"
    return None, None


def newer_construct_notes(doc: dict[str, Any], methods: list[Method], file: str) -> list[str]:
    """A note for each kind of construct newer than this generator, naming where it is."""
    notes = []
    for keyword, (count, first) in sorted(_unknown_keywords(doc).items()):
        notes.append(
            f"{file}#{first}: keyword {keyword} ({count} place(s)) is not one acp-codegen "
            "reads; ignored"
        )
    newer: dict[str, list[str]] = {}
    for m in methods:  # our unstable overlay's proxy methods are documented, not news
        if m.side not in KNOWN_SIDES and not m.unstable:
            newer.setdefault(m.side, []).append(m.name)
    for side, names in sorted(newer.items()):
        listed = ", ".join(sorted(set(names)))
        notes.append(
            f"{file}: x-side {side!r} is newer than acp-codegen ({listed}): typed models and "
            "table rows are generated, and both Agent and Client get a handler (answering "
            "-32601 unless overridden) and a proxy call, as for methods either side handles"
        )
    return notes


def automation_notes(protocol: Protocol, file: str) -> list[str]:
    """What the generated package automates when it is not the whole v2 lifecycle."""
    version = protocol.protocol_version
    if protocol.has_lifecycle:
        unfilled = [f for f in protocol.prompt_result_required if f != "messageId"]
        if not unfilled:
            return []
        return [
            f"{file}: the session/prompt result requires {', '.join(unfilled)}, which the "
            "lifecycle does not fill; pass prompt_result= to AgentSide to answer it"
        ]
    if version is None:
        which = "no known protocol version"
    elif version >= 2:
        which = f"protocol version {version} but not every v2 lifecycle method"
    else:
        which = f"protocol version {version}"
    # A tolerance table (and so the `strict` switch) comes with an update union.
    tolerant = (
        " with tolerant reading where the schema's x-deserialize marks allow (off with "
        "Agent.strict / Client.strict)"
        if protocol.update_union is not None
        else ""
    )
    return [
        f"{file}: {which}, so the v2 prompt lifecycle is not generated. Automated: JSON-RPC "
        "over stdio (Agent.run/serve_stdio/dispatcher, Client.spawn/dispatcher), params and "
        f"result validation{tolerant}, typed handlers, proxies and dispatchers, and "
        "SessionState folding by the merge rules present. Not automated: initialize, "
        "session/new, session/prompt and session/cancel (your handlers answer them), "
        "AgentSession update helpers, ClientSide session tracking and permission flow"
    ]


def _unknown_keywords(doc: dict[str, Any]) -> dict[str, tuple[int, str]]:
    found: dict[str, tuple[int, str]] = {}
    for path, key in _keys(doc, ()):
        if key.startswith("x-") and key not in KNOWN_KEYWORDS:
            count, first = found.get(key, (0, pointer(*path, key)))
            found[key] = (count + 1, first)
    return found


def _keys(node: Any, path: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    if isinstance(node, dict):
        for k, v in node.items():
            yield path, k
            if k not in ("properties", "$defs") or not isinstance(v, dict):
                yield from _keys(v, (*path, k))
            else:  # property and definition names are names, not keywords
                for name, sub in v.items():
                    yield from _keys(sub, (*path, k, name))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _keys(v, (*path, i))
