"""Checks on what this side sends, built from the generated method tables.

The runtime never imports generated modules: generated code hands its `MethodSpec` tables (and
the stop-reason type) in, and `OutgoingChecks` validates each outgoing request's params,
notification's params and response's result against the schema's types before it is written.
A failure raises pydantic's `ValidationError` at the call that tried to send, so invalid data
never reaches the wire. Each type gets one cached check (`checks.wire_check`: no model instances
built), and each message is validated once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from pydantic import ValidationError

from ..wire.checks import Check, wire_check
from ..wire.protocol import (
    AGENT_MESSAGE_CHUNK,
    AGENT_THOUGHT_CHUNK,
    SESSION_UPDATE,
    UPDATE_TAG_FIELD,
)
from .dispatch import MethodTable, index_methods

Validator = Check
CUSTOM_PREFIX = "_"
TEXT_CHUNK_TAGS: Final = frozenset({AGENT_MESSAGE_CHUNK, AGENT_THOUGHT_CHUNK})
# Strings a plain text chunk is tried with when the checks are built (see `plain_chunks_fit`):
# a pattern or format refuses one of the short ones, a length limit the empty or the long one
# (a mebibyte and one: a limit above that on a chunk's text is not a protocol's).
_PROBES: Final = ("", "x", " \n\t\x00\u2028", "\ud800", "naïve 😀", "x" * ((1 << 20) + 1))


def is_plain_text_chunk(update: object) -> bool:
    """Whether `update` is exactly a streamed text chunk as the message handles build it:
    `{"sessionUpdate": <agent message or thought chunk>, "messageId": <str>, "content":
    {"type": "text", "text": <str>}}` and nothing else."""
    if type(update) is not dict or len(update) != 3:
        return False
    content = update.get("content")
    return (
        type(content) is dict
        and len(content) == 2
        and content.get("type") == "text"
        and type(content.get("text")) is str
        and type(update.get("messageId")) is str
        and update.get(UPDATE_TAG_FIELD) in TEXT_CHUNK_TAGS
    )


class InvalidStopReason(ValueError):
    """A turn handler returned a stop reason the protocol does not allow."""


class OutgoingChecks:
    """Validators for the params this side sends (`sent`: the other side's table) and the results
    it answers with (`answered`: this side's table). `stop_reasons`: the stop reasons the
    schema names (the generated `STOP_REASONS`); other values must start with `_`."""

    def __init__(
        self, *, sent: MethodTable, answered: MethodTable, stop_reasons: Iterable[str] = ()
    ) -> None:
        rows = index_methods(sent)
        # By kind, then method: one lookup per message sent.
        self._requests: dict[str, Validator] = {
            method: wire_check(spec.params_type)
            for (method, kind), spec in rows.items()
            if kind == "request"
        }
        self._notifications: dict[str, Validator] = {
            method: wire_check(spec.params_type)
            for (method, kind), spec in rows.items()
            if kind == "notification"
        }
        self._results: dict[str, Validator] = {
            method: wire_check(spec.result_type)
            for (method, kind), spec in index_methods(answered).items()
            if kind == "request" and spec.result_type is not None
        }
        self.known_stop_reasons = frozenset(stop_reasons)
        self.plain_chunks_fit = self._plain_chunks_fit()

    def _plain_chunks_fit(self) -> bool:
        """Whether this schema takes a plain text chunk whatever its strings (tried with a few
        that a constrained string would refuse: empty, control characters, a lone surrogate,
        non-ASCII, long). Then `session_update` need not run the check on one: most of a
        streamed turn, and the same dict every time but for its strings."""
        for text in _PROBES:
            for tag in TEXT_CHUNK_TAGS:
                update = {UPDATE_TAG_FIELD: tag, "messageId": text, "content": {}}
                update["content"] = {"type": "text", "text": text}
                try:
                    self.notification(SESSION_UPDATE, {"sessionId": text, "update": update})
                except ValidationError:
                    return False
        return True

    def session_update(self, params: Mapping[str, object]) -> bool:
        """`notification("session/update", params)`, which a plain text chunk with a string
        session id skips when the schema takes every such chunk (`plain_chunks_fit`): True
        when it was skipped so (the update is such a chunk), False when the check ran."""
        if (
            self.plain_chunks_fit
            and type(params.get("sessionId")) is str
            and is_plain_text_chunk(params.get("update"))
        ):
            return True
        self.notification(SESSION_UPDATE, params)
        return False

    def request(self, method: str, params: object) -> None:
        check = self._requests.get(method)
        if check is not None:
            check(params)

    def notification(self, method: str, params: object) -> None:
        check = self._notifications.get(method)
        if check is not None:
            check(params)

    def result(self, method: str, result: object) -> None:
        check = self._results.get(method)
        if check is not None:
            check(result)

    def stop_reason(self, reason: str) -> None:
        """Raise `InvalidStopReason` unless `reason` is one the schema names or custom (`_`)."""
        if reason.startswith(CUSTOM_PREFIX) or not self.known_stop_reasons:
            return
        if reason not in self.known_stop_reasons:
            allowed = ", ".join(sorted(self.known_stop_reasons))
            raise InvalidStopReason(
                f"stop reason {reason!r} is not one of {allowed}; "
                f"custom stop reasons must start with {CUSTOM_PREFIX!r}"
            )


class NoChecks(OutgoingChecks):
    """Sends everything unchecked (a runtime used without generated tables)."""

    def __init__(self) -> None:
        super().__init__(sent=(), answered=())
