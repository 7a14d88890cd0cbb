"""The results table: rows, formatting, and the versions line of bench/RESULTS.md."""

from __future__ import annotations

import platform
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclass
class Row:
    measure: str
    ours: str
    other: str
    ratio: float | None
    target: str
    met: bool | None
    before: str = ""


def us(seconds: float) -> str:
    return f"{seconds * 1e6:.2f} µs"


def fmt_rate(rate: float) -> str:
    return f"{rate:,.0f}/s"


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    parts = [f"Python {platform.python_version()}"]
    for dist in (
        "acp-codegen",
        "pydantic",
        "pydantic-core",
        "agent-client-protocol",
        "orjson",
        "datamodel-code-generator",
        "black",
    ):
        try:
            parts.append(f"{dist} {version(dist)}")
        except PackageNotFoundError:
            parts.append(f"{dist} (not installed)")
    rev = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
    ).stdout.strip()
    parts.append("agent-client-protocol 1.0.0rc3 (rows 9, installed apart)")
    return ", ".join(parts) + (f"; acp-codegen at {rev}" if rev else "")


def table(rows: list[Row]) -> str:
    lines = [
        "| measure | ours | other | ratio | target | met | before (baseline) |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        ratio = "-" if row.ratio is None else f"{row.ratio:.2f}"
        met = "-" if row.met is None else ("yes" if row.met else "**no**")
        lines.append(
            f"| {row.measure} | {row.ours} | {row.other} | {ratio} | {row.target} "
            f"| {met} | {row.before} |"
        )
    return "\n".join(lines)


def orjson_row(
    label: str, ours: float, got: Mapping[str, Mapping[str, float]], name: str | None = None
) -> Row:
    """Ours per line against `orjson.loads` alone on the same stream: a second floor (issue 21
    reports it; nothing in the runtime depends on orjson)."""
    floor = next(iter(got["orjson"].values())) if name is None else got["orjson"][name]
    return Row(label, us(ours), f"orjson.loads {us(floor)}", ours / floor, "(report)", None)


def cpu_rows(
    label: str,
    mine: Mapping[str, float],
    theirs: Mapping[str, float],
    who: str,
    base: Mapping[str, float] | None = None,
    name: str = "session_new",
) -> list[Row]:
    """A "(report)" row beside a round-trip rate: CPU µs per round trip, client + agent (from
    /proc, see trip_window.py), ours over theirs (lower is better). No row when either side
    lacks the value (no /proc); `base`: the baseline's values, for the "before" column."""
    key = f"{name}_cpu_us"
    if key not in mine or key not in theirs:
        return []

    def show(values: Mapping[str, float]) -> str:
        client, agent = values.get(f"{name}_client_cpu_us"), values.get(f"{name}_agent_cpu_us")
        split = (
            "" if client is None or agent is None else f" (client {client:.0f} + agent {agent:.0f})"
        )
        return f"{values[key]:.0f} µs{split}"

    before = "" if base is None else show(base) if key in base else "-"
    ratio = mine[key] / theirs[key]
    return [Row(label, show(mine), f"{who} {show(theirs)}", ratio, "(report)", None, before)]
