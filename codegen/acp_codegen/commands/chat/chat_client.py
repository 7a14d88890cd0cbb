"""The client `chat` is on the wire: how it answers permission requests, hears session updates
and shows the agent's notices."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from ... import __version__
from ..._bindings import Client, ClientSession, PermissionRequest, models, permission_request
from ..._bindings._runtime.wire.convert import to_wire
from .gate import Gate
from .offers import SUGGESTIONS_TAG, models_text, suggestions_of, suggestions_text
from .services import V1Services
from .visible import visible_line

NOTICE_TAG = "notice"
Asker = Callable[[models.RequestPermissionRequest], Awaitable[models.RequestPermissionOutcome]]
Listener = Callable[[models.SessionUpdate], None]


class ChatClient(V1Services, Client):
    """The client `chat` is: it answers permission requests through `ask`, hands each update of
    the sessions it set up to `listener` (once the session has folded it in; a child session's
    own updates are not the turn's: chat shows what the parent says of the child). It
    advertises one optional client feature, prompt suggestions (unstable; chat shows the
    latest list after a turn, `suggestions`); to v1 agents it serves files and terminals under
    the working directory (`V1Services`, asking through `gate` before writes and commands, and
    reads with `ask_reads`)."""

    info = models.Implementation(name="acp-codegen-chat", version=__version__)
    capabilities = models.ClientCapabilities.model_validate({"session": {"promptSuggestions": {}}})

    def __init__(self, ask: Asker, cwd: Path, gate: Gate, *, ask_reads: bool) -> None:
        self._ask = ask
        self.serve_files(cwd, gate, ask_reads=ask_reads)
        self.listener: Listener | None = None
        self.notice: Callable[[str], None] | None = None
        self.suggestions: list[str] = []  # the agent's latest prompt suggestions, shown
        self.offered_anew: Callable[[], None] | None = None  # told when they change (inspect)

    async def session_update(self, *, params: models.UpdateSessionNotification) -> None:
        # Notices are live events, not history: no snapshot keeps them, so they are shown as
        # they come. Read by tag, so they show whether or not the schema models them.
        # A typed update says its tag: only a notice (or an update of unknown shape) is worth
        # converting back to JSON, which would otherwise cost as much as the rest of the fold.
        held = self.lifecycle.sessions.get(params.session_id)
        if held is not None and held.parent_id is not None:
            return  # a child session's own work: chat shows what its parent says of it
        tag = getattr(params.update, "session_update", None)
        if tag == SUGGESTIONS_TAG:  # each update is the whole list; not part of the turn
            self.suggestions = suggestions_of(to_wire(params.update)) or []
            if self.offered_anew is not None:
                self.offered_anew()
            return
        text = notice_text(to_wire(params.update)) if tag in (None, NOTICE_TAG) else None
        if text is not None and self.notice is not None:
            self.notice(text)
        elif self.listener is not None:
            self.listener(params.update)

    def offered(self, session: ClientSession) -> tuple[str | None, str | None]:
        """(the agent's latest prompt suggestions, `session`'s models and the current one) as
        chat notes them; None where the agent offers none."""
        options = session.snapshot()["configOptions"]
        return suggestions_text(self.suggestions), models_text(options)

    async def on_permission(
        self, session: ClientSession, request: PermissionRequest
    ) -> models.RequestPermissionOutcome:
        return await self._ask(permission_request(request))


def notice_text(update: Any) -> str | None:
    """A `notice` update as one line (`notice [warning]: Title: detail`), None for others."""
    if not isinstance(update, dict) or update.get("sessionUpdate") != NOTICE_TAG:
        return None
    severity = update.get("severity")
    head = f"notice [{severity}]" if isinstance(severity, str) and severity else "notice"
    parts = [str(part) for part in (update.get("title"), update.get("description")) if part]
    return visible_line(f"{head}: {': '.join(parts)}")
