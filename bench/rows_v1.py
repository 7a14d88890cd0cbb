"""The rows of protocol v1 against the official SDK (which speaks v1), and of the v2 path
against the baseline revision (no more than 5 % worse), for `run.py`'s table."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from report import Row, cpu_rows, fmt_rate, orjson_row, us

Sampler = Callable[[str, dict[str, Path], int], dict[str, dict[str, float]]]
Results = Mapping[str, Mapping[str, float]]

# v2 values compared with the baseline: (measure, value, label, higher is better).
V2_VALUES = (
    ("line_chunks", "line_chunks", "(1) chunk line to state", False),
    ("line_mixed", "line_mixed", "(1) mixed line to state", False),
    ("ingest", "ingest", "(2) whole connection ingest", True),
    ("round_trips", "session_new", "(5) session/new round trips", True),
    ("round_trips", "ext", "(5) extension request round trips", True),
    ("round_trips", "turn", "(5) 10k-chunk turn", False),
)
REGRESSION_LIMIT = 0.05


def v1_rows(wanted: Callable[[str], bool], sample: Sampler, ours: Path, repeat: int) -> list[Row]:
    rows: list[Row] = []
    if wanted("line_v1"):
        got = sample("line_v1", {"ours": ours, "sdk": ours, "json": ours, "orjson": ours}, repeat)
        mine, parse, loads = (got[impl]["line_v1"] for impl in ("ours", "sdk", "json"))
        rows.append(
            Row(
                "(7) v1: raw session/update line to state, client path, the 200k mixed v1 stream",
                us(mine),
                f"SDK json.loads+model_validate {us(parse)}",
                mine / parse,
                "<= 1.0",
                mine <= parse,
            )
        )
        rows.append(
            Row(
                "(7) v1: same, against json.loads alone",
                us(mine),
                f"json.loads {us(loads)}",
                mine / loads,
                "<= 1.2",
                mine / loads <= 1.2,
            )
        )
        rows.append(orjson_row("(7) v1: same, against orjson.loads alone", mine, got, "line_v1"))
    if wanted("round_trips_v1"):
        impls = {"ours": ours, "client": ours, "pair": ours, "sdk": ours}
        got = sample("round_trips_v1", impls, repeat)
        sdk = got["sdk"]
        for impl, who in (
            ("ours", "SDK v1 client -> our agent"),
            ("client", "our client -> SDK agent"),
        ):
            rows.append(
                Row(
                    f"(7) v1: session/new round trips over pipes, {who}",
                    fmt_rate(got[impl]["session_new"]),
                    f"SDK client -> SDK agent {fmt_rate(sdk['session_new'])}",
                    got[impl]["session_new"] / sdk["session_new"],
                    ">= 1.0",
                    got[impl]["session_new"] >= sdk["session_new"],
                )
            )
        for impl, who, target in (
            ("ours", "SDK v1 client -> our agent", True),
            ("client", "our client -> SDK agent (the SDK agent's sending bounds it)", False),
        ):
            ratio = got[impl]["turn"] / sdk["turn"]
            rows.append(
                Row(
                    f"(7) v1: one prompt turn streaming 10k chunks (time), {who}",
                    f"{got[impl]['turn']:.3f} s",
                    f"SDK client -> SDK agent {sdk['turn']:.3f} s",
                    ratio,
                    "<= 0.6" if target else "(report)",
                    ratio <= 0.6 if target else None,
                )
            )
        rows += pair_rows(got["pair"], sdk)
    return rows


def pair_rows(pair: Mapping[str, float], sdk: Mapping[str, float]) -> list[Row]:
    """Our v1 client (offering only v1) driving our agent, against the SDK's client driving
    the SDK's agent: v1 at both ends, ours at both ends, as issue 21's targets mean."""
    who = "our v1 client -> our agent"
    ratio = pair["turn"] / sdk["turn"]
    return [
        Row(
            f"(7) v1: session/new round trips over pipes, {who}",
            fmt_rate(pair["session_new"]),
            f"SDK client -> SDK agent {fmt_rate(sdk['session_new'])}",
            pair["session_new"] / sdk["session_new"],
            ">= 1.5",
            pair["session_new"] >= 1.5 * sdk["session_new"],
        ),
        *cpu_rows(
            f"(7) v1: CPU per session/new round trip, client + agent, {who}",
            pair,
            sdk,
            "SDK client -> SDK agent",
        ),
        Row(
            f"(7) v1: one prompt turn streaming 10k chunks (time), {who}",
            f"{pair['turn']:.3f} s",
            f"SDK client -> SDK agent {sdk['turn']:.3f} s",
            ratio,
            "<= 0.4",
            ratio <= 0.4,
        ),
    ]


def regression_rows(seen: Mapping[str, Results], rev: str) -> list[Row]:
    """The v2 rows measured against the baseline revision too: at most 5 % worse."""
    rows: list[Row] = []
    for measure, name, label, higher in V2_VALUES:
        got = seen.get(measure)
        if got is None or "base" not in got or name not in got["ours"]:
            continue
        mine, base = got["ours"][name], got["base"][name]
        show = fmt_rate if higher else (lambda s: f"{s:.3f} s" if s > 0.01 else us(s))
        # ratio > 1 is worse: time over the baseline's, or the baseline's rate over ours
        worse = base / mine if higher else mine / base
        rows.append(
            Row(
                f"(8) v2 {label} vs baseline {rev} (ratio: how much slower)",
                show(mine),
                f"baseline {show(base)}",
                worse,
                f"<= {1 + REGRESSION_LIMIT:.2f}",
                worse <= 1 + REGRESSION_LIMIT,
            )
        )
    return rows
