"""What Python itself writes on stderr in chat and inspect, escaped: a log record no handler
took (asyncio's, aiohttp's: Python's handler of last resort) and an uncaught exception's
traceback. Both may quote the agent (an exception's message, a task's result), and neither
passes through a screen."""

from __future__ import annotations

import logging
import sys
import traceback
from types import TracebackType

from .visible import visible


class _VisibleLastResort(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        try:
            print(visible(self.format(record)), file=sys.stderr, flush=True)
        except Exception:  # a log line must never break the chat
            self.handleError(record)


def _visible_traceback(
    kind: type[BaseException], error: BaseException, trace: TracebackType | None
) -> None:
    text = "".join(traceback.format_exception(kind, error, trace))
    print(visible(text), end="", file=sys.stderr, flush=True)


def escape_unhandled_output() -> None:
    """For this process (chat or inspect is the process): Python's last-resort log handler and
    its uncaught-exception hook write escaped text."""
    logging.lastResort = _VisibleLastResort(logging.WARNING)
    sys.excepthook = _visible_traceback
