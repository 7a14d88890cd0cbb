"""What a merge rule does to session state, in words, for the protocol reference.

The entity kinds come from the runtime's own merge plan, so the reference and `SessionState`
cannot disagree about how an entity is stored. Sentences are Markdown for a table cell: every
name from the schema goes through `markdown.code`.
"""

from __future__ import annotations

from ..model.ir import MergeRule
from ..runtime.state.merge_plan import (
    KEYED_ENTITIES,
    LOG_ENTITIES,
    MARKER_ENTITIES,
    SLOT_ENTITIES,
    STATE_ENTITY,
)
from .markdown import code


def merge_sentence(rule: MergeRule | None) -> str:
    """A Markdown sentence saying what the rule does to session state."""
    if rule is None:
        return "No merge rule: `SessionState` keeps the update as unknown."
    entity = code(rule.entity, cell=True)
    keyed = f" identified by {code(rule.key, cell=True)}" if rule.key else ""
    role = f" (a new message gets role {code(rule.role, cell=True)})" if rule.role else ""
    if rule.op == "upsert":
        text = (
            f"Upsert the {entity}{keyed}{role}: created when new; every other field is a patch"
            " (absent keeps, `null` clears, a value replaces)."
        )
        for name, source in rule.bytes_fields:
            text += (
                f" {code(name, cell=True)} is stored as bytes decoded from the base64 text at"
                f" {code(source, cell=True)}."
            )
        return text
    if rule.op == "append" and rule.entity in LOG_ENTITIES:
        return (
            f"Log: the update (tag left out) is added to the end of the {entity} list; a live"
            " event, never replayed by an agent."
        )
    if rule.entity in MARKER_ENTITIES:
        return (
            f"Marker ({entity}): changes no state (`SessionState.marks` counts it); a live"
            " event, never replayed by an agent."
        )
    if rule.op == "append":
        source = code(rule.source or f"/{rule.field}", cell=True)
        decoded = " decoded from base64" if rule.encoding == "base64" else ""
        return (
            f"Append: the value at {source}{decoded} is added to the end of"
            f" {code(rule.field or '', cell=True)} of the {entity}{keyed}{role}, created when new;"
            " other fields of the update belong to this chunk only."
        )
    if rule.op == "replace":
        what = code(rule.source, cell=True) if rule.source else "the whole update (tag left out)"
        return f"Replace: {what} replaces the {entity}{keyed}."
    if rule.op == "remove":
        return f"Remove: the {entity}{keyed} is forgotten (nothing happens when there is none)."
    return f"Operation {code(rule.op, cell=True)} on the {entity}{keyed}."


def stored_as(entity: str) -> str:
    if entity in KEYED_ENTITIES:
        order = ", in order of first appearance" if entity == "message" else ""
        return (
            f"one record per key{order}; in a snapshot under "
            f"{code(KEYED_ENTITIES[entity], cell=True)}"
        )
    if entity == STATE_ENTITY:
        return "the session's current state (one value)"
    if entity in SLOT_ENTITIES:
        return "one value, replaced or patched as a whole"
    if entity in LOG_ENTITIES:
        shown = code(LOG_ENTITIES[entity], cell=True)
        return f"a list in arrival order; in a snapshot under {shown}"
    if entity in MARKER_ENTITIES:
        return "nothing: a marker in the update stream, counted (`SessionState.marks`)"
    return "not known to this runtime"
