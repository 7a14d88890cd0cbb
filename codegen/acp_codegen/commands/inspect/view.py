"""What the page shows, as JSON: the agent (version, capabilities), the sessions, and the current
session's conversation read from its typed snapshot (messages joined, terminal output decoded).
Reading only: the runtime's `SessionState` did all the merging."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from ..._bindings import SessionSnapshot, joined_content
from ..._bindings._runtime.core.prompt_content import prompt_content_problems
from ..._bindings.snapshot import SubagentSnapshot
from ...model.shown import visible_line
from ..chat.offers import SUGGESTIONS_TAG, suggestions_of
from ..chat.session_commands import advertised
from ..chat.transcript import block_text, terminal_text
from .diff_view import page_diff

# A resource block as the prompt box attaches a file: allowed when the agent says so.
SAMPLE_RESOURCE = {"type": "resource", "resource": {"uri": "file:///x", "text": ""}}


def agent_view(
    info: Any, protocol_version: int | None, capabilities: Any, auth_methods: list[Any]
) -> dict[str, Any]:
    """The agent as `initialize` described it."""
    fields = info if isinstance(info, dict) else {}
    return {
        "name": fields.get("name"),
        "version": fields.get("version"),
        "protocolVersion": protocol_version,
        "capabilities": capabilities,
        "authMethods": auth_methods,
        "canAttach": capabilities is not None
        and not prompt_content_problems([SAMPLE_RESOURCE], capabilities),
        "canDelete": can_delete(capabilities),
        "canFork": "fork" in advertised(capabilities),  # upstream's unstable `session/fork`
    }


def can_delete(capabilities: Any) -> bool:
    """Whether the agent offers `session/delete` (it says so under `session.delete`)."""
    session = capabilities.get("session") if isinstance(capabilities, dict) else None
    return isinstance(session, dict) and session.get("delete") is not None


def listed_sessions(listed: list[dict[str, Any]], open_here: set[str]) -> list[dict[str, Any]]:
    """The sessions `session/list` named that this connection has not set up (resumable)."""
    return [
        {"id": item["sessionId"], "title": item.get("title"), "current": False, "open": False}
        for item in listed
        if isinstance(item.get("sessionId"), str) and item["sessionId"] not in open_here
    ]


def session_title(snapshot: SessionSnapshot) -> str | None:
    info = cast(Mapping[str, Any], snapshot["sessionInfo"] or {})
    title = info.get("title")
    return title if isinstance(title, str) else None


def announced_children(
    snapshots: Mapping[str, SessionSnapshot],
) -> dict[str, tuple[str, SubagentSnapshot]]:
    """Each child session a session announced (`subagent_update`): its parent's id and what the
    parent said of it, by the child's id."""
    return {
        child_id: (parent_id, child)
        for parent_id, snapshot in snapshots.items()
        for child_id, child in snapshot["subagents"].items()
    }


def session_row(
    key: str,
    snapshot: SessionSnapshot,
    children: Mapping[str, tuple[str, SubagentSnapshot]],
    **shown: Any,
) -> dict[str, Any]:
    """A session as the list names it: its title (a child untitled itself: the one its parent
    gave it, escaped), and for a child, its parent's id (`parentId`)."""
    parent_id, child = children.get(key, (None, None))
    title = session_title(snapshot)
    if title is None and child is not None and child.get("title"):
        title = visible_line(str(child.get("title")))
    return {"id": key, "title": title, "parentId": parent_id, **shown}


def subagents_view(snapshot: SessionSnapshot) -> list[dict[str, Any]]:
    """The child sessions this session announced, as the parent described each: title, state
    and description, each one escaped line (a peer's words, drawn as text)."""
    rows = []
    for key, child in snapshot["subagents"].items():
        state = cast(Mapping[str, Any], child.get("state") or {}).get("state")
        description = child.get("description")
        rows.append(
            {
                "id": key,
                "title": visible_line(str(child.get("title") or key)),
                "state": visible_line(state) if isinstance(state, str) else None,
                "description": visible_line(description) if description else None,
            }
        )
    return rows


