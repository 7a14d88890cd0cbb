"""A test protocol for connection tests: methods, a handler object, message builders."""

from __future__ import annotations

import asyncio
from typing import Any

from acp_codegen.runtime.rpc.connection import Connection
from acp_codegen.runtime.rpc.dispatch import TableDispatcher
from acp_codegen.runtime.wire.tables import MethodSpec
from pydantic import BaseModel

from .streams import RawPeer


class EchoParams(BaseModel):
    text: str
    count: int = 1


class NoteParams(BaseModel):
    i: int


class Empty(BaseModel):
    pass


def spec(method: str, kind: str, params: type[Any], handler: str) -> MethodSpec:
    return MethodSpec(method, "agent", kind, params, None, handler)  # type: ignore[arg-type]


METHODS = {
    "echo": spec("echo", "request", EchoParams, "echo"),
    "boom": spec("boom", "request", Empty, "boom"),
    "chatty": spec("chatty", "request", Empty, "chatty"),
    "block": spec("block", "request", Empty, "block"),
    "note": spec("note", "notification", NoteParams, "note"),
    "model_result": spec("model_result", "request", EchoParams, "model_result"),
}


class Handler:
    """A handler object as generated base classes define them: keyword-only `params`."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.notes: list[int] = []
        self.block_started = asyncio.Event()
        self.block_cancelled = False
        self.note_gate: asyncio.Event | None = None
        self.note_entered = asyncio.Event()

    async def echo(self, *, params: EchoParams) -> dict[str, Any]:
        return {"text": params.text * params.count}

    async def model_result(self, *, params: EchoParams) -> EchoParams:
        return params

    async def boom(self, *, params: Empty) -> None:
        raise RuntimeError("kaboom")

    async def chatty(self, *, params: Empty) -> dict[str, Any]:
        for i in range(3):
            await self.connection.notify("note", {"i": i})
        return {"done": True}

    async def block(self, *, params: Empty) -> None:
        self.block_started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.block_cancelled = True
            raise

    async def note(self, *, params: NoteParams) -> None:
        self.note_entered.set()
        if self.note_gate is not None and params.i == 0:
            await self.note_gate.wait()
        self.notes.append(params.i)


def table(connection: Connection) -> TableDispatcher:
    return TableDispatcher(METHODS, Handler(connection))


def handler_of(connection: Connection) -> Handler:
    dispatcher = connection.dispatcher
    assert isinstance(dispatcher, TableDispatcher)
    handler = dispatcher._handler
    assert isinstance(handler, Handler)
    return handler


def request(request_id: Any, method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def notification(method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


async def expect_silence(peer: RawPeer) -> None:
    """No reply was written: the next line is the answer to a sentinel request."""
    await peer.send(request("sentinel", "echo", {"text": "s"}))
    assert await peer.recv() == {"jsonrpc": "2.0", "id": "sentinel", "result": {"text": "s"}}
