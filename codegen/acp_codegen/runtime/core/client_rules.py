"""What the client refuses to send, with no I/O: the client side's lifecycle checks.

A session may be set up (new, resumed, loaded) only after `initialize` settled a version; v1's
`session/load` is refused on a version that has no such method; a prompt needs `initialize`, a
session this connection set up and content the agent's capabilities allow (prompt_content.py).
Each check returns why not (None: it may), and the adapter (client/client_side.py) raises
`ProtocolUsageError` with that text before anything is written.
"""

from __future__ import annotations

from .prompt_content import prompt_content_problems


def setup_refusal(method: str, initialized: bool) -> str | None:
    """Why a session setup request may not be sent now."""
    return None if initialized else f"{method} before initialize"


def load_refusal(initialized: bool, loads_sessions: bool) -> str | None:
    """Why `session/load` may not be sent: only a version that has it loads (before
    `initialize` the version is not known yet, and the setup check speaks)."""
    if initialized and not loads_sessions:
        return "session/load is v1's: on v2 resume with replayFrom"
    return None


def prompt_refusal(
    session_id: str, *, initialized: bool, set_up: bool, content: object, capabilities: object
) -> str | None:
    """Why a prompt with `content` may not be sent to an agent of these (v2-shaped)
    capabilities."""
    if not initialized:
        return "session/prompt before initialize"
    if not set_up:
        return f"session/prompt for {session_id!r}, which is not set up"
    problems = prompt_content_problems(content, capabilities)
    if problems:
        where = ", ".join(f"{'/'.join(map(str, p['loc']))}: {p['msg']}" for p in problems)
        return f"prompt not allowed by the agent's capabilities: {where}"
    return None
