"""Benchmarks, reported and never asserted: generation time, import time, update ingestion.

    python bench/run.py            # prints a table; nothing here fails on a slow machine
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "generated"))

from acp_codegen.pipeline import load_protocol, render_tree  # noqa: E402
from acp_codegen.render import Target  # noqa: E402


def timed(action: Callable[[], object], repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return samples


def generation() -> list[float]:
    target = Target(package="acp_bindings", command="acp-codegen generate")
    schema = REPO / "schema" / "acp.schema.json"
    return timed(lambda: render_tree(load_protocol(schema), target), repeat=3)


def import_time() -> list[float]:
    code = "import time; t = time.perf_counter(); import acp_bindings; print(time.perf_counter()-t)"
    runs = []
    for _ in range(5):
        out = subprocess.run(
            [sys.executable, "-c", code],
            cwd=REPO / "generated",
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        runs.append(float(out))
    return runs


def ingestion(chunks: int = 20_000) -> list[float]:
    from acp_bindings import SessionState

    updates = [
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "m1",
            "content": {"type": "text", "text": f"token {i} "},
        }
        for i in range(chunks)
    ]

    def run() -> None:
        state = SessionState()
        for update in updates:
            state.apply(update)

    return [sample / chunks for sample in timed(run, repeat=3)]


def main() -> None:
    rows = [
        ("generate canonical schema (in memory)", generation(), "s"),
        ("import acp_bindings (fresh process)", import_time(), "s"),
        ("SessionState.apply, one chunk (20k chunks)", ingestion(), "s"),
    ]
    print(f"{'benchmark':48} {'median':>12} {'min':>12}")
    for name, samples, unit in rows:
        print(f"{name:48} {statistics.median(samples):>11.6f}{unit} {min(samples):>11.6f}{unit}")


if __name__ == "__main__":
    main()
