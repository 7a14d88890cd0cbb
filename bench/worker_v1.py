"""The v1 measures of `worker.py`: protocol v1 against the official SDK (which speaks v1).

- `line_v1`: one raw v1 `session/update` line (the SDK-flavoured 200k mixed stream) to session
  state through our client on a connection that negotiated v1 (v1's checks, then the v1
  dialect's reader turning each update into v2's, then the merge), against the SDK's
  `json.loads` + `SessionNotification.model_validate`, which keeps no state.
- `round_trips_v1`: `session/new` round trips and a 10k-chunk turn over pipes, on v1 both ways
  (no extension requests: our agent answers those on v2 only, v1 gets -32601).
  IMPL `ours` is the SDK's v1 client driving our agent (which negotiates v1 with it), `client`
  is our client driving the SDK's agent (our client asks for v2 and accepts the SDK's 1),
  `pair` is our client offering only v1 (`protocol_versions = (1,)`, as an editor's v1 client
  would) driving our agent, and `sdk` is the SDK's client driving the SDK's agent.
"""

from __future__ import annotations

import asyncio

from worker import (
    line_to_state,
    ours_round_trips,
    sdk_round_trips,
)

V1 = 1


def line_v1(impl: str, lines: list[bytes]) -> float:
    """Seconds per line; ours reads them on a connection that negotiated v1."""
    return line_to_state(impl, lines, repeat=1, version=V1)


def round_trips_v1(impl: str, generated: str) -> dict[str, float]:
    if impl == "ours":
        return asyncio.run(sdk_round_trips(("ours", generated), ext=False))
    if impl == "client":
        return asyncio.run(ours_round_trips(generated, agent="sdk", version=V1, ext=False))
    if impl == "pair":
        run = ours_round_trips(generated, agent="ours", version=V1, offer=(V1,), ext=False)
        return asyncio.run(run)
    return asyncio.run(sdk_round_trips(("sdk",), ext=False))
