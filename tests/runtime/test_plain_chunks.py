"""The send path skips the schema check on a plain text chunk (`outgoing.is_plain_text_chunk`):
sound only if the schema takes every such chunk, whatever its strings. Proven here for the
shipped schema, v2 and v1, over any text; anything else still gets the full check."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import Field, ValidationError

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "generated"))

from acp_bindings import merge_rules, methods
from acp_bindings._runtime.rpc.outgoing_checks import OutgoingChecks, is_plain_text_chunk
from acp_bindings.v1 import methods as v1_methods

V2 = OutgoingChecks(
    sent=methods.CLIENT_SPECS, answered=methods.AGENT_SPECS, stop_reasons=merge_rules.STOP_REASONS
)
V1 = OutgoingChecks(sent=v1_methods.CLIENT_SPECS, answered=v1_methods.AGENT_SPECS)
TAGS = st.sampled_from(["agent_message_chunk", "agent_thought_chunk"])


def chunk(tag: str, message_id: str, text: str) -> dict[str, Any]:
    return {
        "sessionUpdate": tag,
        "messageId": message_id,
        "content": {"type": "text", "text": text},
    }


def test_both_versions_take_plain_chunks() -> None:
    assert V2.plain_chunks_fit and V1.plain_chunks_fit


@given(tag=TAGS, session_id=st.text(), message_id=st.text(), text=st.text())
def test_every_plain_chunk_passes_the_full_check(
    tag: str, session_id: str, message_id: str, text: str
) -> None:
    update = chunk(tag, message_id, text)
    assert is_plain_text_chunk(update)
    for checks in (V2, V1):
        checks.notification("session/update", {"sessionId": session_id, "update": update})


@pytest.mark.parametrize(
    "update",
    [
        {**chunk("agent_message_chunk", "m", "t"), "_meta": {"k": 1}},
        chunk("user_message_chunk", "m", "t"),
        {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": {"type": "text"}},
        chunk("agent_message_chunk", "m", 5),  # type: ignore[arg-type]
        chunk("agent_message_chunk", 7, "t"),  # type: ignore[arg-type]
        {**chunk("agent_message_chunk", "m", "t"), "content": {"type": "image", "text": "t"}},
    ],
)
def test_anything_else_is_not_plain_and_gets_the_check(update: dict[str, Any]) -> None:
    assert not is_plain_text_chunk(update)


def test_a_bad_update_is_still_refused_by_session_update() -> None:
    bad = chunk("agent_message_chunk", 7, "t")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        V2.session_update({"sessionId": "s", "update": bad})
    with pytest.raises(ValidationError):
        V2.session_update({"sessionId": 3, "update": chunk("agent_message_chunk", "m", "t")})


def constrained_checks(constraint: Any) -> OutgoingChecks:
    """Checks of a schema whose chunk text carries `constraint` (a length limit, a pattern)."""
    from typing import Literal

    from acp_bindings._runtime.wire.tables import MethodSpec
    from pydantic import BaseModel

    class Text(BaseModel):
        type: Literal["text"]
        text: str = constraint

    class Chunk(BaseModel):
        sessionUpdate: Literal["agent_message_chunk", "agent_thought_chunk"]
        messageId: str
        content: Text

    class Params(BaseModel):
        sessionId: str
        update: Chunk

    spec = MethodSpec("session/update", "client", "notification", Params, None, "session_update")
    return OutgoingChecks(sent=[spec], answered=[])


CONSTRAINTS = [
    (Field(max_length=4097), "x" * 5000),
    (Field(min_length=1), ""),
    (Field(pattern="^[^\x00]*$"), "\x00"),
]


@pytest.mark.parametrize(("constraint", "refused"), CONSTRAINTS)
def test_a_schema_that_constrains_the_text_keeps_the_check(constraint: Any, refused: str) -> None:
    """The skip is only taken where the schema takes every plain chunk: a text with a length
    limit or a pattern turns it off, and such chunks are checked."""
    checks = constrained_checks(constraint)
    assert not checks.plain_chunks_fit
    with pytest.raises(ValidationError):
        checks.session_update(
            {"sessionId": "s", "update": chunk("agent_message_chunk", "m", refused)}
        )


class Sent:
    """A peer that keeps the session/update params it is sent."""

    def __init__(self) -> None:
        self.updates: list[Any] = []

    async def request(self, method: str, params: Any) -> Any:
        raise AssertionError(f"no request expected, got {method}")

    async def notify(self, method: str, params: Any) -> None:
        self.updates.append(params["update"])


def v1_wire(v1_checks: OutgoingChecks, texts: list[str]) -> list[Any]:
    """What a session on a v1 connection (`v1_checks`: v1's side of the wire) sends when it
    streams `texts` as chunks of one message."""
    from acp_bindings._runtime.agent.agent_session import AgentSession
    from acp_bindings._runtime.v1.agent_wire import V1SessionDialect

    async def stream() -> list[Any]:
        peer = Sent()
        session = AgentSession("s1", peer, {}, {}, V2)
        session.dialect = V1SessionDialect("s1", peer, v1_checks)
        message = session.agent_message("m1")
        for text in texts:
            await message.append(text)
        return peer.updates

    return asyncio.run(stream())


def test_on_v1_a_plain_chunk_goes_out_as_the_same_update() -> None:
    sent = v1_wire(V1, ["a", "\ud800", ""])
    assert sent == [chunk("agent_message_chunk", "m1", text) for text in ["a", "\ud800", ""]]


@pytest.mark.parametrize(("constraint", "refused"), CONSTRAINTS)
def test_on_v1_a_schema_that_constrains_the_text_still_checks_each_chunk(
    constraint: Any, refused: str
) -> None:
    """v2 takes every plain chunk; a v1 schema that does not must still see each one: the
    chunk its constraint refuses is not sent, the others are."""
    sent = v1_wire(constrained_checks(constraint), ["ok", refused, "fine"])
    assert [update["content"]["text"] for update in sent] == ["ok", "fine"]
