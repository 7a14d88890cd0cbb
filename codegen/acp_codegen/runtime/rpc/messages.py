"""JSON-RPC 2.0 message shapes: classify what arrives, build what leaves."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeGuard

from ..wire.errors import RpcError
from ..wire.jsonvalue import JsonObject, JsonParams, JsonValue

RequestId = int | str | None


@dataclass(frozen=True, slots=True)
class Request:
    id: RequestId
    method: str
    params: JsonParams  # object, array, or None when absent


@dataclass(frozen=True, slots=True)
class Notification:
    method: str
    params: JsonParams


@dataclass(frozen=True, slots=True)
class Response:
    id: RequestId
    result: JsonValue  # None when `error` is set
    error: RpcError | None


@dataclass(frozen=True, slots=True)
class Invalid:
    """Not a valid message: answered with -32600 (id recovered when possible, else null)."""

    id: RequestId
    reason: str


Incoming = Request | Notification | Response | Invalid


def is_valid_id(value: object) -> TypeGuard[RequestId]:
    return (
        value is None
        or isinstance(value, str)
        or (isinstance(value, int) and not isinstance(value, bool))
    )


def classify(message: object) -> Incoming:
    """What a decoded JSON message is: a request, a notification, a response, or invalid."""
    if not isinstance(message, dict):
        return Invalid(None, f"a message must be an object, not {type(message).__name__}")
    raw_id = message.get("id")
    message_id = raw_id if is_valid_id(raw_id) else None
    if message.get("jsonrpc") != "2.0":
        return Invalid(message_id, 'missing "jsonrpc": "2.0"')
    if "method" in message:
        return _classify_call(message, message_id)
    if "id" in message and (("result" in message) != ("error" in message)):
        if not is_valid_id(raw_id):
            return Invalid(None, "response id must be a string, an integer or null")
        error = RpcError.from_json(message["error"]) if "error" in message else None
        return Response(message_id, message.get("result"), error)
    return Invalid(message_id, "neither a request, a notification nor a response")


def _classify_call(message: JsonObject, message_id: RequestId) -> Incoming:
    method = message["method"]
    if not isinstance(method, str):
        return Invalid(message_id, '"method" must be a string')
    params = message.get("params")
    if not isinstance(params, dict | list):
        if "params" in message:  # present, but null or a scalar
            return Invalid(message_id, '"params" must be an object or an array')
        params = None
    if "id" not in message:
        return Notification(method, params)
    if not is_valid_id(message["id"]):
        return Invalid(None, "request id must be a string, an integer or null")
    return Request(message_id, method, params)


def request_message(request_id: RequestId, method: str, params: JsonValue) -> JsonObject:
    message: JsonObject = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def notification_message(method: str, params: JsonValue) -> JsonObject:
    message: JsonObject = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


def success_message(request_id: RequestId, result: JsonValue) -> JsonObject:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_message(request_id: RequestId, error: RpcError) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_json()}
