"""Benchmarks side by side with the official ACP Python SDK; reported, never asserted.

    python bench/run.py                 # installs the `bench` extra if needed, runs everything
    python bench/run.py --repeat 3      # fewer samples per measure (default 5)
    python bench/run.py --only line_chunks,import

Every sample runs in a fresh process (`worker.py`), and the implementations of one measure
alternate sample by sample (ours, baseline, SDK, ...), so load on a shared machine hits all of
them alike; each figure is the median of the samples. Prints one table and writes it, with date,
machine and versions, to bench/RESULTS.md. See bench/README.md for what each row measures.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))
import stream  # noqa: E402
from report import Row, cpu_rows, fmt_rate, orjson_row, table, us, versions  # noqa: E402
from rows_mem import memory_rows  # noqa: E402
from rows_rc3 import rc3_env, rc3_rows  # noqa: E402
from rows_v1 import regression_rows, v1_rows  # noqa: E402

# The runtime as it was before the performance work: its rows are the "before" of each fix.
BASELINE_REV = "87b4f2f"
SDK_REQUIREMENT = "agent-client-protocol==0.12.1"
NOTES_MARKER = "<!-- analysis: kept by run.py -->"


def ensure_installed() -> None:
    """The SDK comes from the `bench` extra; never a runtime dependency."""
    if importlib.util.find_spec("acp") is None or importlib.util.find_spec("orjson") is None:
        print(f"installing the bench extra ({SDK_REQUIREMENT}) ...", file=sys.stderr)
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "-e", f"{REPO}[bench]"], check=True
        )


def record_stream() -> None:
    """Write the 200k-line streams once (fixed seed); workers read them."""
    cache = BENCH / ".cache"
    cache.mkdir(exist_ok=True)
    for flavour, make in (("ours", stream.ours), ("sdk", stream.sdk)):
        path = cache / f"stream-{flavour}-{stream.SEED}.ndjson"
        if not path.exists():
            path.write_bytes(b"\n".join(make(200_000)) + b"\n")


def extract_baseline(rev: str, into: Path) -> Path | None:
    """The baseline revision's generated package (it carries its own runtime copy)."""
    try:
        archive = subprocess.run(
            ["git", "archive", "--format=tar", rev, "generated/acp_bindings"],
            cwd=REPO,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        print(f"baseline {rev} unavailable: 'before' rows are skipped", file=sys.stderr)
        return None
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "generated"


# -- sampling -------------------------------------------------------------------------------


def worker(measure: str, impl: str, generated: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, str(BENCH / "worker.py"), measure, impl, str(generated)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=rc3_env(impl),  # None: this process's
    )
    if out.returncode != 0:
        raise RuntimeError(f"{measure}/{impl} failed:\n{out.stderr[-2000:]}")
    import json

    values: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return values


def sample(measure: str, impls: dict[str, Path], repeat: int) -> dict[str, dict[str, float]]:
    """impl -> value name -> median over `repeat` processes, implementations interleaved."""
    samples: dict[str, list[dict[str, float]]] = {impl: [] for impl in impls}
    for _ in range(repeat):
        for impl, generated in impls.items():
            samples[impl].append(worker(measure, impl, generated))
    # A value some sample lacks (say, CPU where /proc could not be read) is left out.
    return {
        impl: {
            name: statistics.median(run[name] for run in runs)
            for name in runs[0]
            if all(name in run for run in runs)
        }
        for impl, runs in samples.items()
    }


def cli_seconds(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=REPO, check=True, capture_output=True)
    return time.perf_counter() - start


def generation(repeat: int) -> dict[str, float]:
    """`acp-codegen generate` (full, into an empty directory; then no-op), `check`, and
    datamodel-code-generator's CLI alone on the same schema, interleaved."""
    schema = str(REPO / "schema" / "acp.schema.json")
    codegen = [sys.executable, "-m", "acp_codegen"]
    beside = Path(sys.executable).with_name("datamodel-codegen")  # the venv's, when not active
    dcg = (
        str(beside) if beside.exists() else shutil.which("datamodel-codegen") or "datamodel-codegen"
    )
    runs: dict[str, list[float]] = {"full": [], "noop": [], "check": [], "dcg": []}
    # Both tools load from bytecode, as installed: pip compiled datamodel-code-generator's
    # modules, and a wheel of ours would be too (an editable install under
    # PYTHONDONTWRITEBYTECODE compiles ~90 modules on every run instead).
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(REPO / "codegen" / "acp_codegen")],
        check=True,
        capture_output=True,
    )
    # One core as well as two: the full generate forks where a core is spare (emit/ahead.py).
    one_core = ["taskset", "-c", "0"] if shutil.which("taskset") else None
    if one_core:
        runs |= {"full_1": [], "dcg_1": []}
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            target = ["--schema", schema, "--out", tmp, "--package", "acp_bindings"]
            dcg_run = [dcg, "--input", schema, "--input-file-type", "jsonschema"]
            dcg_run += ["--output-model-type", "pydantic_v2.BaseModel", "--output", f"{tmp}/m.py"]
            runs["full"].append(cli_seconds([*codegen, "generate", *target]))
            runs["noop"].append(cli_seconds([*codegen, "generate", *target]))
            runs["check"].append(cli_seconds([*codegen, "check", *target]))
            runs["dcg"].append(cli_seconds(dcg_run))
            if one_core:
                shutil.rmtree(Path(tmp) / "acp_bindings")
                runs["full_1"].append(cli_seconds([*one_core, *codegen, "generate", *target]))
                runs["dcg_1"].append(cli_seconds([*one_core, *dcg_run]))
    return {name: statistics.median(values) for name, values in runs.items()}


