"""What an agent author's turn handler works with: one session and its update helpers.

Every helper sends one `session/update` and returns once it is written; updates reach the wire
in call order. Ids (messageId, toolCallId, terminalId, planId) are generated when not given.
Field names in `**fields` arguments are wire names (`rawInput`, `exitStatus`, ...); passing
`None` for a patch field sends `null`, which clears it on the client.

Everything a helper sends is first validated against the schema's types (given `OutgoingChecks`,
as generated agents are): invalid data raises pydantic's `ValidationError`, nothing written.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import cast

from pydantic import BaseModel, ValidationError

from ..core.client_gates import PROMPT_SUGGESTIONS, PROMPT_SUGGESTIONS_UPDATE, ClientGates
from ..rpc.outgoing_checks import NoChecks, OutgoingChecks
from ..rpc.peer import Peer, notifier
from ..state.history import (
    DEFAULT_HISTORY_LIMIT,
    ChunkRun,
    HistoryRecorder,
    check_history_limit,
    history_bytes,
)
from ..store.journal import Journal
from ..wire.errors import ConnectionClosed, ProtocolUsageError
from ..wire.jsonvalue import JsonObject, JsonValue, as_object, to_json
from ..wire.protocol import (
    AGENT_MESSAGE,
    AGENT_MESSAGE_CHUNK,
    AGENT_THOUGHT,
    AGENT_THOUGHT_CHUNK,
    PLAN_UPDATE,
    REQUEST_PERMISSION,
    SESSION_INFO_UPDATE,
    SESSION_UPDATE,
    STATE_REQUIRES_ACTION,
    STATE_RUNNING,
    STATE_UPDATE,
    SUPPORTED_PROTOCOL_VERSIONS,
    UPDATE_TAG_FIELD,
    USAGE_UPDATE,
    USER_MESSAGE,
)
from .handles import Content, MessageStream, SessionDialect, Terminal, ToolCall

# Re-exported: where the agent's modules (and generated code) find them.
from .prompts import CURRENT_TURN as CURRENT_TURN
from .prompts import Accepted as Accepted
from .prompts import Prompt as Prompt
from .prompts import Turn as Turn
from .prompts import new_id as new_id


class AgentSession:
    """One session on the agent side. Turn handlers get it as their first argument.

    `title` (set it to name the session) and `updated_at` appear in `session/list`; `history`
    holds the updates sent except state reports (runs of chunks that start a message kept as
    that whole message: history.py) and `last_state` the latest of those: `session/resume`
    replays both, the newest `history_limit` bytes of JSON (None: no bound; `history_dropped`
    counts what went; an author who persists sessions restores them in `load_session`).
    `client_gates` says what the client may be sent, and in which form (core/client_gates.py);
    `prompt_keys` the prompts' idempotency keys, kept with the session (prompts.py)."""

    def __init__(
        self,
        session_id: str,
        peer: Peer,
        setup: Mapping[str, JsonValue],
        client_capabilities: JsonValue,
        checks: OutgoingChecks | None = None,
        chunk_runs: Mapping[str, ChunkRun] | None = None,
        live: frozenset[str] = frozenset(),
        *,
        history_limit: int | None = DEFAULT_HISTORY_LIMIT,
        client_gates: ClientGates | None = None,
    ) -> None:
        self.session_id = session_id
        self.setup: JsonObject = dict(setup)  # the session/new (or resume) params
        self.client_capabilities = client_capabilities
        self.client_gates = client_gates or ClientGates(SUPPORTED_PROTOCOL_VERSIONS[-1], None)
        self._peer = peer
        self.owner: Peer | None = peer  # the connection it serves (sessions.py); None: detached
        self._notify = notifier(peer)
        self._checks = checks or NoChecks()
        self.turn: Turn | None = None  # the running foreground work, if any
        self.title: str | None = None
        # Seconds since the epoch, formatted when read: per update only the clock is read.
        self._updated: float | str = time.time()
        self.closed = False
        self.history: list[JsonObject] = []
        # Made by the first update sent: a session that sends none keeps fewer objects.
        self._history: HistoryRecorder | None = None
        self._chunk_runs, self._live, self._history_limit = chunk_runs, live, history_limit
        check_history_limit(history_limit)  # now, though the recorder comes later
        self.last_state: JsonObject | None = None  # the latest state report
        self.prompt_keys: dict[str, str] = {}  # idempotency key -> messageId (prompts.py)
        # With a durable store (durable_sessions.py): its writer, and the author's JSON.
        self.journal: Journal | None = None
        self.data: JsonValue = None
        self._dialect: SessionDialect | None = None  # the wire's when not v2's (see `speak`)
        self._dialect_for: Callable[[AgentSession], SessionDialect] | None = None
        # Subagents (subagents.py): a child's parent, the children it announced, whether the
        # client may cancel it, and the registry's hook that registers a new child.
        self.parent: AgentSession | None = None
        self.children: dict[str, AgentSession] = {}
        self.cancellable = False
        self.adopt: Callable[[AgentSession], Awaitable[None]] | None = None

    @property
    def dialect(self) -> SessionDialect | None:
        """The wire dialect this session's reports are written in; None on v2."""
        dialect = self._dialect
        if dialect is None and self._dialect_for is not None:
            dialect = self._dialect = self._dialect_for(self)
        return dialect

    @dialect.setter
    def dialect(self, dialect: SessionDialect | None) -> None:
        self._dialect, self._dialect_for = dialect, None

    def speak(self, dialect_for: Callable[[AgentSession], SessionDialect] | None) -> None:
        """Write in the dialect `dialect_for` makes (None: v2's wire), made by the first report
        or permission request: a session that sends nothing keeps no dialect to collect."""
        self._dialect, self._dialect_for = None, dialect_for

    @property
    def history_bytes(self) -> int:
        """Bytes of JSON the history holds (as `history_limit` counts them)."""
        return history_bytes(self.history, self._history)

    @property
    def history_dropped(self) -> int:
        """How many of the oldest history entries were dropped to keep within the limit."""
        return 0 if self._history is None else self._history.dropped

    @property
    def updated_at(self) -> str:
        """When the session last sent an update (ISO 8601, UTC), as `session/list` shows it."""
        if isinstance(self._updated, float):  # formatting per update was ~1 µs per send
            moment = datetime.fromtimestamp(self._updated, UTC)
            self._updated = moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        return self._updated

    @updated_at.setter
    def updated_at(self, value: str) -> None:
        self._updated = value

    @property
    def cwd(self) -> str | None:
        cwd = self.setup.get("cwd")
        return cwd if isinstance(cwd, str) else None

    @property
    def peer(self) -> Peer:
        """The connection the session's updates go to (the last to open or resume it)."""
        return self._peer

    def attach(self, peer: Peer, setup: Mapping[str, JsonValue], gates: ClientGates) -> None:
        """Reopen (session/resume): new setup params, open again, owned by `peer`."""
        self._peer = self.owner = peer
        self._notify = notifier(peer)
        self.setup = dict(setup)
        self.client_capabilities, self.client_gates = gates.capabilities, gates
        self.closed = False

    @contextlib.asynccontextmanager
    async def holding_updates(self) -> AsyncIterator[None]:
        """Within, what this session sends on v2's wire is recorded but held, then written in
        order on leaving unless the block failed (v2 holds live updates during a replay)."""
        held: list[object] = []

        async def keep(method: str, params: object) -> None:
            held.append(params)

        self._notify = keep
        try:
            yield
        finally:
            send = notifier(self._peer)
            while held and sys.exc_info()[0] is None:  # a failed replay: they stay history
                await send(SESSION_UPDATE, held.pop(0))
            self._notify = send  # no await since `held` was seen empty: nothing slips past

    def foreground_turn(self) -> Turn | None:
        """The running foreground work the calling task belongs to, else None (a background
        task, or work that has already ended)."""
        turn = CURRENT_TURN.get()
        return turn if turn is not None and turn is self.turn and not turn.finished else None

    @property
    def running(self) -> bool:
        return self.turn is not None

    def take_prompts(self) -> list[Prompt]:
        """Prompts accepted while this turn was running, not yet taken. Prompts the handler
        does not take are handed to it one by one after it returns, in the same foreground
        work (no idle in between)."""
        if self.turn is None:
            return []
        taken, self.turn.queued = self.turn.queued, []
        return taken

    # -- raw updates ----------------------------------------------------------------------------

    async def send_update(self, update: Mapping[str, object] | BaseModel) -> None:
        """Send one update object (a dict with its tag, or a generated model); raises
        pydantic's `ValidationError`, sending nothing, when it does not fit the schema, and
        `ProtocolUsageError` once the session is closed. Prompt suggestions (unstable) go
        only to a client that advertised them (core/client_gates.py), else nothing is sent."""
        data = to_json(update)
        suggests = data.get(UPDATE_TAG_FIELD) == PROMPT_SUGGESTIONS_UPDATE
        if not suggests or self.client_gates.allows(PROMPT_SUGGESTIONS):
            await self.send_json(data)

    async def send_json(self, update: JsonObject) -> None:
        """`send_update` for an update already in wire JSON, no model inside (the handles build
        chunks from converted parts): checked the same, without another conversion walk."""
        if self.closed:
            raise ProtocolUsageError(f"session {self.session_id} is closed: nothing can be sent")
        await self._emit(update)

    async def _emit(self, data: JsonObject) -> None:
        """Check and write one update. The runtime's own lifecycle reports (echo, state) come
        here directly: a cancelled turn still ends idle after its session was closed."""
        params = {"sessionId": self.session_id, "update": data}
        plain_chunk = self._checks.session_update(params)
        journal = self.journal
        if journal is not None and data.get(UPDATE_TAG_FIELD) == STATE_UPDATE:
            await journal.state(data)  # a turn's end is written before the client is told
        dialect = self._dialect
        if dialect is None and self._dialect_for is not None:
            dialect = self.dialect  # made now: the session's first report
        sent: object = None  # the frame written, when the connection says (rpc/peer.notifier)
        if dialect is None or (plain_chunk and dialect.takes_plain_chunk(data)):
            sent = await self._notify(SESSION_UPDATE, params)
        else:
            await dialect.send_update(data)
        self._updated = time.time()
        tag = data.get(UPDATE_TAG_FIELD) if isinstance(data, dict) else None
        if tag == STATE_UPDATE:
            self.last_state = data
            return
        if tag == SESSION_INFO_UPDATE and "title" in data:
            # session/list shows what the client was told (a string or null: checked above)
            self.title = cast("str | None", data["title"])
        recorder = self._history
        if recorder is None:
            recorder = self._history = HistoryRecorder(
                self._chunk_runs, self._accepts, self._live, limit=self._history_limit
            )
        recorder.record(self.history, data)
        if journal is not None and tag not in self._live:
            journal.add(data, sent)  # its bytes stored as written: not encoded again

    def restore_history(self, updates: Sequence[JsonObject]) -> None:
        """Record `updates`, as they were sent (a durable store's), into an empty history."""
        self.history = []
        recorder = self._history = HistoryRecorder(
            self._chunk_runs, self._accepts, self._live, limit=self._history_limit
        )
        for update in updates:
            recorder.record(self.history, update)

    async def save_data(self, data: JsonValue) -> None:
        """Replace the author's own JSON kept with this session (`data`); with a durable
        store, returns once it is written (raises `StoreUnavailable` when it cannot be)."""
        self.data = data
        if self.journal is not None:
            await self.journal.store.save_data(self.session_id, data)

    def _accepts(self, update: JsonObject) -> bool:
        """Would this update pass the outgoing check (for a whole form the history keeps)?"""
        params = {"sessionId": self.session_id, "update": update}
        try:
            self._checks.notification(SESSION_UPDATE, params)
        except ValidationError:
            return False
        return True

    async def send_fields(self, tag: str, /, **fields: object) -> None:
        await self.send_update({UPDATE_TAG_FIELD: tag, **fields})

    async def report_state(self, state: str, stop_reason: str | None = None) -> None:
        update: JsonObject = {UPDATE_TAG_FIELD: STATE_UPDATE, "state": state}
        if stop_reason is not None:
            update["stopReason"] = stop_reason
        await self._emit(update)

    async def report_user_message(self, prompt: Prompt) -> None:
        await self._emit(
            {
                UPDATE_TAG_FIELD: USER_MESSAGE,
                "messageId": prompt.message_id,
                "content": cast("list[JsonValue]", prompt.content),
            }
        )

    async def set_title(self, title: str | None) -> None:
        """Name the session (None clears the name): tells the client (`session_info_update`)
        and `session/list`."""
        await self.send_fields(SESSION_INFO_UPDATE, title=title)

    # -- messages, thoughts ---------------------------------------------------------------------

    def agent_message(self, message_id: str | None = None) -> MessageStream:
        """A new agent message to stream into (`append`) or set whole (`replace`)."""
        return MessageStream(self, AGENT_MESSAGE, AGENT_MESSAGE_CHUNK, message_id or new_id("msg"))

    def thought(self, message_id: str | None = None) -> MessageStream:
        return MessageStream(
            self, AGENT_THOUGHT, AGENT_THOUGHT_CHUNK, message_id or new_id("thought")
        )

    async def say(self, content: Content | Sequence[Content]) -> str:
        """Send a whole agent message; returns its messageId."""
        stream = self.agent_message()
        await stream.replace(content)
        return stream.message_id

    async def think(self, content: Content | Sequence[Content]) -> str:
        stream = self.thought()
        await stream.replace(content)
        return stream.message_id

    # -- plans, tool calls, terminals, usage -----------------------------------------------------

    async def update_plan(
        self, entries: Sequence[Mapping[str, object] | BaseModel], *, plan_id: str | None = None
    ) -> str:
        """Replace the plan `plan_id` (a new one when None) with `entries`; returns its id."""
        plan_id = plan_id or new_id("plan")
        plan = {"type": "items", "planId": plan_id, "entries": [as_object(e) for e in entries]}
        await self.send_fields(PLAN_UPDATE, plan=plan)
        return plan_id

    async def start_tool_call(
        self, title: str, *, tool_call_id: str | None = None, **fields: object
    ) -> ToolCall:
        """Report a new tool call (status defaults to pending on the client)."""
        call = ToolCall(self, tool_call_id or new_id("call"))
        await call.update(title=title, **fields)
        return call

    async def open_terminal(self, *, terminal_id: str | None = None, **fields: object) -> Terminal:
        """Report a display-only terminal (`command`, `cwd`, ... as wire fields)."""
        terminal = Terminal(self, terminal_id or new_id("term"))
        await terminal.update(**fields)
        return terminal

    async def report_usage(
        self, used: int, size: int, cost: Mapping[str, object] | BaseModel | None = None
    ) -> None:
        extra = {} if cost is None else {"cost": as_object(cost)}
        await self.send_fields(USAGE_UPDATE, used=used, size=size, **extra)

    # -- permission -----------------------------------------------------------------------------

    async def request_permission(
        self, title: str, options: Sequence[Mapping[str, object] | BaseModel], **fields: object
    ) -> JsonValue:
        """Ask the client; returns the `outcome` object. Within foreground work it reports
        requires_action while the first of any concurrent requests is open and running once the
        last one is answered or given up (idle follows if the work is being cancelled); in a
        background task no state. Read it with `protocol.selected_option` (else: no approval)."""
        params = to_json(
            {"sessionId": self.session_id, "title": title, "options": list(options), **fields}
        )
        self._checks.request(REQUEST_PERMISSION, params)
        turn = self.foreground_turn()
        if turn is None:
            result = await self._ask(params)
            return result.get("outcome") if isinstance(result, dict) else None
        first = turn.permission_asked()  # the core says what an ask and its answer report
        try:
            if first:
                await self.report_state(STATE_REQUIRES_ACTION)
            result = await self._ask(params)
        finally:
            if turn.permission_settled(foreground=turn is self.turn):
                with contextlib.suppress(ConnectionClosed):
                    await self.report_state(STATE_RUNNING)
        return result.get("outcome") if isinstance(result, dict) else None

    async def _ask(self, params: JsonObject) -> JsonValue:
        dialect = self.dialect
        if dialect is None:
            return await self._peer.request(REQUEST_PERMISSION, params)
        return await dialect.request_permission(params)
