"""One session's updates on their way to a durable store, written in batches.

A turn that streams ten thousand chunks should not cost ten thousand transactions. `add`
only buffers (a list append; no await, nothing on the event loop's path but a timer armed
once per interval); the buffer is written as one `Batch` when it holds `batch_size`
updates, `interval` seconds after its first update, and when the caller `flush`es (the
session does at each turn's end, before its idle report goes out, so a client that saw a
turn end has it stored). What was not written when the process dies is lost, nothing more:
the store keeps whole batches (one transaction each), numbered, so none is kept twice.

A write that fails keeps its updates buffered, in order, for the next try (the next batch,
tick or flush) and sets `failure` (why, for the client's error answer) until one succeeds.
`LeaseLost` is final: another process serves the session now, the buffer is dropped and
`lost` set; nothing more is written.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Final

from ..rpc.task_owner import TaskOwner
from ..wire.jsonvalue import JsonObject, JsonValue
from ..wire.protocol import SESSION_INFO_UPDATE, STATE_IDLE, UPDATE_TAG_FIELD
from .durable import Batch, DurableStore, LeaseLost, StoreUnavailable

logger = logging.getLogger(__name__)

BATCH_SIZE: Final = 512  # updates per write, at most
FLUSH_INTERVAL: Final = 0.1  # seconds an update waits, at most, before it is written


class Journal:
    """The write-behind buffer of one session (see the module doc)."""

    __slots__ = (
        "_config",
        "_first",
        "_frames",
        "_keys",
        "_lock",
        "_pending",
        "_scheduled",
        "_state",
        "_tasks",
        "_timer",
        "_title",
        "_titled",
        "batch_size",
        "failure",
        "interval",
        "lost",
        "on_lost",
        "owner",
        "session_id",
        "store",
    )

    def __init__(
        self,
        store: DurableStore,
        session_id: str,
        owner: str,
        next_seq: int,
        tasks: TaskOwner,
        *,
        batch_size: int = BATCH_SIZE,
        interval: float = FLUSH_INTERVAL,
    ) -> None:
        self.store, self.session_id, self.owner = store, session_id, owner
        self.batch_size, self.interval = batch_size, interval
        self._tasks = tasks
        self._first = next_seq  # the sequence number of the first update buffered
        self._pending: list[JsonObject] = []
        self._frames: list[object] = []  # beside `_pending`: each one's wire frame, if known
        self._keys: list[tuple[str, str]] = []  # prompts' idempotency keys, with the batch
        self._title: str | None = None
        self._titled = False  # the title changed since the last write
        self._state: JsonObject | None = None
        self._config: JsonValue = None
        self._timer: asyncio.TimerHandle | None = None
        self._scheduled = False  # a write is spawned and has not taken the buffer yet
        self._lock = asyncio.Lock()
        self.failure: str | None = None
        self.lost = False
        self.on_lost: Callable[[], None] | None = None  # told once the lease is found lost

    @property
    def written(self) -> int:
        """The sequence number of the next update to write: how many this journal's session
        has in the store, as far as it knows."""
        return self._first

    @property
    def pending(self) -> int:
        """Updates buffered, not yet written."""
        return len(self._pending)

    def add(self, update: JsonObject, frame: object = None) -> None:
        """Buffer one update for the history (in the order sent); `frame`: the bytes of the
        `session/update` notification it was sent in, if known (kept instead of encoding the
        update again)."""
        if self.lost:
            return
        if update.get(UPDATE_TAG_FIELD) == SESSION_INFO_UPDATE and "title" in update:
            title = update["title"]
            self.note_title(title if isinstance(title, str) else None)
        pending = self._pending
        pending.append(update)
        self._frames.append(frame)
        if len(pending) >= self.batch_size and not self._scheduled:
            self._write_soon()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.interval, self._write_soon)

    def remember_key(self, key: str, message_id: str) -> None:
        """Keep a prompt's idempotency key with the next batch. The user message the prompt
        inserted is echoed once its answer is written, so it lands in the same batch or the
        next: a process killed between those two writes keeps a key whose message is lost."""
        if not self.lost:
            self._keys.append((key, message_id))
            if self._timer is None and not self._scheduled:
                self._timer = asyncio.get_running_loop().call_later(self.interval, self._write_soon)

    def note_title(self, title: str | None) -> None:
        self._title, self._titled = title, True

    async def state(self, update: JsonObject) -> None:
        """A state report: kept as the record's last state; an idle one (a turn's end) is
        written before it returns (a failure stays in `failure`)."""
        self._state = update
        if update.get("state") == STATE_IDLE:
            with contextlib.suppress(StoreUnavailable):
                await self.flush()

    def note_config(self, config: JsonValue) -> None:
        self._config = config

    def retry(self) -> None:
        """Try writing again (after a failure: with nothing buffered too, as a probe)."""
        self._write_soon()

    def _write_soon(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._tasks.closing and not self._scheduled:
            self._scheduled = True
            self._tasks.spawn(self._write_quietly(), name=f"journal {self.session_id}")

    async def _write_quietly(self) -> None:
        """A write no caller waits for: a failure is kept in `failure` (and logged)."""
        with contextlib.suppress(StoreUnavailable):
            await self.flush()

    async def flush(self) -> None:
        """Write what is buffered; returns once it is committed. Raises `StoreUnavailable`
        (the updates stay buffered) or `LeaseLost` (dropped)."""
        async with self._lock:  # one write at a time: batches land in order
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._scheduled = False  # what is added from now on needs a write of its own
            changed = self._pending or self._keys or self._titled or self._state or self._config
            if self.lost or not (changed or self.failure):
                return
            taken, self._pending = self._pending, []
            frames, self._frames = self._frames, []
            keys, self._keys = self._keys, []
            batch = Batch(
                self.session_id,
                self._first,
                taken,
                self.owner,
                title=self._title if self._titled else None,
                cleared_title=self._titled and self._title is None,
                last_state=self._state,
                config=self._config,
                prompt_keys=keys,
                frames=frames,
            )
            titled, self._titled, self._state, self._config = self._titled, False, None, None
            try:
                await _appended(self.store, batch)
            except LeaseLost as error:
                self.lost, self.failure = True, str(error)
                logger.warning("%s: nothing more of it is written here", error)
                if self.on_lost is not None:
                    self.on_lost()
                raise
            except StoreUnavailable as error:
                self._pending[:0] = taken  # first, in order, for the next try
                self._frames[:0] = frames
                self._keys[:0] = keys
                self._titled = self._titled or titled  # and what changed, unless newer
                self._state = self._state or batch.last_state
                self._config = self._config if self._config is not None else batch.config
                if self.failure is None:
                    logger.error("session %s not written: %s", self.session_id, error)
                self.failure = str(error)
                raise
            self._first += len(taken)
            self.failure = None


async def _appended(store: DurableStore, batch: Batch) -> None:
    """`store.append`, whatever else a store (an author's own included) raises made a
    `StoreUnavailable`: a write that dies would leave the turn waiting on it for ever."""
    try:
        await store.append(batch)
    except (StoreUnavailable, asyncio.CancelledError):
        raise
    except Exception as error:
        raise StoreUnavailable(f"session store failed: {error!r}") from error
