"""The traffic's prompt turns, found as the lines go by: each from the `session/prompt` we
sent to the line that ended it (v2: the session's `state_update` to idle; v1: the prompt's
answer, which carries the stop reason; either version: an error answer), with its timing from
the records' times and the plans it touched (so the page can show plans turn by turn)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from ..._bindings._runtime.v1.constants import V1_PLAN, V1_PLAN_ID

PROMPT: Final = "session/prompt"
UPDATE: Final = "session/update"
MAX_TURNS: Final = 10_000  # turns remembered; a longer session's earliest are forgotten
MAX_PROMPT: Final = 80  # characters of the prompt a turn's heading shows
ECHOES: Final = frozenset({"user_message", "user_message_chunk"})  # the prompt sent back


class Turn:
    """One prompt turn: where it starts and ends in the traffic, and its times."""

    __slots__ = (
        "end", "finished", "first", "n", "plans", "prompt", "session", "start", "started",
        "stop", "updates",
    )  # fmt: skip

    def __init__(self, n: int, session: str, start: int, started: float | None, prompt: str):
        self.n, self.session, self.start, self.started = n, session, start, started
        self.prompt = prompt
        self.end: int | None = None  # the line that ended it
        self.first: float | None = None  # the time of the agent's first update
        self.finished: float | None = None  # the time of its last line so far
        self.updates = 0
        self.stop: str | None = None
        self.plans: list[tuple[int, str]] = []  # (line, plan id) of each plan update

    def view(self) -> dict[str, Any]:
        """The turn as the page shows it; times in seconds from its prompt (None: unknown)."""
        started = self.started
        return {
            "n": self.n,
            "session": self.session,
            "start": self.start,
            "end": self.end,
            "prompt": self.prompt,
            "stop": self.stop,
            "updates": self.updates,
            "firstUpdate": _since(started, self.first),
            "duration": _since(started, self.finished),
        }


class Turns:
    """Every turn so far, fed one record at a time (`see`)."""

    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self._asked: dict[Any, Turn] = {}  # prompt request ids not yet answered
        self._running: dict[str, Turn] = {}  # by session

    def see(self, n: int, record: dict[str, Any]) -> None:
        message = record.get("message")
        if not isinstance(message, dict):
            return
        sent = record.get("dir") == "send"
        method = message.get("method")
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        session = params.get("sessionId")
        if sent and method == PROMPT and isinstance(session, str):
            self._begin(n, session, _time(record), message, params)
        elif not sent and method == UPDATE and isinstance(session, str):
            turn = self._running.get(session)
            if turn is not None:
                self._update(turn, n, _time(record), params.get("update"))
        elif not sent and method is None and _key(message.get("id")) in self._asked:
            turn = self._asked.pop(_key(message.get("id")))
            result = message.get("result")
            stop = result.get("stopReason") if isinstance(result, dict) else None
            if "error" in message or isinstance(stop, str):
                self._end(turn, n, _time(record), stop if isinstance(stop, str) else "error")

    def _begin(
        self, n: int, session: str, time: float | None, message: dict[str, Any], params: Any
    ) -> None:
        if len(self.turns) >= MAX_TURNS:
            del self.turns[0]
        number = self.turns[-1].n + 1 if self.turns else 1
        turn = Turn(number, session, n, time, _prompt_text(params.get("prompt")))
        turn.finished = time
        self.turns.append(turn)
        self._running[session] = turn
        if "id" in message:
            self._asked[_key(message["id"])] = turn

    def _update(self, turn: Turn, n: int, time: float | None, update: Any) -> None:
        update = update if isinstance(update, dict) else {}
        tag = update.get("sessionUpdate")
        turn.updates += 1
        turn.finished = time
        if turn.first is None and tag not in ECHOES:
            turn.first = time
        if tag == V1_PLAN:
            turn.plans.append((n, V1_PLAN_ID))
        plan = update.get("plan")
        plan_id = plan.get("planId") if isinstance(plan, dict) else None
        if isinstance(plan_id, str):
            turn.plans.append((n, plan_id))
        if tag == "state_update" and update.get("state") == "idle":
            stop = update.get("stopReason")
            self._end(turn, n, time, stop if isinstance(stop, str) else None)

    def _end(self, turn: Turn, n: int, time: float | None, stop: str | None) -> None:
        if turn.end is not None:
            return
        turn.end, turn.finished, turn.stop = n, time, stop
        if self._running.get(turn.session) is turn:
            del self._running[turn.session]

    def views(self) -> list[dict[str, Any]]:
        return [turn.view() for turn in self.turns]

    def plan_turns(self, at: int) -> dict[str, int]:
        """Each plan id's turn as of line `at`: the last turn that updated it before then."""
        owners: dict[str, int] = {}
        for turn in self.turns:
            if turn.start >= at:
                break
            for line, plan_id in turn.plans:
                if line < at:
                    owners[plan_id] = turn.n
        return owners


def _prompt_text(prompt: Any) -> str:
    texts = [
        str(block.get("text"))
        for block in (prompt if isinstance(prompt, list) else [])
        if isinstance(block, dict) and block.get("type") == "text"
    ]
    text = " ".join(" ".join(texts).split())
    return text if len(text) <= MAX_PROMPT else text[: MAX_PROMPT - 1] + "…"


def _time(record: dict[str, Any]) -> float | None:
    """A record's `time` (ISO 8601) as seconds since the epoch; None when absent or bad. Read
    only for the lines of a turn: a long trace's other lines cost no parsing."""
    value = record.get("time")
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value).timestamp()
    except ValueError:
        return None


def _since(start: float | None, then: float | None) -> float | None:
    return None if start is None or then is None else max(0.0, then - start)


def _key(value: Any) -> Any:
    return value if isinstance(value, str | int) else repr(value)
