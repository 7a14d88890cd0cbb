"""A scripted agent written on the wire that asks to edit a file: its permission question's tool
call carries the diff (v2: changes and a git patch; v1: the whole old and new texts), and once
answered the tool call reports the same diff, completed. Its argument: `v2` or `v1`.

The edit changes `greeting = "hello"` to `greeting = "hi"` in /work/app.py, among 60 other
lines (one hunk), and writes a new file /work/NOTES.md of 50 lines (folded in the question).
"""

from __future__ import annotations

import difflib
import json
import sys
from typing import Any

VERSION = 1 if sys.argv[1] == "v1" else 2
SESSION = "sess-1"
PATH, NEW_PATH = "/work/app.py", "/work/NOTES.md"
OLD = "".join(f"line_{n} = {n}\n" for n in range(30)) + 'greeting = "hello"\n'
OLD += "".join(f"tail_{n} = {n}\n" for n in range(30))
NEW = OLD.replace('greeting = "hello"', 'greeting = "hi"')
NOTES = "".join(f"note {n}\n" for n in range(50))


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def update(body: dict[str, Any]) -> None:
    send({"method": "session/update", "params": {"sessionId": SESSION, "update": body}})


def patch(path: str, old: str | None, new: str) -> str:
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True),
        new.splitlines(keepends=True),
        "/dev/null" if old is None else f"a{path}",
        f"b{path}",
    )
    return f"diff --git a{path} b{path}\n" + "".join(lines)


def content() -> list[dict[str, Any]]:
    if VERSION == 1:
        return [
            {"type": "diff", "path": PATH, "oldText": OLD, "newText": NEW},
            {"type": "diff", "path": NEW_PATH, "oldText": None, "newText": NOTES},
        ]
    changes = [{"operation": "modify", "path": PATH}, {"operation": "add", "path": NEW_PATH}]
    text = patch(PATH, OLD, NEW) + patch(NEW_PATH, None, NOTES)
    return [{"type": "diff", "changes": changes, "patch": {"format": "git_patch", "text": text}}]


def permission() -> dict[str, Any]:
    options = [
        {"optionId": "ok", "name": "Apply", "kind": "allow_once"},
        {"optionId": "no", "name": "Skip", "kind": "reject_once"},
    ]
    call: dict[str, Any] = {"toolCallId": "edit1", "title": "Edit app.py", "kind": "edit"}
    call |= {"status": "pending", "content": content()}
    if VERSION == 1:
        return {"sessionId": SESSION, "toolCall": call, "options": options}
    subject = {"type": "tool_call", "toolCall": call}
    return {"sessionId": SESSION, "title": "Edit app.py?", "subject": subject, "options": options}


def prompt(request_id: int) -> None:
    if VERSION == 2:
        send({"id": request_id, "result": {"messageId": "u1"}})
        update({"sessionUpdate": "state_update", "state": "running"})
    send({"id": 900, "method": "session/request_permission", "params": permission()})
    answer = json.loads(sys.stdin.readline())  # the user's answer comes first
    assert answer.get("id") == 900, answer
    done = {"toolCallId": "edit1", "status": "completed", "content": content()}
    update({"sessionUpdate": "tool_call_update", **done})
    message: dict[str, Any] = {"content": {"type": "text", "text": "edited"}}
    if VERSION == 2:
        message["messageId"] = "m1"
    update({"sessionUpdate": "agent_message_chunk", **message})
    if VERSION == 1:
        send({"id": request_id, "result": {"stopReason": "end_turn"}})
    else:
        update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})


def initialized() -> dict[str, Any]:
    info = {"name": "diff-agent", "version": "1.0.0"}
    if VERSION == 1:
        return {"protocolVersion": 1, "agentCapabilities": {}, "agentInfo": info, "authMethods": []}
    return {"protocolVersion": 2, "info": info, "capabilities": {"session": {}}}


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if method == "initialize":
            send({"id": request_id, "result": initialized()})
        elif method == "session/new":
            send({"id": request_id, "result": {"sessionId": SESSION}})
        elif method == "session/prompt":
            prompt(request_id)
        elif request_id is not None and method is not None:
            send({"id": request_id, "error": {"code": -32601, "message": "not here"}})


if __name__ == "__main__":
    main()
