"""How the inspector's page copes with long sessions: 100k updates, replayed and live.

    python bench/inspect_page.py            # writes bench/RESULTS_INSPECT.md
    python bench/inspect_page.py --updates 20000 --no-write

Needs the `inspect` and `test` extras (aiohttp, playwright) and Chromium at /usr/bin/chromium.
Reported, never asserted (tests never time anything). Measures, each once, wall clock:

- trace: a generated trace of N updates (70 % chunks of one agent message, the rest tool-call
  output chunks over 100 tool calls), opened with `inspect --trace`: the server reading it, the
  page's first full view, moving the slider to the middle, one step back from there (a refold
  from the start), scrolling the traffic list to its middle, filtering it by method;
- live: `bench/agents.py` streaming N chunks in one turn through `inspect -- AGENT`: the time
  from Send until the page shows the turn idle, and the slowest answer of the page's main
  thread to a probe while the turn streams (how long the page could not react).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip
SESSION = "sess_bench"
TIMEOUT_MS = 600_000
# Do something in the page, then resolve with the time until two frames later (drawn).
DRAWN = """() => new Promise((done) => {
    const began = performance.now();
    %s
    requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - began)));
})"""


def trace_lines(updates: int) -> list[dict[str, Any]]:
    def update(body: dict[str, Any]) -> dict[str, Any]:
        params = {"sessionId": SESSION, "update": body}
        message = {"jsonrpc": "2.0", "method": "session/update", "params": params}
        return {"time": "2026-01-01T00:00:00+00:00", "dir": "recv", "message": message}

    def rpc(direction: str, body: dict[str, Any]) -> dict[str, Any]:
        message = {"jsonrpc": "2.0", **body}
        return {"time": "2026-01-01T00:00:00+00:00", "dir": direction, "message": message}

    info = {"name": "bench", "version": "1"}
    lines = [
        rpc("send", {"id": 1, "method": "initialize", "params": {"protocolVersion": 2}}),
        rpc("recv", {"id": 1, "result": {"protocolVersion": 2, "info": info, "capabilities": {}}}),
        rpc("send", {"id": 2, "method": "session/new", "params": {"cwd": "/"}}),
        rpc("recv", {"id": 2, "result": {"sessionId": SESSION}}),
        update({"sessionUpdate": "state_update", "state": "running"}),
    ]
    for n in range(updates):
        if n % 10 < 7:
            text = {"type": "text", "text": f"token{n} "}
            body = {"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": text}
        else:
            content = {"type": "content", "content": {"type": "text", "text": f"out{n} "}}
            call = f"call_{n % 100}"
            body = {
                "sessionUpdate": "tool_call_content_chunk",
                "toolCallId": call,
                "content": content,
            }
        lines.append(update(body))
    lines.append(
        update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
    )
    return lines


def start(*args: str) -> tuple[subprocess.Popen[str], str, float]:
    began = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "acp_codegen", "inspect", "--no-open", *args],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    line = process.stdout.readline()
    return process, line.split("serving on ", 1)[1].strip(), time.perf_counter() - began


def timed(*steps: Any) -> float:
    """Seconds taken by running `steps` (callables) in order."""
    began = time.perf_counter()
    for step in steps:
        step()
    return time.perf_counter() - began


def measure_trace(page: Any, expect: Any, updates: int, folder: Path) -> list[tuple[str, str]]:
    trace = folder / "bench.trace.jsonl"
    lines = trace_lines(updates)
    trace.write_text("".join(json.dumps(line) + "\n" for line in lines))
    process, url, loaded = start("--trace", str(trace))
    total, middle = len(lines), len(lines) // 2
    try:
        state, position = page.locator("#state"), page.locator("#position")

        def shows(locator: Any, text: str) -> None:
            expect(locator).to_have_text(text, timeout=TIMEOUT_MS)

        opened = timed(lambda: page.goto(url), lambda: shows(state, "idle · end_turn"))
        slider = page.locator("#slider")
        moved = timed(
            lambda: slider.fill(str(middle)),
            lambda: shows(position, f"after line {middle} of {total}"),
        )
        back = timed(
            lambda: page.click("#step-back"),
            lambda: shows(position, f"after line {middle - 1} of {total}"),
        )
        scroll = page.evaluate(
            DRAWN % "const box = document.getElementById('traffic-scroll');"
            " box.scrollTop = box.scrollHeight / 2; box.dispatchEvent(new Event('scroll'));"
        )
        filtered = page.evaluate(
            DRAWN % "const input = document.getElementById('filter-method');"
            " input.value = 'tool_call_content_chunk'; input.dispatchEvent(new Event('input'));"
        )
    finally:
        process.terminate()
        process.wait()
    return [
        (
            f"trace of {total:,} lines: server reads it and serves (until the URL)",
            f"{loaded:.2f} s",
        ),
        ("page opens and shows the last line's state", f"{opened:.2f} s"),
        ("slider to the middle, state shown", f"{moved:.2f} s"),
        ("one step back from the middle (refold from the start), state shown", f"{back:.2f} s"),
        ("traffic list scrolled to its middle, drawn (virtualised)", f"{scroll:.0f} ms"),
        ("traffic list filtered by method, drawn", f"{filtered:.0f} ms"),
    ]


def measure_live(page: Any, expect: Any, updates: int) -> list[tuple[str, str]]:
    agent = [sys.executable, str(BENCH / "agents.py"), "ours", str(REPO / "generated")]
    process, url, _ = start("--", *agent)
    try:
        page.goto(url)
        expect(page.locator("#send")).to_be_enabled(timeout=TIMEOUT_MS)
        page.fill("#prompt-text", str(updates))
        # A timer in the page every 50 ms: how late it fires is how long the page could not react.
        page.evaluate("""() => {
            window.lateness = [];
            let due = performance.now() + 50;
            window.probe = setInterval(() => {
                const now = performance.now();
                window.lateness.push(Math.max(0, now - due));
                due = now + 50;
            }, 50);
        }""")
        began = time.perf_counter()
        page.click("#send")
        expect(page.locator("#state")).to_have_text("idle · end_turn", timeout=TIMEOUT_MS)
        took = time.perf_counter() - began
        probes: list[float] = page.evaluate("clearInterval(window.probe) || window.lateness")
        shown = page.locator(".message.agent").text_content() or ""
        assert shown.count("token") == updates, "the page lost chunks"
    finally:
        process.terminate()
        process.wait()
    worst = max(probes) if probes else 0.0
    median = statistics.median(probes) if probes else 0.0
    return [
        (f"live turn streaming {updates:,} chunks: Send to idle shown", f"{took:.2f} s"),
        (f"page main thread during it: latest a 50 ms timer fired, of {len(probes)} (median)",
         f"{worst:.0f} ms ({median:.0f} ms)"),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--updates", type=int, default=100_000)
    parser.add_argument("--no-write", action="store_true", help="do not write the results file")
    args = parser.parse_args()
    from playwright.sync_api import expect, sync_playwright

    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            str(Path(folder) / "profile"), executable_path=CHROMIUM, headless=True,
            args=CHROMIUM_ARGS, viewport={"width": 1280, "height": 800},
        )  # fmt: skip
        page = browser.new_page()
        rows += measure_trace(page, expect, args.updates, Path(folder))
        rows += measure_live(browser.new_page(), expect, args.updates)
        browser.close()
    table = ["| measure | time |", "|---|---|", *(f"| {name} | {value} |" for name, value in rows)]
    load = ", ".join(f"{x:.1f}" for x in __import__("os").getloadavg())
    head = [
        "# Inspector page with long sessions",
        "",
        "Written by `python bench/inspect_page.py`; see its docstring. Reported, not asserted.",
        "",
        f"Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"machine: {platform.machine()}, load average at the end {load}; Chromium (Debian), "
        f"headless; {args.updates:,} updates.",
        "",
    ]
    text = "\n".join([*head, *table]) + "\n"
    print(text)
    if not args.no_write:
        (BENCH / "RESULTS_INSPECT.md").write_text(text)


if __name__ == "__main__":
    main()
