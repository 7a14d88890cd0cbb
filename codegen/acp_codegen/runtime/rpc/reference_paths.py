"""`Connection` with its fast paths replaced by the slow, obvious code they must equal.

Three of the connection's fast paths are methods; `ReferenceConnection` overrides each with its
reference, so a test can run both classes on the same stream and require the same bytes on the
wire and the same messages handled, in the same order (tests/runtime/test_fast_paths_rpc.py).
Nothing in the runtime makes one: it is the yardstick, and the documentation of what the fast
code means. docs/design.md ("Performance-sensitive paths") says what each fast path buys.

- The incoming step (`IncomingMessages._take_line`): here every line gets a coroutine, every
  notification goes through the dispatcher's coroutines (no inline handler), and every
  request gets a task of its own, created with `create_task`, then one yield to the loop so
  it starts before the next message is read (no request answered within the read, no
  coroutine stepped by hand, no `YIELD_ONCE`).
- The notification burst (`Connection._write_notification`): here each frame is written at
  once and drained.
- The reader loop's batch (`IncomingMessages._buffered_lines`): here it takes the lines a
  source buffered one at a time (`buffered_line`), not all at once (`whole_lines`).

One more reading fast path, lines handled while the reader loop is parked, is the reader's
choice: `PushedLines(parks=False)` is its reference, and works with either class.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..wire.jsonvalue import JsonParams
from ..wire.line_framing import decode_line
from .connection import Connection
from .incoming import CANCEL_REQUEST_METHOD, logger


class ReferenceConnection(Connection):
    """A `Connection` that takes the obvious path everywhere its parent takes a fast one."""

    @staticmethod
    def _buffered_lines(source: object) -> Callable[[], Sequence[bytes]]:
        """The lines `source` holds whole, one per call (`buffered_line`), not all at once."""
        one: Callable[[], bytes | None] | None = getattr(source, "buffered_line", None)

        def next_one() -> Sequence[bytes]:
            line = None if one is None else one()
            return () if line is None else (line,)

        return next_one

    async def _take_line(self, line: bytes) -> None:
        """Decode the line, then hand it to the general path (`_on_payload`), always awaited."""
        if not line or line.isspace():
            return
        try:
            payload = decode_line(line)
        except ValueError as problem:
            await self._not_json(line, problem)
            return
        await self._on_payload(payload)  # a request: a task, then `asyncio.sleep(0)`

    async def _on_notification(self, method: str, params: JsonParams) -> None:
        """Every notification through the dispatcher's coroutine, batch entries included."""
        if method == CANCEL_REQUEST_METHOD:
            self._on_cancel_request(params)
        elif self._dispatcher is not None:
            try:
                await self._dispatcher.handle_notification(method, params)
            except Exception:
                logger.exception("notification handler for %r failed", method)

    async def _write_notification(self, frame: bytes) -> None:
        """One write per notification, drained before `notify` returns."""
        await self._write_frame(frame)
