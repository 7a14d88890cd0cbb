"""The memory rows for `run.py`'s table: what the session state of the 200k mixed stream keeps
(`worker_mem.py`), per byte of the stream, against the stream's own size."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from report import Row

Sampler = Callable[[str, dict[str, Path], int], dict[str, dict[str, float]]]

# (value, label, target: at most this many bytes per stream byte)
LIMITS = (
    ("retained", "state kept after the ingest", 1.0),
    ("peak", "peak while ingesting and taking a snapshot", 1.3),
)


def memory_rows(
    wanted: Callable[[str], bool], sample: Sampler, mine: dict[str, Path], repeat: int
) -> list[Row]:
    if not wanted("memory"):
        return []
    got = sample("memory", mine, repeat)  # deterministic up to allocator noise: few samples do
    ours = got["ours"]
    rows: list[Row] = []
    for name, label, limit in LIMITS:
        before = f"{got['base'][name]:.2f} B/B" if "base" in got else "-"
        rows.append(
            Row(
                f"(9) memory: {label}, per stream byte (tracemalloc, fresh process)",
                f"{ours[name]:.2f} B/B",
                f"the stream, {ours['stream_mib']:.1f} MiB",
                ours[name],
                f"<= {limit}",
                ours[name] <= limit,
                before,
            )
        )
    return rows
