"""One keyed entity of session state (a message, tool call, terminal, plan or compaction) and its
patches.

A record has fixed identity fields (its key, and a message's role), accumulated fields that
chunks append to (lists of frozen items, see `frozen.py`, or bytes kept in a `bytearray`), and
plain fields set by patches. Appending mutates in place, so n chunks cost O(n) in total.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from ..wire.jsonvalue import copy_json
from .frozen import thaw_item

FieldKind = Literal["list", "bytes"]
PatchKind = Literal["set", "drop", "list", "bytes"]


class FieldPatch(NamedTuple):  # a tuple: built per field of every upsert, several times cheaper
    """One checked change to one field; applying it cannot fail.

    `set`: store `value`; `drop`: remove the field; `list`: replace an accumulated list with
    `value` (a fresh list of frozen items); `bytes`: replace accumulated bytes with `value` (bytes).
    """

    kind: PatchKind
    name: str
    value: Any = None


@dataclass(slots=True)
class Record:
    identity: dict[str, Any]
    lists: dict[str, list[Any]] = field(default_factory=dict)
    # None until first reported: "output unknown" is not "output empty".
    blobs: dict[str, bytearray | None] = field(default_factory=dict)
    fields: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def create(cls, identity: dict[str, Any], layout: dict[str, FieldKind]) -> Record:
        return cls(
            identity=identity,
            lists={name: [] for name, kind in layout.items() if kind == "list"},
            blobs={name: None for name, kind in layout.items() if kind == "bytes"},
        )

    def reset(self) -> None:
        """Forget everything but the identity (used by `replace`)."""
        for items in self.lists.values():
            items.clear()
        for name in self.blobs:
            self.blobs[name] = None
        self.fields.clear()

    def apply(self, patch: FieldPatch) -> None:
        if patch.kind == "set":
            self.fields[patch.name] = patch.value
        elif patch.kind == "drop":
            self.fields.pop(patch.name, None)
        elif patch.kind == "list":
            self.lists[patch.name] = patch.value
        else:
            self.blobs[patch.name] = bytearray(patch.value)

    def append(self, name: str, value: Any) -> None:
        """Append one frozen item to an accumulated list, or bytes to accumulated bytes."""
        if isinstance(value, bytes):
            data = self.blobs.get(name)
            if data is None:
                self.blobs[name] = bytearray(value)
            else:
                data += value
        else:
            self.lists[name].append(value)

    def snapshot(self) -> dict[str, Any]:
        """Fresh plain data: identity, accumulated fields (bytes as base64, None while never
        reported), then plain fields."""
        out: dict[str, Any] = dict(self.identity)
        for name, items in self.lists.items():
            out[name] = [thaw_item(item) for item in items]
        for name, data in self.blobs.items():
            out[name] = None if data is None else base64.b64encode(data).decode("ascii")
        for name, value in self.fields.items():
            if name not in self.identity:
                out[name] = copy_json(value)
        return out


def patch_plain(target: dict[str, Any], patch: FieldPatch) -> None:
    """Apply a `set`/`drop` patch to a plain dict slot (for single-slot entities)."""
    if patch.kind == "drop":
        target.pop(patch.name, None)
    else:
        target[patch.name] = patch.value