def run_all(repeat: int, only: set[str] | None, baseline: Path | None, rev: str) -> list[Row]:
    ours_dir = REPO / "generated"
    mine: dict[str, Path] = {"ours": ours_dir}
    if baseline is not None:
        mine["base"] = baseline
    rows: list[Row] = []
    # Installed packages load from bytecode (pip compiles the SDK's), so every copy of ours is
    # measured that way too, the baseline included. It matters beyond import time: how a
    # process was loaded shapes its heap, which once made pipe reads 30-40 µs slower.
    for generated in mine.values():
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(generated)],
            check=True,
            capture_output=True,
        )

    # One discarded round first: the first processes of a run found the page cache and the
    # CPU cold (Round 8's first measure came out 20 % off; run again at once, it was not).
    for impl, generated in {**mine, "sdk": ours_dir}.items():
        worker("line_chunks", impl, generated)

    def wanted(name: str) -> bool:
        return only is None or name in only

    seen: dict[str, dict[str, dict[str, float]]] = {}  # measure -> impl -> values, for (8)

    def sample_kept(
        measure: str, impls: dict[str, Path], times: int
    ) -> dict[str, dict[str, float]]:
        seen[measure] = got = sample(measure, impls, times)
        return got

    def before(values: dict[str, dict[str, float]], name: str, show: Callable[[float], str]) -> str:
        return show(values["base"][name]) if "base" in values else "-"

    for kind in ("chunks", "mixed"):
        name = f"line_{kind}"
        if not wanted(name):
            continue
        floors = {"json": ours_dir, "orjson": ours_dir} if kind == "mixed" else {"json": ours_dir}
        got = sample_kept(name, {**mine, "sdk": ours_dir, **floors}, repeat)
        ours, sdk, loads = got["ours"][name], got["sdk"][name], got["json"][name]
        what = "agent_message_chunk lines" if kind == "chunks" else "the 200k mixed stream"
        rows.append(
            Row(
                f"(1) raw session/update line to state, client path, {what}",
                us(ours),
                f"SDK json.loads+model_validate {us(sdk)}",
                ours / sdk,
                "<= 1.0" if kind == "chunks" else "(report)",
                ours <= sdk if kind == "chunks" else None,
                before(got, name, us),
            )
        )
        rows.append(
            Row(
                f"(1) same, against json.loads alone ({what})",
                us(ours),
                f"json.loads {us(loads)}",
                ours / loads,
                "<= 2.5" if kind == "chunks" else "<= 1.2",
                ours / loads <= (2.5 if kind == "chunks" else 1.2),
                before(got, name, us),
            )
        )
        if "orjson" in got:
            rows.append(orjson_row(f"(1) same, against orjson.loads alone ({what})", ours, got))
    if wanted("ingest"):
        got = sample_kept("ingest", {**mine, "sdk": ours_dir}, repeat)
        ours, sdk = got["ours"]["ingest"], got["sdk"]["ingest"]
        rows.append(
            Row(
                "(2) whole connection, 200k preloaded mixed lines (ours keeps state)",
                fmt_rate(ours),
                f"SDK connection {fmt_rate(sdk)}",
                ours / sdk,
                ">= 3.0",
                ours / sdk >= 3.0,
                before(got, "ingest", fmt_rate),
            )
        )
    if wanted("import"):
        got = sample("import", {**mine, "models": ours_dir, "sdk": ours_dir}, max(repeat, 7))
        ours, sdk = got["ours"]["import"], got["sdk"]["import"]
        rows.append(
            Row(
                "(3) import acp_bindings vs import acp (fresh process)",
                f"{ours * 1e3:.0f} ms",
                f"import acp {sdk * 1e3:.0f} ms",
                ours / sdk,
                "<= 0.25",
                ours / sdk <= 0.25,
                before(got, "import", lambda s: f"{s * 1e3:.0f} ms"),
            )
        )
        models = got["models"]["import"]  # what a program that uses the models pays
        rows.append(
            Row(
                "(3) import acp_bindings.models (the models load on first use) vs import acp",
                f"{models * 1e3:.0f} ms",
                f"import acp {sdk * 1e3:.0f} ms",
                models / sdk,
                "(report)",
                None,
            )
        )
    if wanted("generate"):
        got_gen = generation(max(3, repeat // 2 + 1))
        for name, label, limit, against in (
            ("noop", "no-op generate", 0.25, "dcg"),
            ("check", "check", 0.25, "dcg"),
            ("full", "full generate", 1.0, "dcg"),
            ("full_1", "full generate, one core (taskset -c 0, both)", 1.0, "dcg_1"),
        ):
            if name not in got_gen:
                continue
            other = got_gen[against]
            rows.append(
                Row(
                    f"(4) acp-codegen {label}",
                    f"{got_gen[name]:.2f} s",
                    f"datamodel-codegen CLI alone {other:.2f} s",
                    got_gen[name] / other,
                    f"<= {limit}",
                    got_gen[name] / other <= limit,
                )
            )
    if wanted("round_trips"):
        trips = sample_kept("round_trips", {**mine, "sdk": ours_dir}, repeat)
        our_trips, sdk_trips = trips["ours"], trips["sdk"]
        for name, label in (("session_new", "session/new"), ("ext", "extension request")):
            rows.append(
                Row(
                    f"(5) {label} round trips over pipes",
                    fmt_rate(our_trips[name]),
                    f"SDK {fmt_rate(sdk_trips[name])}",
                    our_trips[name] / sdk_trips[name],
                    ">= 1.0",
                    our_trips[name] >= sdk_trips[name],
                    before(trips, name, fmt_rate),
                )
            )
            if name == "session_new":  # CPU, which load disturbs least, beside the rate
                label = "(5) CPU per session/new round trip, client + agent"
                rows += cpu_rows(label, our_trips, sdk_trips, "SDK", trips.get("base"))
        rows.append(
            Row(
                "(5) one prompt turn streaming 10k chunks (time)",
                f"{our_trips['turn']:.3f} s",
                f"SDK {sdk_trips['turn']:.3f} s",
                our_trips["turn"] / sdk_trips["turn"],
                "<= 0.6",
                our_trips["turn"] / sdk_trips["turn"] <= 0.6,
                before(trips, "turn", lambda s: f"{s:.3f} s"),
            )
        )
    rows += v1_rows(wanted, sample, ours_dir, repeat)
    rows += rc3_rows(wanted, sample, ours_dir, repeat)
    rows += memory_rows(wanted, sample, mine, min(repeat, 3))
    if wanted("merge"):
        merges = sample("merge", mine, repeat)
        ratio = merges["ours"]["merge_ratio"]
        rows.append(
            Row(
                "(6) merge 100k vs 10k chunks (time ratio)",
                f"{ratio:.1f}",
                f"10k: {merges['ours']['merge_10k'] * 1e3:.0f} ms, 100k: "
                f"{merges['ours']['merge_100k'] * 1e3:.0f} ms",
                ratio,
                "<= 12",
                ratio <= 12,
                before(merges, "merge_ratio", lambda r: f"{r:.1f}"),
            )
        )
    if wanted("outgoing"):
        sends = sample("outgoing", {"ours": ours_dir}, repeat)["ours"]
        rows.append(
            Row(
                "(6) validating an outgoing update vs sending it (mixed stream)",
                us(sends["validate"]),
                f"send path (notify) {us(sends['send'])}",
                sends["validate_share"],
                "<= 0.3",
                sends["validate_share"] <= 0.3,
            )
        )
    return rows + regression_rows(seen, rev)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="processes per implementation")
    parser.add_argument(
        "--only",
        help="comma-separated: line_chunks,line_mixed,ingest,import,generate,round_trips,"
        "line_v1,round_trips_v1,line_rc3,round_trips_rc3,merge,outgoing,memory",
    )
    parser.add_argument("--baseline", default=BASELINE_REV, help="git revision for 'before'")
    parser.add_argument("--no-write", action="store_true", help="do not write RESULTS.md")
    args = parser.parse_args()
    ensure_installed()
    record_stream()
    only = set(args.only.split(",")) if args.only else None
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        baseline = extract_baseline(args.baseline, Path(tmp))
        rows = run_all(args.repeat, only, baseline, args.baseline)
    load = os.getloadavg() if hasattr(os, "getloadavg") else ()
    header = [
        f"Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; took {time.perf_counter() - started:.0f} s",
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.system()} "
        f"{platform.release()}; load average at the end {', '.join(f'{x:.1f}' for x in load)}",
        f"Versions: {versions()}",
        f"Samples: {args.repeat} fresh processes per implementation and measure, interleaved; "
        f"medians. Baseline: {args.baseline}.",
    ]
    text = "\n".join(header) + "\n\n" + table(rows) + "\n"
    print(text)
    if not args.no_write:
        results = BENCH / "RESULTS.md"
        # Hand-written analysis below the marker survives a rerun.
        old = results.read_text() if results.exists() else ""
        notes = old[old.index(NOTES_MARKER) :] if NOTES_MARKER in old else NOTES_MARKER + "\n"
        results.write_text(
            "# Benchmark results\n\nWritten by `python bench/run.py`; see bench/README.md.\n\n"
            + "\n\n".join(header)
            + "\n\n"
            + table(rows)
            + "\n\n"
            + notes
        )


if __name__ == "__main__":
    main()
