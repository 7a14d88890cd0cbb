"""The rows against the official SDK's v2 pre-release (1.0.0rc3) beside 0.12.1, for `run.py`.

Both SDK releases are imported as `acp`, so 1.0.0rc3 is installed apart (`pip --target`, no
dependencies: it needs pydantic, which this environment has) into the folder the interop tests
use (tests/interop/sdk_cache.py), and the `rc3` samples run with it first on PYTHONPATH.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from report import Row, fmt_rate, us
from worker_rc3 import RC3_LINES

RC3_REQUIREMENT = "agent-client-protocol==1.0.0rc3"

Sampler = Callable[[str, dict[str, Path], int], dict[str, dict[str, float]]]


def rc3_folder() -> Path | None:
    """The folder holding SDK 1.0.0rc3 (installed on first use), or None when it cannot be."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = base / "acp-codegen-tests" / "pip" / "acp-1.0.0rc3"
    if (folder / "agent_client_protocol-1.0.0rc3.dist-info").is_dir():
        return folder
    pip = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    argv = [*pip, "--no-deps", "--target", str(folder), RC3_REQUIREMENT]
    if subprocess.run(argv, capture_output=True, check=False).returncode != 0:
        print(f"{RC3_REQUIREMENT} unavailable: its rows are skipped", file=sys.stderr)
        return None
    return folder


def rc3_env(impl: str) -> dict[str, str] | None:
    """The environment of a worker: the `rc3` ones import that SDK as `acp`."""
    folder = rc3_folder() if impl == "rc3" else None
    if folder is None:
        return None
    given = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), *([given] if given else [])])}


def rc3_rows(wanted: Callable[[str], bool], sample: Sampler, ours: Path, repeat: int) -> list[Row]:
    rows: list[Row] = []
    if not (wanted("line_rc3") or wanted("round_trips_rc3")) or rc3_folder() is None:
        return rows
    if wanted("line_rc3"):
        got = sample("line_rc3", {"ours": ours, "rc3": ours}, repeat)
        mine, parse = got["ours"]["line_rc3"], got["rc3"]["line_rc3"]
        rows.append(
            Row(
                f"(9) v2 raw session/update line to state, first {RC3_LINES // 1000}k lines of "
                "the mixed stream, vs SDK 1.0.0rc3",
                us(mine),
                f"rc3 json.loads+session/update check {us(parse)}",
                mine / parse,
                "<= 1.0",
                mine <= parse,
            )
        )
    if wanted("round_trips_rc3"):
        trips = sample("round_trips_rc3", {"ours": ours, "rc3": ours}, repeat)
        rows += trip_rows(trips["ours"], trips["rc3"])
    return rows


def trip_rows(mine: Mapping[str, float], theirs: Mapping[str, float]) -> list[Row]:
    ratio = mine["turn"] / theirs["turn"]
    return [
        Row(
            "(9) v2 session/new round trips over pipes, ours vs SDK 1.0.0rc3 client -> agent",
            fmt_rate(mine["session_new"]),
            f"rc3 {fmt_rate(theirs['session_new'])}",
            mine["session_new"] / theirs["session_new"],
            ">= 1.5",
            mine["session_new"] >= 1.5 * theirs["session_new"],
        ),
        Row(
            "(9) v2 one prompt turn streaming 10k chunks (time), ours vs SDK 1.0.0rc3",
            f"{mine['turn']:.3f} s",
            f"rc3 {theirs['turn']:.3f} s",
            ratio,
            "<= 0.4",
            ratio <= 0.4,
        ),
    ]
