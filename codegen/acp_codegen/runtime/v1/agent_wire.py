"""How the agent lifecycle's reports are written on a v1 connection (the v1 wire dialect).

The lifecycle (`agent_session`, `turns`) decides *what* happens and says it in v2's words (one
v2 `session/update` object per report). On a v1 connection each session gets a
`V1SessionDialect` that says the same in v1's words, as docs/protocol-versions.md tabulates:

- `agent_message_chunk` / `agent_thought_chunk` / `user_message_chunk`: the same v1 chunk, its
  `messageId` kept (v1 chunks carry one since the 2.x schemas).
- `agent_message` / `agent_thought` (a whole message): v1 has no replace. Its content goes out
  as one chunk per block when nothing of that message was streamed yet; once chunks of it are
  on the wire, a replace (or a clear, or a patch without content) cannot be said: logged.
- `user_message` (the echo of an accepted prompt): not sent live (a v1 client shows its own
  prompt); replayed (`session/load`) as `user_message_chunk`s.
- `state_update`: not sent; an `idle` report ends the turn, and its stop reason becomes the
  `session/prompt` answer (see `V1AgentSide`).
- `tool_call_update`: the first report of an id is v1's `tool_call` (title defaulting to the
  tool's name or id), later ones `tool_call_update`. Statuses v1 lacks: `cancelled` is sent as
  `failed`, `paused` as `pending`. `capabilities` is v2-only: left out.
- `tool_call_content_chunk` (v2 appends one item): a `tool_call_update` carrying the whole
  content list so far (v1 content replaces).
- `plan_update` (an `items` plan): v1's `plan` with its entries (v1 plans have no id).
- `terminal_update` / `terminal_output_chunk` (display-only terminals): v1 terminals are
  created by the client, so these have no v1 form: logged, and `terminal` items naming them
  are left out of tool call content. A v2 `diff` item (changed paths, optional patch; v1's
  diff wants whole old and new texts) is sent as text content listing the changes and the
  patch.
- `available_commands_update`: the `command` entries, without v2's `type` tag (other kinds:
  logged).
- `config_option_update`: its options' `configId` named `id`, as v1 names it; followed by a
  `current_mode_update` when the session was offered v1 `modes` and its mode option changed.
- `subagent_update`, `session_message`, `session_message_chunk` (child sessions): as they
  are to a client that follows child sessions; to one that does not, nothing of the child
  at all (v1/children.py).
- the rest (`usage_update`, `notice`, `session_info_update`, `compaction_*`) as they are,
  when v1's types accept them.

What the client did not advertise it can take (`gates`, core/client_gates.py) is not sent in
that form: a `notice` or `compaction_*` update not at all (logged), a boolean config option as
a select of `"true"` / `"false"`.

Every translated update is checked against v1's types; one that does not fit is logged and not
sent (the author's call was valid v2: the lifecycle goes on). Nothing is dropped unlogged.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from ..agent.agent_session import new_id
from ..core.client_gates import ClientGates
from ..rpc.outgoing_checks import OutgoingChecks
from ..rpc.peer import Peer, notifier
from ..wire.protocol import (
    AGENT_MESSAGE,
    AGENT_MESSAGE_CHUNK,
    AGENT_THOUGHT,
    AGENT_THOUGHT_CHUNK,
    PLAN_UPDATE,
    REQUEST_PERMISSION,
    SESSION_UPDATE,
    STATE_IDLE,
    STATE_UPDATE,
    STOP_END_TURN,
    TERMINAL_OUTPUT_CHUNK,
    TERMINAL_UPDATE,
    TOOL_CALL_CONTENT_CHUNK,
    TOOL_CALL_UPDATE,
    UPDATE_TAG_FIELD,
    USER_MESSAGE,
)
from .agent_renamed import v1_config_options
from .children import SUBAGENT_TAGS, V1Children
from .constants import (
    AVAILABLE_COMMANDS_UPDATE,
    CONFIG_OPTION_UPDATE,
    CURRENT_MODE_UPDATE,
    USER_MESSAGE_CHUNK,
    V1,
    V1_PLAN,
    V1_TOOL_CALL,
)

logger = logging.getLogger(__name__)

# A v2 whole message and the v1 chunk its blocks become.
CHUNK_OF = {
    AGENT_MESSAGE: AGENT_MESSAGE_CHUNK,
    AGENT_THOUGHT: AGENT_THOUGHT_CHUNK,
    USER_MESSAGE: USER_MESSAGE_CHUNK,
}
# v2 tool call statuses v1 lacks, and what a v1 client is told instead.
V1_STATUS = {"cancelled": "failed", "paused": "pending"}
V2_ONLY_TOOL_FIELDS = ("capabilities",)
CONTENT_ITEM, DIFF_ITEM = "content", "diff"
# v1's stop reasons; any other ends the turn as below.
V1_STOP_REASONS = frozenset({"end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"})


def v1_stop_reason(reason: str | None) -> str | None:
    """The v1 stop reason for a v2 one; None for a failed turn (`error`, `_internal_error`),
    which v1 reports as an error answer to `session/prompt`. A custom `_` reason, which v1's
    closed set cannot carry, ends the turn `end_turn` (logged)."""
    reason = reason or STOP_END_TURN
    if reason in V1_STOP_REASONS:
        return reason
    if reason in ("error", "_internal_error"):
        return None
    logger.debug("v1: stop reason %r has no v1 form; the turn ends end_turn", reason)
    return STOP_END_TURN


def _not_sent(session_id: str, what: str, why: str) -> None:
    logger.debug("v1 session %r: %s not sent (%s)", session_id, what, why)


class V1SessionDialect:
    """One session's v1 wire: turns v2 update objects into v1 ones and sends them (`peer`,
    checked by `checks`, v1's tables). Each callback gets the session id first: `on_echo` the
    messageId of each prompt the turn took up (its echo), `on_idle` the stop reason of each
    idle report, `on_options` the options (v2 form) of each `config_option_update`,
    answering the mode to tell with `current_mode_update` (None: nothing to tell). One set of
    callbacks serves every session: a session's dialect holds no closure of its own.
    `children`: the connection's child sessions (None: the client follows none)."""

    def __init__(
        self,
        session_id: str,
        peer: Peer,
        checks: OutgoingChecks,
        *,
        on_echo: Callable[[str, str], None] | None = None,
        on_idle: Callable[[str, str | None], None] | None = None,
        on_options: Callable[[str, Any], str | None] | None = None,
        gates: ClientGates | None = None,
        children: V1Children | None = None,
    ) -> None:
        self.session_id = session_id
        self.gates = gates or ClientGates(V1, None)
        self.children = children or V1Children(followed=False)
        self._peer = peer
        self._notify = notifier(peer)
        self._checks = checks
        self._on_echo = on_echo
        self._on_idle = on_idle
        self._on_options = on_options
        # Ids as the keys of dicts, not sets: a dict of strings is not tracked by the collector,
        # and an agent keeps one dialect per session it ever opened.
        self._streamed: dict[str, None] = {}  # message ids with chunks on the wire
        self._reported: dict[str, None] = {}  # tool call ids sent as `tool_call`
        self._content: dict[str, list[Any]] = {}  # tool call content so far, by id

    async def send_update(self, update: Mapping[str, Any], *, replay: bool = False) -> None:
        """Send what `update` (a v2 update object) is on v1; `replay`: a `session/load` replay
        (the prompt echo is sent then, as chunks)."""
        for item in self.translate(update, replay=replay):
            params = {"sessionId": self.session_id, "update": item}
            try:
                self._checks.session_update(params)
            except ValidationError as error:
                logger.warning(
                    "v1 session %s: %s update not sent, it does not fit v1's types: %s",
                    self.session_id,
                    item.get(UPDATE_TAG_FIELD),
                    error,
                )
                continue
            await self._notify(SESSION_UPDATE, params)

    def takes_plain_chunk(self, update: dict[str, Any]) -> bool:
        """A plain text chunk is the same update on v1; when v1's schema takes every such
        chunk (`plain_chunks_fit`, probed as v2's is) it needs neither a copy nor a check."""
        if not self._checks.plain_chunks_fit:
            return False
        self._streamed[update["messageId"]] = None
        return True

    async def request_permission(self, params: Mapping[str, Any]) -> Any:
        """Ask on v1's wire (see `v1_permission_params`); the answer's shape is the same."""
        asked = v1_permission_params(params)
        self._checks.request(REQUEST_PERMISSION, asked)
        return await self._peer.request(REQUEST_PERMISSION, asked)

    def translate(self, update: Mapping[str, Any], *, replay: bool = False) -> list[dict[str, Any]]:
        """The v1 update objects for one v2 update (none when v1 cannot say it: logged)."""
        tag = update.get(UPDATE_TAG_FIELD)
        if tag in (AGENT_MESSAGE_CHUNK, AGENT_THOUGHT_CHUNK, USER_MESSAGE_CHUNK):
            # The same on v1 (most of a turn's traffic): one copy, the tag first as below.
            message_id = update.get("messageId")
            if isinstance(message_id, str):
                self._streamed[message_id] = None
            return [{UPDATE_TAG_FIELD: tag, **update}]
        fields = {k: v for k, v in update.items() if k != UPDATE_TAG_FIELD}
        if tag == STATE_UPDATE:
            if fields.get("state") == STATE_IDLE and self._on_idle is not None:
                self._on_idle(self.session_id, fields.get("stopReason"))
            _not_sent(self.session_id, f"state_update {fields.get('state')!r}", "v1 has none")
            return []
        if tag == USER_MESSAGE and not replay:
            if self._on_echo is not None and isinstance(fields.get("messageId"), str):
                self._on_echo(self.session_id, fields["messageId"])
            _not_sent(self.session_id, "user_message echo", "the v1 client shows its prompt")
            return []
        if tag in CHUNK_OF:
            return self._whole_message(str(tag), fields)
        if tag == TOOL_CALL_UPDATE:
            return self._tool_call(fields)
        if tag == TOOL_CALL_CONTENT_CHUNK:
            return self._tool_call_content(fields)
        if tag == PLAN_UPDATE:
            return self._plan(fields)
        if tag in (TERMINAL_UPDATE, TERMINAL_OUTPUT_CHUNK):
            _not_sent(self.session_id, str(tag), "v1 terminals are the client's, not display-only")
            return []
        if tag == AVAILABLE_COMMANDS_UPDATE:
            return self._commands(fields)
        if tag == CONFIG_OPTION_UPDATE:
            return self._config_options(fields)
        if tag in SUBAGENT_TAGS and not self.children.followed:
            return self.children.held(self.session_id, tag, fields)
        gate = self.gates.holds_back(tag)
        if gate is not None:
            _not_sent(self.session_id, str(tag), f"the client did not advertise {gate.name}")
            return []
        return [{UPDATE_TAG_FIELD: tag, **fields}]

    def _config_options(self, fields: dict[str, Any]) -> list[dict[str, Any]]:
        """v1 names an option's id `id`; a v1 client that was offered modes learns a change
        of the mode option from `current_mode_update`, which is what it watches."""
        options = fields.get("configOptions")
        out = [{UPDATE_TAG_FIELD: CONFIG_OPTION_UPDATE, **fields}]
        out[0]["configOptions"] = self.gates.config_options(v1_config_options(options))
        mode = None if self._on_options is None else self._on_options(self.session_id, options)
        if mode is not None:
            out.append({UPDATE_TAG_FIELD: CURRENT_MODE_UPDATE, "currentModeId": mode})
        return out

    def _commands(self, fields: dict[str, Any]) -> list[dict[str, Any]]:
        """v2's command list is tagged by `type` (`command`, or kinds v1 lacks); v1's holds
        plain commands."""
        commands = []
        for item in fields.get("availableCommands") or []:
            if isinstance(item, dict) and item.get("type") == "command":
                commands.append({k: v for k, v in item.items() if k != "type"})
            else:
                kind = item.get("type") if isinstance(item, dict) else None
                _not_sent(self.session_id, f"available command of type {kind!r}", "no v1 form")
        return [
            {**fields, UPDATE_TAG_FIELD: AVAILABLE_COMMANDS_UPDATE, "availableCommands": commands}
        ]

    # -- messages -------------------------------------------------------------------------------

    def _whole_message(self, tag: str, fields: dict[str, Any]) -> list[dict[str, Any]]:
        message_id = fields.get("messageId")
        content = fields.get("content")
        if message_id in self._streamed:
            _not_sent(self.session_id, f"{tag} {message_id}", "v1 cannot replace streamed chunks")
            return []
        if not isinstance(content, list) or not content:
            _not_sent(self.session_id, f"{tag} {message_id} without content", "v1 has no patch")
            return []
        if isinstance(message_id, str):
            self._streamed[message_id] = None
        chunk = CHUNK_OF[tag]
        extra = {"messageId": message_id} if isinstance(message_id, str) else {}
        return [{UPDATE_TAG_FIELD: chunk, **extra, "content": block} for block in content]

    # -- tool calls -----------------------------------------------------------------------------

    def _tool_call(self, fields: dict[str, Any]) -> list[dict[str, Any]]:
        call_id = fields.get("toolCallId")
        if not isinstance(call_id, str):
            return [{UPDATE_TAG_FIELD: TOOL_CALL_UPDATE, **fields}]  # the check will say why
        out = {k: v for k, v in fields.items() if k not in V2_ONLY_TOOL_FIELDS}
        for name in V2_ONLY_TOOL_FIELDS:
            if name in fields:
                _not_sent(self.session_id, f"tool call {call_id} {name}", "v2 only")
        status = out.get("status")
        if isinstance(status, str) and status in V1_STATUS:
            out["status"] = V1_STATUS[status]
            logger.debug("v1: tool call %r status %r sent as %r", call_id, status, out["status"])
        if "content" in out:
            content = out["content"] if isinstance(out["content"], list) else []
            self._content[call_id] = list(content)
            out["content"] = self._shown(call_id, content)
        return [self._reported_form(call_id, out)]

    def _tool_call_content(self, fields: dict[str, Any]) -> list[dict[str, Any]]:
        call_id = fields.get("toolCallId")
        if not isinstance(call_id, str):
            _not_sent(self.session_id, "tool_call_content_chunk without an id", "malformed")
            return []
        gathered = self._content.setdefault(call_id, [])
        gathered.append(fields.get("content"))
        out = {"toolCallId": call_id, "content": self._shown(call_id, gathered)}
        return [self._reported_form(call_id, out)]

    def _reported_form(self, call_id: str, fields: dict[str, Any]) -> dict[str, Any]:
        """`tool_call` the first time an id is reported, `tool_call_update` after."""
        if call_id in self._reported:
            return {UPDATE_TAG_FIELD: TOOL_CALL_UPDATE, **fields}
        self._reported[call_id] = None
        first = {k: v for k, v in fields.items() if v is not None}  # nothing to clear yet
        if not isinstance(first.get("title"), str):
            name = first.get("name")
            first["title"] = name if isinstance(name, str) else call_id
        return {UPDATE_TAG_FIELD: V1_TOOL_CALL, **first}

    def _shown(self, call_id: str, content: list[Any]) -> list[Any]:
        """Tool call content in v1's item types: `content` as it is, a v2 `diff` (changed paths
        and an optional patch; v1's diff wants whole old and new texts) as text content saying
        the same, display-only `terminal` items and unknown kinds left out (logged)."""
        kept = []
        for item in content:
            kind = item.get("type") if isinstance(item, dict) else None
            if kind == CONTENT_ITEM:
                kept.append(item)
            elif kind == DIFF_ITEM:
                kept.append({"type": CONTENT_ITEM, "content": diff_as_text(item)})
                logger.debug("v1: tool call %r diff sent as text content", call_id)
            else:
                _not_sent(self.session_id, f"tool call {call_id} {kind!r} item", "no v1 form")
        return kept

    # -- plans ----------------------------------------------------------------------------------

    def _plan(self, fields: dict[str, Any]) -> list[dict[str, Any]]:
        plan = fields.get("plan")
        entries = plan.get("entries") if isinstance(plan, dict) else None
        if not isinstance(entries, list):
            kind = plan.get("type") if isinstance(plan, dict) else None
            _not_sent(self.session_id, f"plan_update of type {kind!r}", "v1 plans are entries")
            return []
        out: dict[str, Any] = {UPDATE_TAG_FIELD: V1_PLAN, "entries": entries}
        if "_meta" in fields:
            out["_meta"] = fields["_meta"]
        return [out]


