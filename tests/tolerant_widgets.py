"""Shared by the tolerant-reading tests of what each side receives: a small schema whose
requests and notifications, for both sides, carry `x-deserialize-*` marks (directly and through
a nested class) or lead to none; generating a schema into a package; and two connections of a
generated package's own runtime linked to each other."""

from __future__ import annotations

import importlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from acp_codegen.load.marks import DEFAULT_ON_ERROR, DEFAULT_ON_NULL
from conftest import FIXTURE_SCHEMAS
from runtime.streams import stream_pair

STRINGS = {"type": "array", "items": {"type": "string"}}


def _method(name: str, side: str, kind: str, params: str, result: str | None) -> dict[str, Any]:
    return {"method": name, "side": side, "kind": kind, "params": params, "result": result}


def _params(method: str, side: str, properties: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "x-method": method,
        "x-side": side,
        "properties": properties,
        **extra,
    }


def widgets_schema(root: Path) -> Path:
    """The merge_annotation fixture with widget methods around a few marks. Agent side: a
    request whose params lead to marks (directly and through `Server`), one whose params lead
    to none, a marked notification. Client side the same: `widget/ask` (marked, and an unmarked
    `label`), `widget/peek` (no mark) and the marked notification `widget/nudge`. The results
    of `widget/open` (read by the client) and `widget/ask` (read by the agent) carry marks and
    an unmarked `count`; those of `widget/plain` and `widget/peek` none."""
    doc = json.loads((FIXTURE_SCHEMAS / "merge_annotation.json").read_text(encoding="utf-8"))
    defs = doc["$defs"]
    defs["Server"] = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "args": {**STRINGS, DEFAULT_ON_NULL: True}},
        "required": ["name"],
    }
    defs["Plain"] = {"type": "object", "properties": {"x": {"type": "string"}}}
    defs["OpenWidgetRequest"] = _params(
        "widget/open",
        "agent",
        {
            "path": {"type": "string"},
            "tags": {**STRINGS, DEFAULT_ON_NULL: True},
            "server": {"$ref": "#/$defs/Server"},
            "plain": {"$ref": "#/$defs/Plain"},
        },
        required=["path"],
    )
    defs["PlainWidgetRequest"] = _params(
        "widget/plain", "agent", {"plain": {"$ref": "#/$defs/Plain"}}
    )
    defs["AskWidgetRequest"] = _params(
        "widget/ask",
        "client",
        {
            "label": {"type": "string"},
            "tags": {**STRINGS, DEFAULT_ON_NULL: True},
            "server": {"$ref": "#/$defs/Server"},
        },
    )
    defs["PeekWidgetRequest"] = _params("widget/peek", "client", {"label": {"type": "string"}})
    defs["PokeWidgetNotification"] = _params(
        "widget/poke", "agent", {"note": {"type": "string", DEFAULT_ON_ERROR: True}}
    )
    defs["NudgeWidgetNotification"] = _params(
        "widget/nudge",
        "client",
        {"note": {"type": "string", DEFAULT_ON_ERROR: True}, "count": {"type": "integer"}},
    )
    responses = (("Open", "agent"), ("Plain", "agent"), ("Ask", "client"), ("Peek", "client"))
    for name, side in responses:
        defs[f"{name}WidgetResponse"] = _params(f"widget/{name.lower()}", side, {})
    # Results each side reads back: marked (directly and through `Server`) next to unmarked.
    defs["OpenWidgetResponse"]["properties"] = {
        "tags": {**STRINGS, DEFAULT_ON_NULL: True},
        "server": {"$ref": "#/$defs/Server"},
        "count": {"type": "integer"},
    }
    defs["AskWidgetResponse"]["properties"] = {
        "note": {"type": "string", DEFAULT_ON_ERROR: True},
        "count": {"type": "integer"},
    }
    doc["x-methods"] += [
        _method("widget/open", "agent", "request", "OpenWidgetRequest", "OpenWidgetResponse"),
        _method("widget/plain", "agent", "request", "PlainWidgetRequest", "PlainWidgetResponse"),
        _method("widget/ask", "client", "request", "AskWidgetRequest", "AskWidgetResponse"),
        _method("widget/peek", "client", "request", "PeekWidgetRequest", "PeekWidgetResponse"),
        _method("widget/poke", "agent", "notification", "PokeWidgetNotification", None),
        _method("widget/nudge", "client", "notification", "NudgeWidgetNotification", None),
    ]
    schema = root / "schema.json"
    schema.write_text(json.dumps(doc), encoding="utf-8")
    return schema


def rpc_error(module: ModuleType) -> type[Exception]:
    """The package's own RpcError (its runtime is a copy: not ours)."""
    error: type[Exception] = importlib.import_module(
        f"{module.__name__}._runtime.wire.errors"
    ).RpcError
    return error


@asynccontextmanager
async def linked(module: ModuleType) -> AsyncIterator[tuple[Any, Any]]:
    """Two connections of `module`'s runtime linked to each other, closed on exit; assign each
    its dispatcher, then start both."""
    connection_type = importlib.import_module(f"{module.__name__}._runtime.rpc.connection")
    (ra, wa), (rb, wb) = await stream_pair()
    near, far = connection_type.Connection(ra, wa), connection_type.Connection(rb, wb)
    try:
        yield near, far
    finally:
        await near.close()
        await far.close()
