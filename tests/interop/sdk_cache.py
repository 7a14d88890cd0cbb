"""The official SDKs the interop tests run against: installed once into a cache folder outside
the repository that survives between runs (~/.cache/acp-codegen-tests, or $XDG_CACHE_HOME).

An install goes into a fresh temporary folder beside its final place and is renamed into place
when complete, so two test processes racing each other never see half an install: the loser of
the rename drops its copy and uses the winner's. Without node, npm or a package index the tests
skip with the reason; when `CI` is set (CI sets CI=true) they fail instead, so CI cannot pass
without running them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import pytest

TS_SDK, TS_SDK_VERSION = "@agentclientprotocol/sdk", "2.4.0"
WS, WS_VERSION = "ws", "8.23.0"  # what the TS SDK's WebSocket server side needs
PY_SDK, PY_SDK_VERSION = "agent-client-protocol", "1.0.0rc3"
# The last v1-only release of the Python SDK: what v1 editors' agents and clients are built on.
PY_SDK_V1_VERSION = "0.12.1"
INSTALL_TIMEOUT = 600  # a hang guard for a slow registry, not a statement about speed


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "acp-codegen-tests"


def unavailable(reason: str) -> NoReturn:
    """Skip with the reason, or fail when running in CI (which must run these tests)."""
    if os.environ.get("CI"):
        pytest.fail(f"CI is set, so this is a failure, not a skip: {reason}")
    pytest.skip(reason)


def cached_install(
    target: Path, installed: Callable[[Path], bool], install: Callable[[Path], str | None]
) -> Path:
    """`target` once `installed(target)`; else `install(tmp)` (None on success, else the
    reason it failed) into a temporary folder that is then renamed to `target`."""
    if installed(target):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        failure = install(staging)
        if failure is not None:
            unavailable(failure)
        try:
            staging.rename(target)
        except OSError:  # another process renamed its complete copy first (or a broken leftover)
            if not installed(target):
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if not installed(target):
        unavailable(f"{target} is incomplete after installing into it")
    return target


def run_install(argv: list[str]) -> str | None:
    try:
        proc = subprocess.run(
            argv, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{' '.join(argv[:2])} failed: {error}"
    if proc.returncode != 0:
        return f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.strip()[-500:]}"
    return None


def ts_sdk() -> Path:
    """The npm prefix holding the TypeScript SDK at the pinned version (and its zod peer)."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            unavailable(f"`{tool}` is not on PATH: the TypeScript SDK interop tests need it")

    def installed(prefix: Path) -> bool:
        manifest = prefix / "node_modules" / TS_SDK / "package.json"
        try:
            return bool(json.loads(manifest.read_text())["version"] == TS_SDK_VERSION)
        except (OSError, ValueError, KeyError):
            return False

    def install(prefix: Path) -> str | None:
        spec = f"{TS_SDK}@{TS_SDK_VERSION}"
        return run_install(
            ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix), spec]
        )

    return cached_install(cache_root() / "npm" / TS_SDK_VERSION, installed, install)


def ts_ws() -> Path:
    """An npm prefix holding `ws`, which the TS SDK's WebSocket server side needs."""

    def installed(prefix: Path) -> bool:
        return (prefix / "node_modules" / WS / "package.json").is_file()

    def install(prefix: Path) -> str | None:
        spec = f"{WS}@{WS_VERSION}"
        return run_install(
            ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix), spec]
        )

    ts_sdk()  # node and npm are there (else skip or fail, as for the SDK)
    return cached_install(cache_root() / "npm" / f"ws-{WS_VERSION}", installed, install)


def py_sdk(version: str = PY_SDK_VERSION) -> Path:
    """A folder to put on PYTHONPATH that holds the Python SDK at `version` (the v2 pre-release
    by default; no dependencies: it needs pydantic, which this environment has)."""

    def installed(folder: Path) -> bool:
        return (folder / f"agent_client_protocol-{version}.dist-info").is_dir()

    def install(folder: Path) -> str | None:
        spec = f"{PY_SDK}=={version}"
        pip = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        return run_install([*pip, "--no-deps", "--target", str(folder), spec])

    return cached_install(cache_root() / "pip" / f"acp-{version}", installed, install)


# What the pre-release's `http` extra asks for (httpx2[http2], starlette, websockets) and an
# ASGI server to run its `AcpServer` on (uvicorn), each with its own dependencies: the whole
# set pinned, installed without resolution so a new release upstream changes nothing here.
# typing_extensions, which they also need, comes with pydantic in the environment running them.
PY_SDK_HTTP_EXTRA = (
    "httpx2==2.16.2",
    "httpcore2==2.16.2",
    "h11==0.16.0",
    "h2==4.4.1",
    "hpack==4.2.0",
    "hyperframe==6.1.0",
    "anyio==4.16.0",
    "idna==3.20",
    "truststore==0.10.5",
    "starlette==1.10.0",
    "websockets==17.4",
    "uvicorn==0.54.0",
    "click==8.5.1",
)


def py_sdk_http_extra() -> Path:
    """A folder to put on PYTHONPATH beside `py_sdk()` for its remote transports (`acp.http`,
    `acp.ws`): the packages of PY_SDK_HTTP_EXTRA."""

    def installed(folder: Path) -> bool:
        pins = (pin.split("==") for pin in PY_SDK_HTTP_EXTRA)
        return all((folder / f"{name}-{version}.dist-info").is_dir() for name, version in pins)

    def install(folder: Path) -> str | None:
        pip = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        return run_install([*pip, "--no-deps", "--target", str(folder), *PY_SDK_HTTP_EXTRA])

    return cached_install(cache_root() / "pip" / f"acp-{PY_SDK_VERSION}-http", installed, install)


def py_sdk_sources(version: str = PY_SDK_V1_VERSION) -> Path:
    """The Python SDK's published source distribution at `version`, unpacked (its `examples/`
    are the agents and clients upstream ships as the way to use it)."""

    def installed(folder: Path) -> bool:
        return (folder / "examples" / "agent.py").is_file()

    def install(folder: Path) -> str | None:
        pip = [sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check"]
        spec = f"{PY_SDK}=={version}"
        failure = run_install([*pip, "--no-binary", ":all:", "--no-deps", "-d", str(folder), spec])
        if failure is not None:
            return failure
        archives = list(folder.glob("*.tar.gz"))
        if len(archives) != 1:
            return f"pip download {spec} left {len(archives)} source archives, expected one"
        with tarfile.open(archives[0]) as archive:
            top = f"{archives[0].name.removesuffix('.tar.gz')}/"
            for member in archive.getmembers():  # unpacked without its top folder
                if member.name.startswith(top):
                    member.name = member.name.removeprefix(top)
                    archive.extract(member, folder, filter="data")
        archives[0].unlink()
        return None

    return cached_install(cache_root() / "pip" / f"acp-{version}-sdist", installed, install)
