"""Real agents from the registries, installed once into the SDK cache (sdk_cache.py: the same
folder, the same rename into place, a skip outside CI and a failure in it when one cannot be had).

fast-agent (PyPI) runs whole turns without a model service: `--model passthrough` answers a
prompt with its own text. It needs Python 3.12 or newer, so it gets a venv of its own made by
such an interpreter (this one, or one scripts/pythons.py finds). A venv's scripts name their
folder in their first line, and the venv is built in a staging folder and renamed: it is run as
`<venv>/bin/python -m ...`, which finds its venv wherever it lies.

claude-agent-acp (npm) speaks v2 and opens a session without a model service or a login: what
it announces then (options, commands) comes in the `session/new` answer."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from conftest import load_script

from .sdk_cache import cache_root, cached_install, run_install, unavailable

FAST_AGENT, FAST_AGENT_VERSION = "fast-agent-mcp", "0.10.48"
# Everything it pulled in when pinned here; the constraints it is installed with.
FAST_AGENT_PINS = Path(__file__).with_name("fast_agent_pins.txt")
FAST_AGENT_PYTHONS = ("3.13", "3.12")  # the versions it accepts that the project also claims
CLAUDE_AGENT, CLAUDE_AGENT_VERSION = "@agentclientprotocol/claude-agent-acp", "0.101.0"


def newer_python() -> tuple[Path, str]:
    """An interpreter fast-agent accepts and its `3.X`: this one when it is new enough, else
    one scripts/pythons.py finds (on PATH or a pyenv build)."""
    if sys.version_info >= (3, 12):
        return Path(sys.executable), f"{sys.version_info.major}.{sys.version_info.minor}"
    pythons = load_script("pythons")
    tried: list[str] = []
    for version in FAST_AGENT_PYTHONS:
        found, looked = pythons.find(version)
        if found is not None:
            return Path(found), version
        tried += looked
    unavailable("fast-agent needs Python 3.12 or newer, and none was found: " + "; ".join(tried))


def fast_agent() -> list[str]:
    """The command that runs fast-agent's CLI at the pinned version (arguments follow)."""
    python, version = newer_python()

    def installed(venv: Path) -> bool:
        found = venv.glob(
            f"lib/python3.*/site-packages/fast_agent_mcp-{FAST_AGENT_VERSION}.dist-info"
        )
        return (venv / "bin" / "python").exists() and any(found)

    def install(venv: Path) -> str | None:
        failure = run_install([str(python), "-m", "venv", "--clear", str(venv)])
        if failure is not None:
            return failure
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
        spec = f"{FAST_AGENT}=={FAST_AGENT_VERSION}"
        return run_install([*pip, "--disable-pip-version-check", "-c", str(FAST_AGENT_PINS), spec])

    tag = f"fast-agent-{FAST_AGENT_VERSION}-py{version}"
    venv = cached_install(cache_root() / "pip" / tag, installed, install)
    return [str(venv / "bin" / "python"), "-m", "fast_agent.cli"]


def claude_agent() -> list[str]:
    """The command that runs claude-agent-acp at the pinned version."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        unavailable("`node` and `npm` must be on PATH to run claude-agent-acp")
    package = Path("node_modules", *CLAUDE_AGENT.split("/"))

    def installed(prefix: Path) -> bool:
        try:
            manifest = json.loads((prefix / package / "package.json").read_text())
        except (OSError, ValueError):
            return False
        return bool(manifest.get("version") == CLAUDE_AGENT_VERSION)

    def install(prefix: Path) -> str | None:
        spec = f"{CLAUDE_AGENT}@{CLAUDE_AGENT_VERSION}"
        return run_install(
            ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix), spec]
        )

    prefix = cached_install(
        cache_root() / "npm" / f"claude-agent-acp-{CLAUDE_AGENT_VERSION}", installed, install
    )
    manifest = json.loads((prefix / package / "package.json").read_text())
    return ["node", str(prefix / package / manifest["bin"]["claude-agent-acp"])]


def agent_home(home: Path) -> dict[str, str]:
    """The environment a real agent runs in: its own home (what it writes stays in the test's
    folder), no update check, and, as root, the flag claude-agent-acp needs to open a session
    (it refuses root otherwise, without a sandbox said to be around it)."""
    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HOME": str(home)}
    for name, folder in (("CONFIG", ".config"), ("CACHE", ".cache"), ("DATA", ".local/share")):
        env[f"XDG_{name}_HOME"] = str(home / folder)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env["IS_SANDBOX"] = "1"
    return env
