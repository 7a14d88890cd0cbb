"""A scripted agent that answers like fast-agent (PyPI): asked for protocol version 2, it names
2 but answers with v1's body (`agentInfo`, `agentCapabilities`) and speaks v1 from then on:
`session/new` needs v1's `mcpServers` (-32602 without it, as fast-agent answers), a prompt is
answered with one agent message chunk and the stop reason."""

import json
import sys


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(request: dict[str, object]) -> dict[str, object]:
    method, params = request["method"], request.get("params") or {}
    assert isinstance(params, dict)
    if method == "initialize":
        return {
            "protocolVersion": 2,
            "agentCapabilities": {"loadSession": False, "promptCapabilities": {"image": False}},
            "agentInfo": {"name": "v1-body-agent", "version": "0.1"},
            "authMethods": [],
        }
    if method == "session/new":
        if "mcpServers" not in params:
            raise ValueError("mcpServers: Field required")
        return {"sessionId": "s1"}
    if method == "session/prompt":
        chunk = {"sessionUpdate": "agent_message_chunk",
                 "content": {"type": "text", "text": "hello from a v1 body"}}  # fmt: skip
        update = {"sessionId": params["sessionId"], "update": chunk}
        send({"jsonrpc": "2.0", "method": "session/update", "params": update})
        return {"stopReason": "end_turn"}
    raise LookupError(method)


for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue  # a notification (session/cancel): nothing to answer
    try:
        send({"jsonrpc": "2.0", "id": request["id"], "result": answer(request)})
    except ValueError as error:
        send({"jsonrpc": "2.0", "id": request["id"],
              "error": {"code": -32602, "message": f"Invalid params: {error}"}})  # fmt: skip
    except LookupError as error:
        send({"jsonrpc": "2.0", "id": request["id"],
              "error": {"code": -32601, "message": f"Method not found: {error}"}})  # fmt: skip
