"""Answering `session/request_permission`: the options with the keys that pick them, the
`--approve` rule (the first option that allows), and the diffs the question's tool call carries
(what approving lets the agent write, shown with the question)."""

from __future__ import annotations

import string

from ..._bindings import models
from ..._bindings._runtime.wire.convert import to_wire
from ..._bindings._runtime.wire.jsonvalue import JsonObject
from ...model.diff_view import FILE, FOLDED, MAX_LINES, DiffRow, diff_rows, diff_view
from .visible import visible_line

ALLOW_KINDS = ("allow_once", "allow_always")
KEYS = string.digits[1:] + string.ascii_lowercase  # 1-9, then a-z
CANCELLED = models.CancelledPermissionOutcome(outcome="cancelled")
DIFF_HEADS = (FILE, FOLDED)  # a diff's rows outside its hunks


def selected(option: models.PermissionOption) -> models.RequestPermissionOutcome:
    return models.SelectedPermissionOutcome(outcome="selected", option_id=option.option_id)


def first_allow(request: models.RequestPermissionRequest) -> models.RequestPermissionOutcome:
    """`--approve`: the first allow_once/allow_always option, else cancelled."""
    for option in request.options:
        if option.kind in ALLOW_KINDS:
            return selected(option)
    return CANCELLED


def keyed_options(
    request: models.RequestPermissionRequest,
) -> list[tuple[str, models.PermissionOption]]:
    """Each option with the key that picks it."""
    return list(zip(KEYS, request.options, strict=False))


def title_of(request: models.RequestPermissionRequest) -> str:
    return request.title or "The agent asks for permission"


def description_lines(request: models.RequestPermissionRequest) -> list[str]:
    """The request's description, one escaped line each (for a v1 command: its program,
    folder and every variable), shown between the title and the options."""
    text = request.description
    return [visible_line(line) for line in text.split("\n")] if isinstance(text, str) else []


def asked_call(request: models.RequestPermissionRequest) -> JsonObject | None:
    """The tool call the question is about (a v1 question is read in this shape too)."""
    subject = request.subject
    if not isinstance(subject, models.ToolCallPermissionSubject):
        return None
    call = to_wire(subject.tool_call)
    return call if isinstance(call, dict) else None


def question_diffs(
    request: models.RequestPermissionRequest, max_lines: int | None = MAX_LINES
) -> list[DiffRow]:
    """The files, hunks and lines of every diff in the tool call the question is about, folded
    beyond `max_lines` rows of hunks in all; none for any other subject."""
    content = (asked_call(request) or {}).get("content")
    rows: list[DiffRow] = []
    left = max_lines
    for item in content if isinstance(content, list) else []:
        view = diff_view(item, max_lines=left)
        if view is not None:
            rows += diff_rows(view)
            if left is not None:
                left = max(0, left - sum(row.kind not in DIFF_HEADS for row in diff_rows(view)))
    return rows


def answer_text(
    request: models.RequestPermissionRequest, outcome: models.RequestPermissionOutcome
) -> str:
    """One line saying what was answered, e.g. `permission: Read? -> Allow (allow_once)`."""
    chosen = getattr(outcome, "option_id", None)
    names = {option.option_id: f"{option.name} ({option.kind})" for option in request.options}
    return visible_line(f"permission: {title_of(request)} -> {names.get(str(chosen), 'cancelled')}")


def keys_hint(keyed: list[tuple[str, models.PermissionOption]]) -> str:
    """The keys that answer, as said to someone who pressed another: `1`, `1 or 2`, `1-3`."""
    keys = [key for key, _ in keyed]
    if len(keys) < 3:
        return " or ".join(keys)
    return f"{keys[0]}-{keys[-1]}"
