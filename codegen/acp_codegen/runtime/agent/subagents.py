"""Child sessions (subagents) an agent exposes on a parent session, and messages between them.

`announce` sends the parent's `subagent_update` for a new child before anything else can name
it, and returns the parent's handle on the child (`Subagent`): `update` patches what the parent
says of the child (absent keeps, None clears, a value replaces), `session` is the child's own
`AgentSession`, whose helpers send with the child's sessionId (the client folds them into the
child's state, registered when the announcement arrived), and `send_message` reports a message
from one to the other in both transcripts (`session_message`). `remove_plan` tells the client a
plan is gone (`plan_removed`). All of it is v2's: a v1 client was never told of these updates.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..wire.jsonvalue import JsonValue
from ..wire.protocol import PLAN_REMOVED, SESSION_MESSAGE, SESSION_MESSAGE_CHUNK, SUBAGENT_UPDATE
from .agent_session import AgentSession, new_id
from .handles import Content, MessageStream


class Subagent:
    """The parent's handle on one child session it announced."""

    def __init__(self, parent: AgentSession, session: AgentSession) -> None:
        self.parent = parent
        self.session = session  # the child's own session: its helpers speak as the child

    @property
    def session_id(self) -> str:
        return self.session.session_id

    async def update(self, **fields: object) -> None:
        """Patch what the parent says of the child (`title`, `description`, `capabilities`,
        `state`, `cwd`, `additionalDirectories`, `_meta`: wire names; None clears)."""
        await self.parent.send_fields(SUBAGENT_UPDATE, sessionId=self.session_id, **fields)

    async def send_message(
        self, content: Content | Sequence[Content], *, from_child: bool = False
    ) -> tuple[str, str]:
        """Report a whole message from the parent to the child (`from_child`: the other way)
        in both transcripts, each view naming the other's id; returns the message's id in the
        sender's transcript and in the recipient's."""
        parent, child = self.parent, self.session
        sender, recipient = (child, parent) if from_child else (parent, child)
        sent, received = new_id("msg"), new_id("msg")
        between = {
            "senderSessionId": sender.session_id,
            "recipientSessionId": recipient.session_id,
        }
        outgoing = MessageStream(sender, SESSION_MESSAGE, SESSION_MESSAGE_CHUNK, sent)
        await outgoing.replace(content, recipientMessageId=received, **between)
        incoming = MessageStream(recipient, SESSION_MESSAGE, SESSION_MESSAGE_CHUNK, received)
        await incoming.replace(content, senderMessageId=sent, **between)
        return sent, received


async def announce(
    parent: AgentSession, session_id: str | None = None, **fields: object
) -> Subagent:
    """Announce a new child session of `parent` (`fields` as `Subagent.update` takes them; the
    child's setup has the `cwd` given, else the parent's) and return the handle on it."""
    cwd = fields.get("cwd")
    setup: dict[str, JsonValue] = {}
    if isinstance(cwd, str) or parent.cwd is not None:
        setup["cwd"] = cwd if isinstance(cwd, str) else parent.cwd
    child = Subagent(parent, parent.child(session_id or new_id("sess"), setup))
    await child.update(**fields)  # first: nothing may name the child before it is announced
    return child


async def remove_plan(session: AgentSession, plan_id: str) -> None:
    """Tell the client the plan `plan_id` is gone (it forgets it; an unknown id is ignored)."""
    await session.send_fields(PLAN_REMOVED, planId=plan_id)
