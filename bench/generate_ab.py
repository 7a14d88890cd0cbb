"""A full `acp-codegen generate` on one core, this tree against another revision and the
datamodel-code-generator CLI, round by round (bench/RESULTS.md, Round 16).

    python bench/generate_ab.py [--baseline REV] [--rounds N]

Each round runs, under `taskset -c 0` and each into an empty folder: the baseline revision's
generator (its `codegen/`, `templates/` and `schema/` taken with `git archive`, loaded through
PYTHONPATH), this tree's, and the DCG CLI alone on the same schema (the command of run.py's
generate rows). Measured: CPU time of each process and its children (user + sys). Reported:
medians, and the median of each round's ratio to the CLI of that same round, which a host whose
speed drifts between rounds moves far less than the medians. Nothing is written.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCHEMA = REPO / "schema" / "acp.schema.json"


def baseline_tree(rev: str, into: Path) -> Path:
    """The generator at `rev`, laid out as a checkout (an editable install's paths)."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", rev, "codegen", "templates", "schema"],
        cwd=REPO,
        check=True,
        capture_output=True,
    ).stdout
    tar_path = into / "baseline.tar"
    tar_path.write_bytes(archive)
    with tarfile.open(tar_path) as tar:
        tar.extractall(into / "baseline", filter="data")
    return into / "baseline" / "codegen"


def cpu_seconds(argv: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["taskset", "-c", "0", *argv], check=True, capture_output=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="HEAD", help="git revision to compare with")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    if shutil.which("taskset") is None:
        sys.exit("taskset is needed (util-linux)")
    dcg = Path(sys.executable).with_name("datamodel-codegen")
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"baseline": baseline_tree(args.baseline, Path(tmp)), "ours": REPO / "codegen"}
        for tree in trees.values():  # both from bytecode, as installed
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree)], check=True)
        env = {k: v for k, v in os.environ.items() if k != "ACP_CODEGEN_CACHE_DIR"}
        spent: dict[str, list[float]] = {"baseline": [], "ours": [], "dcg": []}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                out = Path(tmp) / f"out-{name}"
                shutil.rmtree(out, ignore_errors=True)
                argv = [sys.executable, "-m", "acp_codegen", "generate", "--schema", str(SCHEMA)]
                argv += ["--out", str(out), "--package", "acp_bindings"]
                spent[name].append(cpu_seconds(argv, {**env, "PYTHONPATH": str(tree)}))
            models = Path(tmp) / "m.py"
            argv = [str(dcg), "--input", str(SCHEMA), "--input-file-type", "jsonschema"]
            argv += ["--output-model-type", "pydantic_v2.BaseModel", "--output", str(models)]
            spent["dcg"].append(cpu_seconds(argv, env))
    print(f"one core, {args.rounds} rounds, CPU seconds; baseline {args.baseline}")
    for name in ("baseline", "ours"):
        ratios = [a / b for a, b in zip(spent[name], spent["dcg"], strict=True)]
        print(
            f"{name:8} median {statistics.median(spent[name]):.2f} s, per-round ratio to the "
            f"CLI: median {statistics.median(ratios):.2f}x "
            f"(range {min(ratios):.2f}-{max(ratios):.2f})"
        )
    print(f"DCG CLI  median {statistics.median(spent['dcg']):.2f} s")


if __name__ == "__main__":
    main()
