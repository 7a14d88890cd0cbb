"""What the Python SDK client scripts (py_sdk_client.py, py_sdk_v1_client.py) share. They run as
files with their folder first on sys.path, so they import this module by its plain name; it
needs nothing of the SDK."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Awaitable, Callable
from typing import Any

HANG_GUARD = 100.0  # only turns a hang into a failure


class Recorder(logging.Handler):
    """Keeps what is logged at warning level or above (the SDK's complaints)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(self.format(record))


def wire(model: Any) -> Any:
    """A model of the SDK as the JSON it was read from (fields it was not given left out)."""
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


def run_script(main: Callable[[str, list[str]], Awaitable[dict[str, Any]]], usage: str) -> None:
    """`script.py CWD -- AGENT_COMMAND [ARGS...]`: print the JSON summary `main(cwd, agent)`
    returns (a hang is turned into a failure by HANG_GUARD)."""
    cwd, dashes, *agent = sys.argv[1:]
    assert dashes == "--" and agent, usage
    summary = asyncio.run(asyncio.wait_for(main(cwd, agent), HANG_GUARD))
    print(json.dumps(summary))
