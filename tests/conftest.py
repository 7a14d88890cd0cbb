"""Shared fixtures for the generator tests: each schema is generated once per session."""

from __future__ import annotations

import fcntl
import hashlib
import importlib
import importlib.util
import json
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from acp_codegen.commands.chat.agent_stderr import RUNTIME_LOGGER
from acp_codegen.commands.pipeline import load_protocol, render_files, render_tree
from acp_codegen.emit.models_cache import CACHE_DIR_VARIABLE
from acp_codegen.emit.render import Target
from hypothesis import settings

from tests.interop.sdk_cache import cache_root
from tests.pg_server import PgServer, running_server

# Work kept between runs, beside the cached installs (README): see `kept` below.
KEPT_BETWEEN_RUNS = cache_root() / "suite"
COLD_VARIABLE = "ACP_CODEGEN_TESTS_COLD"
OWN_PYCACHE = KEPT_BETWEEN_RUNS / "pycache"
PYCACHE = Path(os.environ.get("PYTHONPYCACHEPREFIX") or OWN_PYCACHE)


def keep_bytecode() -> None:
    """Compiled modules kept between runs, outside every source tree: pytest's rewritten test
    modules (rewriting ~250 modules was two thirds of each worker's collection) and what every
    child the suite starts compiles (an agent, the CLI), for this process and its children.
    PYTHONDONTWRITEBYTECODE keeps a tree free of `__pycache__`; a prefix keeps that promise."""
    if os.environ.get(COLD_VARIABLE):
        return
    sys.pycache_prefix = str(PYCACHE)
    sys.dont_write_bytecode = False
    os.environ["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


keep_bytecode()

# Tests assert behaviour, never time: hypothesis's per-example deadline (200 ms by default) is
# a timing assertion that fails on a loaded machine, so it is off for every property test.
settings.register_profile("acp-codegen", deadline=None)
settings.load_profile("acp-codegen")

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"

# The fast tier, for the edit-test loop: `python -m pytest -n auto -m "not slow"` (README). A test
# is slow when it drives something heavy: a browser, an official SDK, a real terminal, a package
# installed or a wheel built, a server behind a proxy, mypy or black over whole packages, the
# generator run over every upstream schema. Marked by where it
# lives (SLOW_PATHS, relative to tests/: a folder ending in "/", else a file) or by a heavy
# fixture it uses (SLOW_FIXTURES), so a new test beside its kind lands in the slow tier without a
# mark of its own; anywhere else, `@pytest.mark.slow` or a module's `pytestmark`.
# tests/test_tiers.py fails when a module that does one of those things is in neither.
SLOW_PATHS = (
    "interop/",
    "inspector/",
    "remote/",
    "chat/test_chat_terminal.py",
    "chat/test_chat_terminal_turn.py",
    "chat/test_chat_escapes_terminal.py",
    "chat/test_chat_v1.py",
    "chat/test_chat_commands.py",
    "test_install.py",
    "test_scaffold.py",
    "test_scaffold_venv.py",
    "test_every_python.py",
    # The generator over every upstream schema, or checked by mypy --strict or black as a whole.
    "test_upstream_inputs.py",
    "test_v1_subpackage.py",
    "test_halves.py",
    "test_models_layout.py",
    "test_vendor.py",
    "test_lint_generated.py",
    "test_readme_examples.py",
    "test_determinism.py",
    "test_diff_upstream.py",
    "test_typed_surface_errors.py",
    "test_unstable_package.py",
    "test_lint_bench.py",
    "test_black_stable.py",
)
SLOW_FIXTURES = frozenset(
    {
        "browser",
        "page",
        "ts_prefix",
        "py_sdk_path",
        "py_sdk_http_path",
        "py_sdk_v1_path",
        "pg_server",
    }
)


def is_slow_path(path: Path) -> bool:
    """Whether the test module at `path` is in the slow tier by where it lives."""
    if not path.resolve().is_relative_to(TESTS):
        return False
    relative = path.resolve().relative_to(TESTS).as_posix()
    return any(
        relative.startswith(slow) if slow.endswith("/") else relative == slow for slow in SLOW_PATHS
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = getattr(item, "fixturenames", ())  # a test function's; other items have none
        if is_slow_path(item.path) or SLOW_FIXTURES.intersection(fixtures):
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(optionalhook=True)  # xdist's hook: unknown under -p no:xdist
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker more than this process may use cores. Many tests spend their time
    waiting on a child (an agent, a terminal, pip, a browser), and a spare worker fills a core
    while another waits."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return cores + 1


def pytest_configure(config: pytest.Config) -> None:
    """Under xdist, an idle worker takes queued tests from a busy one (`--dist worksteal`) unless
    the command line chose a distribution: the suite's long tests (installs, browsers, whole
    packages) would otherwise end the run on one worker while the others wait."""
    chosen = any(
        arg == "--dist" or arg.startswith("--dist=") for arg in config.invocation_params.args
    )
    if getattr(config.option, "dist", "no") == "load" and not chosen:
        config.option.dist = "worksteal"


SCHEMA = REPO / "schema" / "acp.schema.json"
FIXTURE_SCHEMAS = REPO / "tests" / "fixtures" / "schemas"
FIXTURE_UPSTREAM = REPO / "tests" / "fixtures" / "upstream"
# Upstream's published schema files, byte-exact with their source (SOURCE.md beside them): the
# repository's v1/ and v2/ (and seed-source/), the npm package's releases under sdk-<version>/
# (v2) and v1-2.4.0/ (v1 as SDK 2.4.0 ships it).
UPSTREAM = FIXTURE_UPSTREAM
# The v2 releases that every generator test runs over (their history: names, unions, marks).
UPSTREAM_HISTORY = [
    FIXTURE_UPSTREAM / "sdk-1.3.0" / "schema.unstable.json",
    FIXTURE_UPSTREAM / "sdk-2.0.0" / "schema.unstable.json",
    FIXTURE_UPSTREAM / "sdk-2.2.0" / "schema.json",
    FIXTURE_UPSTREAM / "sdk-2.4.0" / "schema.unstable.json",
]
SPEC_PAGE = REPO / "tests" / "fixtures" / "spec" / "prompt-lifecycle.txt"

# The canonical schema is rendered once with this target; the functional tests import the result
# under this name (nothing else in the project is called that), the determinism tests compare
# the same bytes against fresh renders.
CANONICAL_PACKAGE = "acp_codegen_test_pkg"
CANONICAL_TARGET = Target(
    package=CANONICAL_PACKAGE,
    command="acp-codegen generate --schema schema/acp.schema.json --out generated"
    f" --package {CANONICAL_PACKAGE}",
)


def load_script(name: str) -> ModuleType:
    """Import `scripts/<name>.py` (scripts/ is not a package)."""
    path = REPO / "scripts" / f"{name}.py"
    module_name = f"_acp_scripts_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def render(schema: Path, package: str, command: str | None = None) -> dict[str, bytes]:
    target = Target(package=package, command=command or f"acp-codegen generate --package {package}")
    return render_tree(load_protocol(schema), target)


def raw_models(schema: Path) -> str:
    """datamodel-code-generator's models module for `schema`, before any layout or black."""
    from acp_codegen.emit.dcg import generate_models
    from acp_codegen.emit.render import header

    protocol = load_protocol(schema)
    top = header(protocol, Target("bindings", "acp-codegen generate"))
    return generate_models(protocol.model_schema, protocol.model_template_data, top)


@dataclass(frozen=True)
class BlackedModels:
    raw: str  # datamodel-code-generator's models module, before any layout or black
    whole: str  # black's bytes for it, formatted in one piece


@pytest.fixture(scope="session")
def blacked_models(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], BlackedModels]:
    """A schema's raw models module and black's output for it, made once and kept between runs
    (keyed by the generator's digest, which covers the versions of datamodel-code-generator and
    black, and by the schema's bytes): black over a whole models module is the slowest step
    there is, and the layout and halves tests both compare against it."""
    from acp_codegen.emit.render import format_python
    from acp_codegen.write.fingerprint import generator_digest

    folder = kept(tmp_path_factory, "blacked-models")
    generator = generator_digest()

    def blacked(schema: Path) -> BlackedModels:
        name = hashlib.sha256(f"{generator}\n".encode() + schema.read_bytes()).hexdigest()[:24]
        raw = once_per_run(folder, f"raw-{name}", lambda: raw_models(schema))
        return BlackedModels(raw, once_per_run(folder, f"whole-{name}", lambda: format_python(raw)))

    return blacked


def write_tree(out: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


@dataclass(frozen=True)
class GeneratedPackage:
    """A rendered package written to disk and imported."""

    files: dict[str, bytes]
    out: Path  # the directory that holds the package folder
    name: str
    module: ModuleType
    schema: dict[str, Any]

    def submodule(self, name: str) -> ModuleType:
        return importlib.import_module(f"{self.name}.{name}")

    @property
    def models(self) -> ModuleType:
        return self.submodule("models")


def _import_from(out: Path, name: str) -> ModuleType:
    sys.path.insert(0, str(out))
    try:
        importlib.invalidate_caches()
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(out))


def run_folder(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A folder every test process of this run shares (under xdist, the workers' common base
    temp), for work done once per run and read by all."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / name
    folder.mkdir(exist_ok=True)
    return folder


# Work kept between runs of the suite, beside the cached installs: the models modules (keyed by
# everything their bytes depend on, emit/models_cache.py), mypy's caches (mypy checks each
# cached module against its source) and bytecode (`keep_bytecode`). Set
# ACP_CODEGEN_TESTS_COLD=1 for a run that keeps nothing.
KEPT_MODELS_BYTES = 512 * 1024 * 1024  # past this, the entries written longest ago go first


def kept(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """The folder `name` kept between runs, or this run's own when runs keep nothing."""
    if os.environ.get(COLD_VARIABLE):
        return run_folder(tmp_path_factory, name)
    folder = KEPT_BETWEEN_RUNS / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def pytest_sessionstart(session: pytest.Session) -> None:
    """Once per run (not per xdist worker): bound what is kept between runs, the files written
    longest ago going first."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    for name in ("models-cache", "blacked-models"):
        folder = KEPT_BETWEEN_RUNS / name
        if not folder.is_dir():
            continue
        files = (path for path in folder.rglob("*") if path.is_file() and path.suffix != ".lock")
        entries = sorted(files, key=lambda path: path.stat().st_mtime, reverse=True)
        total = 0
        for entry in entries:
            total += entry.stat().st_size
            if total > KEPT_MODELS_BYTES:
                entry.unlink(missing_ok=True)
    # Bytecode of what earlier runs made in temporary folders is never read again. Only in
    # the suite's own folder: a prefix the user named holds what is theirs.
    if PYCACHE == OWN_PYCACHE:
        temporary = Path(tempfile.gettempdir()).resolve().relative_to("/")
        shutil.rmtree(OWN_PYCACHE / temporary, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def models_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every generate of the suite, in process or in a child, keeps its models module in one
    folder (ACP_CODEGEN_CACHE_DIR, emit/models_cache.py), kept between runs: the suite generates
    the same schemas dozens of times. tests/test_determinism.py and tests/test_models_cache.py
    generate without it or check it."""
    folder = kept(tmp_path_factory, "models-cache")
    before = os.environ.get(CACHE_DIR_VARIABLE)
    os.environ[CACHE_DIR_VARIABLE] = str(folder)
    yield folder
    if before is None:
        os.environ.pop(CACHE_DIR_VARIABLE, None)
    else:
        os.environ[CACHE_DIR_VARIABLE] = before


@pytest.fixture(autouse=True)
def runtime_log_level() -> Iterator[None]:
    """chat's `main`, run in process by some tests, sets the runtime's logger to CRITICAL for
    its run (commands/chat/agent_stderr.py); a later test in the same process that reads the
    runtime's warnings must not inherit that."""
    logger = logging.getLogger(RUNTIME_LOGGER)
    level, handlers = logger.level, list(logger.handlers)
    yield
    logger.setLevel(level)
    logger.handlers[:] = handlers


def once_per_run(folder: Path, name: str, make: Callable[[], str]) -> str:
    """`make()`'s text, made by the first test process of the run that asks (under a lock: the
    others wait for it rather than make it again) and read back by every later one."""
    kept = folder / f"{name}.txt"
    with (folder / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when closed
        if not kept.exists():
            # Whole or not at all: the folder may be kept between runs, and a run killed
            # mid-write must not leave half a text for the next one to trust.
            part = folder / f".{name}.part"
            part.write_text(make(), encoding="utf-8", errors="surrogatepass")
            part.replace(kept)
        return kept.read_text(encoding="utf-8", errors="surrogatepass")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One throwaway PostgreSQL server per test process (tests/pg_server.py), stopped and
    deleted at the end; each test takes a database of its own (`pg_server.fresh_database()`)."""
    with running_server() as server:
        yield server


@pytest.fixture
def mypy_cache(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """A mypy cache of the test's own, kept between runs: the standard library, pydantic and
    the code the test checks are analysed once, not in every run. One per test rather than per
    xdist worker: workers take tests in a different order each run, and a test that landed on
    another worker found a cache without its modules. mypy checks each cached module against
    its source, so a changed module is checked anew. A cache another run holds (two suites at
    once) is not shared: this run takes a fresh one."""
    test = hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:16]
    folder = (
        kept(tmp_path_factory, "mypy-cache")
        / f"py{sys.version_info[0]}{sys.version_info[1]}-{test}"
    )
    folder.mkdir(exist_ok=True)
    with (folder.parent / f"{folder.name}.lock").open("w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released when closed
        except BlockingIOError:
            yield tmp_path_factory.mktemp("mypy-cache")
            return
        yield folder


@pytest.fixture(scope="session")
def canonical_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return schema


@pytest.fixture(scope="session")
def canonical_files() -> dict[str, bytes]:
    """schema/acp.schema.json rendered once per session (manifest included)."""
    return render_tree(load_protocol(SCHEMA), CANONICAL_TARGET)


@pytest.fixture(scope="session")
def canonical(
    tmp_path_factory: pytest.TempPathFactory,
    canonical_files: dict[str, bytes],
    canonical_schema: dict[str, Any],
) -> GeneratedPackage:
    out = tmp_path_factory.mktemp("canonical")
    write_tree(out, canonical_files)
    module = _import_from(out, CANONICAL_PACKAGE)
    return GeneratedPackage(canonical_files, out, CANONICAL_PACKAGE, module, canonical_schema)


class FixturePackages:
    """The small fixture schemas, each generated and imported on first use."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache: dict[str, GeneratedPackage] = {}

    def __getitem__(self, fixture: str) -> GeneratedPackage:
        if fixture not in self.cache:
            schema_path = FIXTURE_SCHEMAS / f"{fixture}.json"
            name = f"acp_codegen_fixture_{fixture}"
            files = render(schema_path, name)
            out = self.root / fixture
            write_tree(out, files)
            module = _import_from(out, name)
            schema = json.loads(schema_path.read_text(encoding="utf-8"))
            self.cache[fixture] = GeneratedPackage(files, out, name, module, schema)
        return self.cache[fixture]


@pytest.fixture(scope="session")
def fixture_packages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FixturePackages]:
    yield FixturePackages(tmp_path_factory.mktemp("fixture-packages"))


# Upstream's published schemas the tolerant-reading tests generate from.
UPSTREAM_240_UNSTABLE = FIXTURE_UPSTREAM / "sdk-2.4.0" / "schema.unstable.json"
UPSTREAM_240 = UPSTREAM / "sdk-2.4.0" / "schema.json"
UPSTREAM_V1 = UPSTREAM / "v1" / "schema.json"


class SchemaPackages:
    """Packages generated from whole schema files (rendered, written, imported), one per schema
    per test session, under the names given here."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache: dict[Path, ModuleType] = {}

    def __call__(self, schema: Path, package: str) -> ModuleType:
        if not schema.is_file():
            pytest.skip(f"upstream reference schema not found at {schema}")
        if schema not in self.cache:
            out = self.root / package
            protocol = load_protocol(schema, schema.name)
            write_tree(out / package, render_files(protocol, Target(package=package, command="x")))
            self.cache[schema] = _import_from(out, package)
        return self.cache[schema]


@pytest.fixture(scope="session")
def schema_packages(tmp_path_factory: pytest.TempPathFactory) -> SchemaPackages:
    return SchemaPackages(tmp_path_factory.mktemp("schema-packages"))


@pytest.fixture(scope="session")
def widgets(
    tmp_path_factory: pytest.TempPathFactory, schema_packages: SchemaPackages
) -> ModuleType:
    """The tolerant-reading widgets schema (tests/tolerant_widgets.py) as a package."""
    from tolerant_widgets import widgets_schema

    schema = widgets_schema(tmp_path_factory.mktemp("widgets-schema"))
    return schema_packages(schema, "acp_codegen_tol_widgets")


@pytest.fixture(scope="session")
def up240(schema_packages: SchemaPackages) -> ModuleType:
    """Upstream's sdk 2.4.0 unstable schema (kept in tests/fixtures)."""
    return schema_packages(UPSTREAM_240_UNSTABLE, "acp_codegen_tol_240_unstable")


@pytest.fixture(scope="session")
def v240(schema_packages: SchemaPackages) -> ModuleType:
    """Upstream's sdk 2.4.0 v2 schema, which marks a terminal auth method's `args` and `env`
    default-on-null (read by a client in the `initialize` result)."""
    return schema_packages(UPSTREAM_240, "acp_codegen_tol_240")


@pytest.fixture(scope="session")
def up_v1(schema_packages: SchemaPackages) -> ModuleType:
    """Upstream's v1 schema (no v2 lifecycle: the typed handlers answer everything)."""
    return schema_packages(UPSTREAM_V1, "acp_codegen_tol_v1")