def prompt_suggestions(snapshot: SessionSnapshot) -> list[str]:
    """The agent's latest prompt suggestions (unstable `prompt_suggestions_update`, each the whole
    list), one escaped line each as chat shows them: bindings generated with `--unstable` fold
    them into `promptSuggestions`; inspect's own keep the update under `unknown`."""
    slot = snapshot["promptSuggestions"]
    if isinstance(slot, Mapping):
        return suggestions_of({**slot, "sessionUpdate": SUGGESTIONS_TAG}) or []
    for update in reversed(snapshot["unknown"]):
        if update.get("sessionUpdate") == SUGGESTIONS_TAG:
            return suggestions_of(update) or []
    return []


def conversation_view(
    snapshot: SessionSnapshot, plan_turns: Mapping[str, int] | None = None
) -> dict[str, Any]:
    """One session's state as the page draws it; `plan_turns`: the turn each plan belongs to
    (the last that updated it), so the page shows plans turn by turn."""
    owners = plan_turns or {}
    return {
        "state": snapshot["state"],
        "stopReason": snapshot["stopReason"],
        "title": session_title(snapshot),
        "messages": [
            {
                "id": message["messageId"],
                "role": message["role"],
                "blocks": [_block(cast(Mapping[str, Any], b)) for b in joined_content(message)],
            }
            for message in snapshot["messages"]
        ],
        "toolCalls": [_tool_call(key, call) for key, call in snapshot["toolCalls"].items()],
        "terminals": [
            {
                "id": key,
                "command": terminal.get("command"),
                "output": terminal_text(terminal),
                "exitStatus": terminal.get("exitStatus"),
            }
            for key, terminal in snapshot["terminals"].items()
        ],
        "plans": [
            {
                "id": key,
                "entries": cast(Mapping[str, Any], plan).get("entries") or [],
                "turn": owners.get(key),
            }
            for key, plan in snapshot["plans"].items()
        ],
        "usage": snapshot["usage"],
        "commands": snapshot["availableCommands"],
        "configOptions": snapshot["configOptions"],
        "notices": snapshot["notices"],
        "suggestions": prompt_suggestions(snapshot),
        "subagents": subagents_view(snapshot),
        "unknown": len(snapshot["unknown"]),
    }


def _block(block: Mapping[str, Any]) -> dict[str, Any]:
    """A content block: its kind, and its text (or a short description of what it holds)."""
    return {"kind": str(block.get("type")), "text": block_text(cast(Any, block))}


def _tool_call(key: str, call: Mapping[str, Any]) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for item in call.get("content") or []:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "content":
            block = _block(item.get("content") or {})
            previous = content[-1] if content else None
            if block["kind"] == "text" and previous and previous.get("block") == "text":
                previous["texts"].append(block["text"])  # streamed chunks, read as one output
            else:
                texts = [block["text"]]
                content.append({"kind": "content", "block": block["kind"], "texts": texts})
        elif kind == "diff":
            content.append({"kind": "diff", **page_diff(item)})
        elif kind == "terminal":
            content.append({"kind": "terminal", "text": str(item.get("terminalId"))})
        else:
            content.append({"kind": str(kind), "text": ""})
    for item in content:  # each run joined once, not chunk by chunk
        if "texts" in item:
            item["text"] = "".join(item.pop("texts"))
    return {
        "id": key,
        "title": call.get("title"),
        "kind": call.get("kind"),
        "status": call.get("status"),
        "locations": call.get("locations") or [],
        "content": content,
    }


def carried_diffs(tool_call: Any) -> list[dict[str, Any]]:
    """The diffs a tool call carries (a permission request's, v1 or v2), as the page draws
    them: what the person is asked to approve."""
    content = tool_call.get("content") if isinstance(tool_call, dict) else None
    return [
        page_diff(item)
        for item in (content if isinstance(content, list) else [])
        if isinstance(item, dict) and item.get("type") == "diff"
    ]
