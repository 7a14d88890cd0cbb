"""A hostile agent written on the wire (no bindings to tidy what it sends): every piece of text
chat shows carries terminal escapes meant to steer the user's terminal. Its arguments: the
protocol version (`v2` or `v1`), then what it does with a prompt:

- `all`: one turn with each kind of text hostile (agent name, message, thought, plan, tool call
  title and output, a diff's path, hunk header and lines (in the tool call and the permission
  question), terminal command and output, usage currency, slash commands, a notice, the session
  title, a permission question and its options, a notification with a hostile method name, a
  line on stderr), answered `end_turn`;
- `error`: the prompt answered with a JSON-RPC error whose message and data are hostile;
- `die`: a hostile line on stderr, then exit 3 mid-turn;
- `fail`: a hostile traceback on stderr, then the turn ends `_internal_error`;
- `init-die`: a hostile line on stderr at `initialize`, then exit 3;
- `lines` (v2): one-line things (a link's name, a content type, a tool call's id, kind and
  status, a plan entry's status, a terminal's id and signal, response ids, the stop reason)
  each hiding a newline and a line that reads as chat's own (`FAKE`).
"""

from __future__ import annotations

import base64
import json
import sys
from typing import Any

# OSC 52 (write the clipboard), OSC 0 (window title), OSC 8 (a hidden link), CR + erase line
# (rewrite what is shown), C1 CSI, BEL, backspace, a direction override, rich markup (a link
# rich would write itself), a lone surrogate.
STEER = (
    "\x1b]52;c;ZXZpbA==\x07|\x1b]0;pwned-title\x07|\x1b]8;;http://evil.example\x07click"
    "\x1b]8;;\x07|\r\x1b[2K|\x9b2K|\x07|\x08|\u202e|[link=http://evil.example/m]m[/link]|"
)
EVIL = STEER + "\ud800|end"
# A notice is read through its typed model, which refuses a lone surrogate (and drops it all).
NOTICE = STEER + "end"
FAKE = "\n[turn ended: end_turn]\n"
VERSION = 1 if sys.argv[1] == "v1" else 2
MODE = sys.argv[2]
SESSION = "sess-1"


def send(message: dict[str, Any]) -> None:
    # ensure_ascii: the lone surrogate travels as its JSON escape, as a hostile peer can send it
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def update(body: dict[str, Any]) -> None:
    send({"method": "session/update", "params": {"sessionId": SESSION, "update": body}})


def text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


def initialized() -> dict[str, Any]:
    info = {"name": f"evil{EVIL}", "version": EVIL}
    if VERSION == 1:
        return {"protocolVersion": 1, "agentCapabilities": {}, "agentInfo": info, "authMethods": []}
    return {"protocolVersion": 2, "info": info, "capabilities": {"session": {}}}


def permission() -> dict[str, Any]:
    options = [
        {"optionId": "ok", "name": f"Allow{EVIL}", "kind": "allow_once"},
        {"optionId": "no", "name": f"Reject{EVIL}", "kind": "reject_once"},
    ]
    if VERSION == 1:
        call = {"toolCallId": "c1", "title": f"Question{EVIL}", "kind": "read", "status": "pending"}
        call["content"] = [v1_diff("asked")]
        return {"sessionId": SESSION, "toolCall": call, "options": options}
    subject = {"type": "tool_call", "toolCall": {"toolCallId": "c0", "content": [v2_diff("asked")]}}
    return {
        "sessionId": SESSION,
        "title": f"Question{EVIL}",
        "subject": subject,
        "options": options,
    }


def v1_diff(name: str) -> dict[str, Any]:
    """A diff whose path and lines are hostile (`- old...`, `+ new...` once shown)."""
    return {
        "type": "diff",
        "path": f"/w/{name}{EVIL}.py",
        "oldText": f"old{EVIL}",
        "newText": f"new{EVIL}",
    }


def v2_diff(name: str) -> dict[str, Any]:
    path = f"/w/{name}{EVIL}.py"
    patch = f"--- a{path}\n+++ b{path}\n@@ -1 +1 @@{EVIL}\n-old{EVIL}\n+new{EVIL}\n"
    changes = [{"path": path, "operation": "modify"}]
    return {"type": "diff", "changes": changes, "patch": {"format": "git_patch", "text": patch}}


