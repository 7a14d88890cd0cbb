"""What any agent this project makes answers to `initialize` for each requested version, read
on the wire as a client of that version sends it (shared by the example and scaffold tests)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .wire import RawAgent, run

INFO = {"name": "negotiation", "version": "1"}
# What a v1 client (every editor today) sends: no `info`, v1's capabilities.
V1_INITIALIZE = {
    "protocolVersion": 1,
    "clientCapabilities": {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": True},
    "clientInfo": {"name": "an-editor", "version": "1.0"},
}


def answers(argv: Sequence[str]) -> dict[str, Any]:
    """The answer to `initialize` for requested versions 0, 1, 2 and 3 (each on a fresh
    connection) and for a v1-shaped request, by name."""

    async def one(params: dict[str, Any]) -> dict[str, Any]:
        agent = await RawAgent.start(argv)
        try:
            return await agent.call("initialize", params)
        finally:
            await agent.close()

    async def main() -> dict[str, Any]:
        found = {f"v{n}": await one({"protocolVersion": n, "info": INFO}) for n in range(4)}
        found["v1-shaped"] = await one(V1_INITIALIZE)
        return found

    return run(main())


def check(found: dict[str, Any]) -> None:
    """The rule: the highest version served (1 and 2) at or below the request, answered in that
    version's shape; below all: -32022."""
    error = found["v0"]["error"]
    assert error["code"] == -32022, found["v0"]
    assert error["data"] == {"requested": 0, "supported": [1, 2]}, found["v0"]
    for name in ("v1", "v1-shaped"):
        result = found[name]["result"]
        assert result["protocolVersion"] == 1, found[name]
        assert result["agentInfo"]["name"] and "agentCapabilities" in result, found[name]
    for name in ("v2", "v3"):
        result = found[name]["result"]
        assert result["protocolVersion"] == 2, found[name]  # 3: our highest below it
        assert result["info"]["name"] and "capabilities" in result, found[name]
