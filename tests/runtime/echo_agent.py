"""A tiny agent process for subprocess tests: `python echo_agent.py` serves on stdio."""

from __future__ import annotations

import asyncio
import os
import subprocess
from typing import Any

from acp_codegen.runtime.rpc.connection import Connection
from acp_codegen.runtime.transports.stdio import serve_stdio
from acp_codegen.runtime.wire.errors import RpcError


class EchoAgent:
    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    async def handle_request(self, method: str, params: Any) -> Any:
        if method == "echo":
            print("a stray print must not reach the protocol stream")
            return params
        if method == "ask_client":  # a handler that awaits a request to the peer
            answer = await self.connection.request("client/answer", params)
            return {"client said": answer}
        if method == "flood":  # streams until the client stops reading
            for index in range(params["count"]):
                await self.connection.notify("flood/chunk", {"i": index, "text": "x" * 4096})
            return {"sent": params["count"]}
        if method == "run_child":  # a child process inherits the agent's stdout
            subprocess.run(["echo", "a child process wrote this"], check=True)
            return {"ran": True}
        if method == "die":
            os._exit(3)
        raise RpcError.method_not_found(method)

    async def handle_notification(self, method: str, params: Any) -> None:
        if method == "ping":
            await self.connection.notify("pong", params)


if __name__ == "__main__":
    asyncio.run(serve_stdio(EchoAgent))
