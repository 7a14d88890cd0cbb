"""The results table: rows, formatting, and the versions line of bench/RESULTS.md."""

from __future__ import annotations

import platform
import subprocess
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
