"""Shared fixtures for the generator tests: each schema is generated once per session."""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from acp_codegen.commands.pipeline import load_protocol, render_tree
from acp_codegen.emit.render import Target
from hypothesis import settings

# Tests assert behaviour, never time: hypothesis's per-example deadline (200 ms by default) is
# a timing assertion that fails on a loaded machine, so it is off for every property test.
settings.register_profile("acp-codegen", deadline=None)
settings.load_profile("acp-codegen")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
UPSTREAM = SHARED / "reference" / "acp-upstream"
SCHEMA = REPO / "schema" / "acp.schema.json"
FIXTURE_SCHEMAS = REPO / "tests" / "fixtures" / "schemas"

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


@pytest.fixture(scope="session")
def canonical_schema() -> dict[str, Any]:
    return json.loads(SCHEMA.read_text(encoding="utf-8"))


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
