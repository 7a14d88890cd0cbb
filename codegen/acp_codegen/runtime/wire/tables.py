"""Table rows the generated package fills in: methods and session-update merge rules.

The runtime interprets these rows; it never names a method or an update variant itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from typing_extensions import TypeForm

# "agent", "client", "protocol", "both" (either side handles it), or a side newer than the
# generator (upstream's "proxy"): generated tables treat such a side like "both".
Side = str
Kind = Literal["request", "notification"]
Entity = Literal[
    "message",
    "toolCall",
    "terminal",
    "plan",
    "compaction",
    "subagent",
    "notice",
    "usage",
    "availableCommands",
    "configOptions",
    "sessionInfo",
    "promptSuggestions",
    "state",
    "replay",
]
MergeOp = Literal["upsert", "append", "replace", "remove"]


@dataclass(frozen=True, slots=True)
class MethodSpec:
    """One protocol method: wire name, handling side, kind and its pydantic types."""

    method: str
    side: Side
    kind: Kind
    params_type: TypeForm[object]  # a model class or a union alias (see `wire.convert`)
    result_type: TypeForm[object]  # as params_type; None for notifications
    handler: str  # Python method name on the handling side's base class


@dataclass(frozen=True, slots=True)
class MergeRule:
    """How one session-update variant changes session state (see docs/design.md, section 2)."""

    tag: str
    entity: Entity
    op: MergeOp
    key: str | None = None  # JSON pointer into the update
    field: str | None = None  # accumulated field for `append`
    source: str | None = None  # JSON pointer of the value (`from` in the schema)
    role: str | None = None  # role of a new message
    encoding: Literal["base64"] | None = None
    bytes_fields: tuple[tuple[str, str], ...] = ()  # (field, pointer inside the given object)