def diff_as_text(item: Mapping[str, Any]) -> dict[str, Any]:
    """A text block for a v2 diff item: one line per change (`modify /a`, `move /a -> /b`),
    then the patch text, when there is one."""
    lines = []
    for change in item.get("changes") or []:
        if not isinstance(change, dict):
            continue
        where = str(change.get("path", "?"))
        if isinstance(change.get("oldPath"), str):
            where = f"{change['oldPath']} -> {where}"
        lines.append(f"{change.get('operation', 'change')} {where}")
    patch = item.get("patch")
    if isinstance(patch, dict) and isinstance(patch.get("text"), str):
        lines += ["", patch["text"]]
    return {"type": "text", "text": "\n".join(lines)}


def v1_permission_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """v1 `session/request_permission` params for v2 ones. v1 asks about a tool call: the one
    a v2 `subject` of type `tool_call` carries (v2-only fields left out, statuses mapped as for
    updates; its fields are the call's own, which a v1 client merges into the call it holds,
    so the question is not made its title), else a tool call made for the request (id
    `perm_...`) titled with the request's title, the v2 `description` as its text content.
    Other v2 subject types have no v1 form: logged, and the request goes out as if it had
    none."""
    subject = params.get("subject")
    carried = subject.get("toolCall") if isinstance(subject, dict) else None
    tool_call: dict[str, Any]
    if isinstance(carried, dict) and isinstance(carried.get("toolCallId"), str):
        tool_call = {k: v for k, v in carried.items() if k not in V2_ONLY_TOOL_FIELDS}
        status = tool_call.get("status")
        if isinstance(status, str) and status in V1_STATUS:
            tool_call["status"] = V1_STATUS[status]
    else:
        if isinstance(subject, dict):
            logger.debug("v1: permission subject of type %r not sent", subject.get("type"))
        tool_call = {"toolCallId": new_id("perm"), "title": params.get("title")}
        description = params.get("description")
        if isinstance(description, str):
            text = {"type": "text", "text": description}
            tool_call["content"] = [{"type": "content", "content": text}]
    out: dict[str, Any] = {
        "sessionId": params.get("sessionId"),
        "toolCall": tool_call,
        "options": params.get("options"),
    }
    if "_meta" in params:
        out["_meta"] = params["_meta"]
    return out
