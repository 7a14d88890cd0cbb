"""The work an agent does per extension request, counted in calls, for two generated packages.

    python bench/call_counts.py BASE_GENERATED OURS_GENERATED [REQUESTS]

Each GENERATED folder holds an `acp_bindings` package (for a past commit:
`git archive COMMIT generated/acp_bindings | tar -x -C /tmp/base`, then /tmp/base/generated).
For each, our client (from the same folder) starts bench/agents.py under cProfile, sets up one
session and sends REQUESTS (default 20,000) extension requests one after another; the agent's
profile is then read as calls per function. Unlike a time, a call count does not move with the
host's load, so the two packages are compared on it: the script prints the calls per request
of each and every function whose count differs by at least a tenth of a call per request.
bench/RESULTS.md Round 13 uses it to tell more work from a noisier host.
"""

from __future__ import annotations

import os
import pstats
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

AGENTS = Path(__file__).resolve().parent / "agents.py"
Calls = Counter[tuple[str, str]]

_DRIVE = """
import asyncio, sys
generated, profile, requests = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, generated)
from acp_bindings import Client

async def main() -> None:
    client = Client()
    agent = [sys.executable, "-m", "cProfile", "-o", profile, sys.argv[4], "ours", generated]
    process = await client.spawn(agent)
    await client.lifecycle.initialize()
    await client.lifecycle.new_session(cwd="/")
    for n in range(requests):
        await client.agent.ext_method("_bench/echo", {"n": n})
    await process.close()

asyncio.run(main())
"""


def agent_calls(generated: Path, requests: int) -> Calls:
    """Calls per function in the agent's process, by (file name, function name)."""
    with tempfile.TemporaryDirectory() as folder:
        profile = os.path.join(folder, "agent.prof")
        argv = [sys.executable, "-c", _DRIVE, str(generated), profile, str(requests), str(AGENTS)]
        subprocess.run(argv, check=True)
        stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    calls: Calls = Counter()
    for (file, _line, function), (_primitive, count, *_rest) in stats.items():
        # a built-in is named with its address, which differs from process to process
        named = re.sub(r" at 0x[0-9a-f]+", "", function)
        calls[(file.rsplit("/", 1)[-1], named)] += count
    return calls


def main() -> None:
    base, ours = Path(sys.argv[1]), Path(sys.argv[2])
    requests = int(sys.argv[3]) if len(sys.argv) > 3 else 20_000
    before, after = agent_calls(base, requests), agent_calls(ours, requests)
    total_before, total_after = sum(before.values()), sum(after.values())
    per_request = f"base {total_before / requests:.2f}, ours {total_after / requests:.2f}"
    print(f"calls per request: {per_request}")
    for key in sorted(set(before) | set(after)):
        change = (after[key] - before[key]) / requests
        if abs(change) >= 0.1:
            print(f"{change:+8.2f}  {before[key]:>9} -> {after[key]:<9} {key[0]}:{key[1]}")


if __name__ == "__main__":
    main()