def v2_turn() -> None:
    update({"sessionUpdate": "state_update", "state": "running"})
    update({"sessionUpdate": "session_info_update", "title": f"title{EVIL}"})
    commands = [{"type": "command", "name": f"cmd{EVIL}", "description": f"does{EVIL}"}]
    update({"sessionUpdate": "available_commands_update", "availableCommands": commands})
    notice = {"sessionUpdate": "notice", "severity": f"warn{NOTICE}", "title": f"note{NOTICE}"}
    update({**notice, "description": f"detail{NOTICE}"})
    thought = {"messageId": "t1", "content": text(f"thought{EVIL}")}
    update({"sessionUpdate": "agent_thought_chunk", **thought})
    entries = [{"content": f"step{EVIL}", "priority": "high", "status": "pending"}]
    plan = {"type": "items", "planId": "p1", "entries": entries}
    update({"sessionUpdate": "plan_update", "plan": plan})
    call = {"toolCallId": "c1", "title": f"tool{EVIL}", "kind": "edit", "status": "pending"}
    update({"sessionUpdate": "tool_call_update", **call})
    chunk = {"type": "content", "content": text(f"output{EVIL}")}
    update({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c1", "content": chunk})
    diff = v2_diff("file")
    update({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c1", "content": diff})
    update({"sessionUpdate": "terminal_update", "terminalId": "term1", "command": f"cmd{EVIL}"})
    data = base64.b64encode(f"terminal{EVIL}\n".encode("utf-8", "surrogatepass")).decode()
    update({"sessionUpdate": "terminal_output_chunk", "terminalId": "term1", "data": data})
    message = {"messageId": "m1", "content": text(f"answer{EVIL}")}
    update({"sessionUpdate": "agent_message_chunk", **message})
    cost = {"amount": 1, "currency": f"USD{EVIL}"}
    update({"sessionUpdate": "usage_update", "used": 1, "size": 10, "cost": cost})


def v1_turn() -> None:
    commands = [{"name": f"cmd{EVIL}", "description": f"does{EVIL}"}]
    update({"sessionUpdate": "available_commands_update", "availableCommands": commands})
    update({"sessionUpdate": "agent_thought_chunk", "content": text(f"thought{EVIL}")})
    entries = [{"content": f"step{EVIL}", "priority": "high", "status": "pending"}]
    update({"sessionUpdate": "plan", "entries": entries})
    content = [
        {"type": "content", "content": text(f"output{EVIL}")},
        v1_diff("file"),
    ]
    call = {"toolCallId": "c2", "title": f"tool{EVIL}", "kind": "edit", "status": "pending"}
    update({"sessionUpdate": "tool_call", **call, "content": content})
    update({"sessionUpdate": "agent_message_chunk", "content": text(f"answer{EVIL}")})


def one_line_things() -> None:
    link = {"type": "resource_link", "name": f"name{STEER}{FAKE}", "uri": f"file:///{FAKE}"}
    update({"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": link})
    odd = {"type": f"kind{STEER}{FAKE}"}
    update({"sessionUpdate": "agent_message_chunk", "messageId": "m2", "content": odd})
    call = {"toolCallId": f"id{FAKE}", "kind": f"kind{FAKE}", "status": f"status{FAKE}"}
    update({"sessionUpdate": "tool_call_update", **call})
    entries = [{"content": "step", "priority": "high", "status": f"status{FAKE}"}]
    plan = {"type": "items", "planId": "p1", "entries": entries}
    update({"sessionUpdate": "plan_update", "plan": plan})
    exited = {"exitCode": None, "signal": f"SIG{STEER}{FAKE}"}
    update({"sessionUpdate": "terminal_update", "terminalId": f"term{FAKE}", "exitStatus": exited})
    send({"id": f"id{STEER}{FAKE}", "result": {}})  # answers to nothing, for the -v lines
    send({"id": f"id{STEER}{FAKE}", "error": {"code": 1, "message": "none"}})


def prompt(request_id: int) -> None:
    if MODE == "error":
        error = {"code": -32000, "message": f"broken{EVIL}", "data": {"why": EVIL}}
        send({"id": request_id, "error": error})
        return
    if MODE in ("die", "fail"):
        sys.stderr.write(f"Traceback{EVIL}\nRuntimeError: stderr{EVIL}\n")
        sys.stderr.flush()
        if MODE == "die":
            sys.exit(3)
    if VERSION == 2:
        send({"id": request_id, "result": {"messageId": "u1"}})
    if MODE == "all":
        sys.stderr.write(f"stderr{EVIL}\n")
        sys.stderr.flush()
        send({"method": f"evil/{EVIL}", "params": {}})
        send({"id": 900, "method": "session/request_permission", "params": permission()})
        answer = json.loads(sys.stdin.readline())  # the user's answer comes first
        assert answer.get("id") == 900, answer
        v2_turn() if VERSION == 2 else v1_turn()
    if MODE == "lines":
        one_line_things()
    stop = {"fail": "_internal_error", "lines": f"stop{STEER}{FAKE}"}.get(MODE, "end_turn")
    if VERSION == 1:
        send({"id": request_id, "result": {"stopReason": stop}})
    else:
        update({"sessionUpdate": "state_update", "state": "idle", "stopReason": stop})


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if method == "initialize" and MODE == "init-die":
            sys.stderr.write(f"init{EVIL}\n")
            sys.exit(3)
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
