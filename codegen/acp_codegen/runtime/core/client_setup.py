"""What the client makes of the answers to its setup calls, with no I/O.

- The `initialize` answer names a version; its body must be that version's (`hello_misfit`
  reads the validation problems of the body against that version's answer type): a member
  that version requires is missing (v1's `agentInfo` where v2 requires `info`). A bad value is
  a broken answer of the version named, left to tolerant reading. A misfit falls back to v1
  when v1 was offered and the body is v1's (`hello_fallback`), else fails.
- A session setup answer (`session/new`, `session/load`, `session/resume`) may carry state
  the session keeps (config options, commands): each member that a `replace` rule of the
  merge rules takes whole from its update (`setup_fields`) becomes that update
  (`setup_updates`), so the answer is folded like any update, on every version.
- A setup that replays the whole history (v1's `session/load`, a resume with
  `replayFrom: {"type": "start"}`) rebuilds the session's state: it never adds to what the
  client already held (`rebuilds_state`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from ..wire.jsonvalue import JsonObject, JsonValue, parse_pointer
from ..wire.protocol import SESSION_LOAD, SESSION_RESUME, UPDATE_TAG_FIELD
from ..wire.tables import MergeRule

REPLAY_FROM: Final = "replayFrom"
REPLAY_FROM_START: Final = "start"

# (member of a setup answer, tag of the update that carries it)
SetupFields = tuple[tuple[str, str], ...]


def setup_fields(rules: Mapping[str, MergeRule]) -> SetupFields:
    """The members a setup answer may carry that the session state keeps: those a `replace`
    rule without a key takes from one top-level member of its update."""
    fields: list[tuple[str, str]] = []
    for rule in rules.values():
        if rule.op != "replace" or rule.key is not None or rule.source is None:
            continue
        tokens = parse_pointer(rule.source)
        if len(tokens) == 1:
            fields.append((tokens[0], rule.tag))
    return tuple(fields)


def setup_updates(
    fields: SetupFields, answer: JsonValue, tag_field: str = UPDATE_TAG_FIELD
) -> list[JsonObject]:
    """The updates that say what a (v2-shaped) setup answer says: one per kept member it
    carries as a list or object (null or absent: the answer says nothing about it)."""
    if not isinstance(answer, dict):
        return []
    return [
        {tag_field: tag, name: answer[name]}
        for name, tag in fields
        if isinstance(answer.get(name), list | dict)
    ]


def rebuilds_state(method: str, params: Mapping[str, JsonValue]) -> bool:
    """Whether this setup replays the session's whole history before answering."""
    if method == SESSION_LOAD:
        return True
    replay = params.get(REPLAY_FROM)
    return (
        method == SESSION_RESUME
        and isinstance(replay, dict)
        and replay.get("type") == REPLAY_FROM_START
    )


def hello_misfit(version: int, problems: Sequence[Mapping[str, object]]) -> str | None:
    """Why an `initialize` body answering `version` is not that version's answer (None: it
    is), from the problems its validation against that version's type reported (pydantic's
    `errors()`: `loc`, `msg`, `type`): a member that version requires is missing. A bad value
    (at the top or deeper) is a broken answer of that version, not another version's."""
    missing = [
        str(loc[0])
        for loc, kind in ((problem.get("loc"), problem.get("type")) for problem in problems)
        if kind == "missing" and isinstance(loc, tuple | list) and len(loc) == 1
    ]
    if not missing:
        return None
    return f"its body is not a version {version} answer (missing {', '.join(missing)})"


def hello_fallback(
    version: int, misfit: str, fallback: int | None, fallback_misfit: str | None
) -> tuple[int | None, str]:
    """What to do with an `initialize` answer naming `version` whose body does not fit it:
    the version to speak instead (`fallback`, offered, when the body is its answer) and the
    warning to log; or None and the error to raise."""
    said = f"the agent answered protocol version {version}, but {misfit}"
    if fallback is not None and fallback != version and fallback_misfit is None:
        return fallback, (
            f"{said}; its body is a version {fallback} answer, so this client speaks version "
            f"{fallback} to it (the agent's fault: it should answer {fallback})"
        )
    return None, f"{said}: the agent's fault, nothing more is sent"
