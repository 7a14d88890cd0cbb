"""Run every fuzz target for a time budget; outside the test suite (`pip install -e ".[fuzz]"`).

    python fuzz/run.py                 # 60 s per target
    python fuzz/run.py --seconds 600 schema

Each target starts from fuzz/seeds/<target>/ (when present) and a fresh corpus; an input that
fails is saved under fuzz/findings/ and named in the summary. Exit status 1 when any target
found something.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS = ("frames", "dispatch", "messages", "schema")


def run_target(name: str, seconds: int) -> tuple[bool, str]:
    findings = HERE / "findings"
    findings.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as corpus:
        seeds = HERE / "seeds" / name
        command = [
            sys.executable,
            str(HERE / "targets.py"),
            name,
            f"-max_total_time={seconds}",
            "-rss_limit_mb=2048",
            "-timeout=30",  # one input running this long is a hang: a finding
            f"-artifact_prefix={findings}/{name}-",
            corpus,
            *([str(seeds)] if seeds.is_dir() else []),
        ]
        proc = subprocess.run(command, capture_output=True, text=True, check=False)
    log = proc.stderr
    runs = re.findall(r"#(\d+)\s+(?:DONE|pulse|NEW|REDUCE)", log)
    cov = re.findall(r"cov: (\d+)", log)
    saved = re.findall(r"Test unit written to (\S+)", log)
    summary = f"{name}: {runs[-1] if runs else '?'} runs, coverage {cov[-1] if cov else '?'}"
    if proc.returncode != 0:
        tail = "\n".join(log.splitlines()[-25:])
        return (
            False,
            f"{summary}, FOUND {' '.join(saved) or 'a failure'} (exit {proc.returncode})\n{tail}",
        )
    return True, summary + ", nothing found"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=60, help="budget per target")
    parser.add_argument("targets", nargs="*", help=f"some of {', '.join(TARGETS)} (default: all)")
    args = parser.parse_args()
    unknown = set(args.targets) - set(TARGETS)
    if unknown:
        parser.error(f"unknown target(s): {', '.join(sorted(unknown))}")
    clean = True
    for name in args.targets or TARGETS:
        ok, summary = run_target(name, args.seconds)
        print(summary, flush=True)
        clean &= ok
    return 0 if clean else 1


if __name__ == "__main__":
    raise SystemExit(main())
