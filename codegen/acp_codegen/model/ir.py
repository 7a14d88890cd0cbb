"""The protocol IR: small frozen objects that templates (and protocol diffs) work from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Handling sides this generator knows; any other `x-side` value is a side newer than it.
KNOWN_SIDES = frozenset({"agent", "client", "protocol", "both"})


@dataclass(frozen=True, slots=True)
class Method:
    """A protocol method: wire name, handling side, request or notification, and its types."""

    name: str
    side: str  # "agent" | "client" | "protocol" | "both" | a newer side: who handles it
    kind: str  # "request" | "notification"
    params: str  # Python name of the params type
    result: str | None  # Python name of the result type; None for notifications
    handler: str  # Python method name on the handling side
    unstable: bool = False  # from an unstable overlay (`--unstable`): marked as such


@dataclass(frozen=True, slots=True)
class Variant:
    """One branch of a tagged union."""

    tag: str | None  # wire tag value; None for a branch chosen when the tag is absent
    class_name: str
    fallback: bool = False  # matches unknown tag values only


@dataclass(frozen=True, slots=True)
class TaggedUnion:
    name: str
    tag: str  # wire name of the discriminator property
    variants: tuple[Variant, ...]

    @property
    def known(self) -> tuple[Variant, ...]:
        return tuple(v for v in self.variants if not v.fallback)

    @property
    def fallback(self) -> Variant | None:
        return next((v for v in self.variants if v.fallback), None)


@dataclass(frozen=True, slots=True)
class MergeRule:
    """How one session-update variant changes session state (docs/design.md section 2)."""

    tag: str
    entity: str
    op: str
    key: str | None = None
    field: str | None = None
    source: str | None = None
    role: str | None = None
    encoding: str | None = None
    bytes_fields: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class UpdateVariant:
    tag: str
    class_name: str
    merge: MergeRule | None


# Agent methods the runtime's lifecycle serves itself (`runtime/agent/agent_side.py`).
LIFECYCLE_SERVED = frozenset(
    {
        "initialize",
        "session/new",
        "session/list",
        "session/resume",
        "session/close",
        "session/delete",
        "session/prompt",
        "session/cancel",
    }
)
# Unstable session methods (`--unstable`) the lifecycle serves too, when a package has them
# (`runtime/agent/unstable_sessions.py`).
UNSTABLE_SESSION_METHODS = (
    "session/fork",
    "session/set_title",
    "session/archive",
    "session/unarchive",
    "session/status",
)


@dataclass(frozen=True, slots=True)
class Protocol:
    """Everything the templates need about one schema."""

    title: str
    protocol_version: int | None
    source_name: str
    sha256: str
    methods: tuple[Method, ...]
    unions: tuple[TaggedUnion, ...]
    update_union: str | None
    update_tag: str | None
    update_variants: tuple[UpdateVariant, ...]
    tristate_fields: tuple[tuple[str, str], ...]  # (class name, wire field name)
    notes: tuple[str, ...] = ()
    # The stop reasons the schema names (idle state variants, or an older `StopReason` enum).
    stop_reasons: tuple[str, ...] = ()
    # Required fields of the `session/prompt` result: the lifecycle answers with them.
    prompt_result_required: tuple[str, ...] = ()
    # Tolerant-reading marks: (class name, wire field, default on error, skip invalid items).
    deserialize_marks: tuple[tuple[str, str, bool, bool, bool], ...] = ()
    # The schema rewritten for datamodel-code-generator (see codegen/lower.py).
    model_schema: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    # Per-class extra data for our datamodel-code-generator templates.
    model_template_data: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def methods_for(self, side: str) -> tuple[Method, ...]:
        """Methods `side` handles itself (protocol-level ones are the connection's job). A side
        newer than this generator (e.g. upstream's `proxy`) is treated like `both`: either base
        class may play that role, so both get a typed handler that answers -32601 by default."""
        return tuple(
            m for m in self.methods if m.side in (side, "both") or m.side not in KNOWN_SIDES
        )

    @property
    def prompt_receipt(self) -> bool:
        """The `session/prompt` result is an insertion receipt (`{"messageId": ...}`)."""
        return "messageId" in self.prompt_result_required

    def author_handlers(self, side: str) -> tuple[Method, ...]:
        """Methods of `side` whose typed handler the author writes: with the lifecycle on, the
        agent's session surface is served by the runtime and gets no do-nothing handler."""
        if not (self.has_lifecycle and side == "agent"):
            return self.methods_for(side)
        served = LIFECYCLE_SERVED.union(UNSTABLE_SESSION_METHODS)
        return tuple(m for m in self.methods_for(side) if m.name not in served)

    @property
    def unstable_sessions(self) -> tuple[str, ...]:
        """The unstable session methods this schema has that the lifecycle serves."""
        if not self.has_lifecycle:
            return ()
        names = {m.name for m in self.methods}
        return tuple(name for name in UNSTABLE_SESSION_METHODS if name in names)

    @property
    def has_lifecycle(self) -> bool:
        """The v2 prompt lifecycle applies: version 2 or later with its methods present."""
        needed = {"initialize", "session/new", "session/prompt", "session/cancel", "session/update"}
        version = self.protocol_version
        return version is not None and version >= 2 and needed <= {m.name for m in self.methods}
