"""Where the time of a full `acp-codegen generate` into an empty folder goes, step by step
(bench/RESULTS.md, Round 9a).

    taskset -c 0 python bench/profile_generate.py [RUNS]   # one core: every step in this process
    python bench/profile_generate.py [RUNS]                # two cores: the forked children too

Each run generates the repository's schema into a fresh temporary folder through the CLI's own
entry point (`cli.main`, in this process), with the pipeline's steps wrapped in timers
(`time.perf_counter`; seconds of wall time, nested steps counted once, in the innermost step).
The imports of the generate path are timed first, on their own; the first run is what the CLI
pays (lazy imports and cold caches included), the later runs show the steps warm. Where a step
forks (emit/ahead.py), its child's work is not in this process's timers: read the one-core
figures for the whole work.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SCHEMA = REPO / "schema" / "acp.schema.json"

_spent: dict[str, float] = defaultdict(float)
_stack: list[float] = []  # per open step: the time its inner steps took


def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        _stack.append(0.0)
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            whole = time.perf_counter() - start
            inner = _stack.pop()
            _spent[name] += whole - inner
            if _stack:
                _stack[-1] += whole

    return wrapper


def _wrap(module: Any, attr: str, name: str) -> None:
    if hasattr(module, attr):  # steps of other revisions are left out
        setattr(module, attr, timed(name, getattr(module, attr)))


def _black(fn: Callable[..., Any]) -> Callable[..., Any]:
    """black's time, models.py (or a part of it) apart from the templated modules."""
    models, others = timed("black on models.py", fn), timed("black on the templated modules", fn)

    def wrapper(source: str, *args: Any, **kwargs: Any) -> Any:
        big = "model_config = ConfigDict(" in source  # models.py or a part of it
        return (models if big else others)(source, *args, **kwargs)

    return wrapper


def instrument() -> None:
    from acp_codegen.commands import pipeline, sync
    from acp_codegen.emit import render, typed_surface

    _wrap(pipeline, "load_document", "read the schema")
    _wrap(pipeline, "check", "schema checks (meta-schema, keywords, semantics)")
    _wrap(pipeline, "_build", "overlay + build the protocol")
    _wrap(render, "generate_models", "datamodel-code-generator (parse + render)")
    render.format_python = _black(render.format_python)
    _wrap(render, "render_reference", "PROTOCOL.md")
    _wrap(typed_surface.TypedSurface, "build", "typed surface (models read back)")
    _wrap(render, "python_pages", "templates (jinja)")
    _wrap(pipeline, "build_manifest", "manifest (hashes)")
    _wrap(sync, "write", "write the files")


def one_run() -> float:
    from acp_codegen.commands.cli import main

    with tempfile.TemporaryDirectory() as tmp:
        argv = ["generate", "--schema", str(SCHEMA), "--out", tmp, "--package", "acp_bindings"]
        start = time.perf_counter()
        code = main(argv)
        took = time.perf_counter() - start
    if code != 0:
        raise SystemExit(f"generate exited {code}")
    return took


def main(runs: int) -> None:
    start = time.perf_counter()
    import acp_codegen.commands.cli
    import acp_codegen.commands.pipeline  # noqa: F401  # black, jinja, datamodel-code-generator

    imports = time.perf_counter() - start
    instrument()
    totals: list[float] = []
    steps: list[dict[str, float]] = []
    for _ in range(runs):
        _spent.clear()
        totals.append(one_run())
        steps.append(dict(_spent))
    later = steps[1:] or steps
    print(f"imports (acp_codegen's generate path): {imports:.3f} s")
    print("   first run | median of the later runs | step")
    again = statistics.median(totals[1:] or totals)
    print(f"  {totals[0]:7.3f} s  | {again:7.3f} s  | whole generate")
    names = sorted(steps[0], key=lambda n: -steps[0][n])
    for name in names:
        again = statistics.median(s.get(name, 0.0) for s in later)
        print(f"  {steps[0][name]:7.3f} s  | {again:7.3f} s  |   {name}")
    rest = [total - sum(s.values()) for total, s in zip(totals, steps, strict=True)]
    again = statistics.median(rest[1:] or rest)
    print(
        f"  {rest[0]:7.3f} s  | {again:7.3f} s  |   the rest (CLI, lazy imports, waits on children)"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4)
