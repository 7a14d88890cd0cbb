"""A permission the agent asks for (`session/request_permission`), waiting for the client's
answer: the client's handler, or the author's code, selects an option or cancels."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from .jsonvalue import as_object
from .protocol import OUTCOME_CANCELLED, OUTCOME_SELECTED


class PermissionRequest:
    """One pending `session/request_permission` from the agent."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params
        self._answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    @property
    def answered(self) -> bool:
        return self._answer.done()

    def respond(self, outcome: Mapping[str, Any] | BaseModel) -> None:
        """Answer with an outcome object; later answers are ignored."""
        if not self._answer.done():
            self._answer.set_result(as_object(outcome))

    def select(self, option_id: str) -> None:
        self.respond({"outcome": OUTCOME_SELECTED, "optionId": option_id})

    def cancel(self) -> None:
        self.respond({"outcome": OUTCOME_CANCELLED})
