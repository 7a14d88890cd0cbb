"""The layout shows the architecture: the design card's top level, the generator grouped by
pipeline stage with imports running one way, the runtime grouped by layer with imports running
down its floors, no import circles, small modules, and one generated copy of the bindings in the
repository."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest
from conftest import REPO

SOURCE = REPO / "codegen" / "acp_codegen"
# The floors, lowest first: a module may import its own floor and those below it.
FLOORS = ("model", "load", "emit", "write", "commands")
LEAVES = ("runtime", "paths")  # import nothing of acp-codegen's outside themselves
MAX_LINES = 400
# The runtime's layers (docs/design.md, section 0), lowest first: a runtime module may import
# its own floor and those below it.
RUNTIME = SOURCE / "runtime"
RUNTIME_FLOORS = (
    "wire",  # wire values and framing
    "core",  # the protocol's decisions, no I/O
    "rpc",  # the JSON-RPC connection and dispatch
    "state",  # session state and merge
    "store",  # durable sessions (a database)
    "agent",  # the agent lifecycle
    "client",  # the client lifecycle
    "v1",  # the v1 dialect
    "guard",  # the web guard
    "transports",  # stdio and the client's remote ends
    "serving",  # an agent served over HTTP, WebSocket, SSE
)
MAX_MODULES_PER_FLOOR = 12
MAX_LOOSE_RUNTIME_MODULES = 3


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(SOURCE.rglob("*.py")):
        rel = path.relative_to(SOURCE)
        if rel.parts[0] == "_bindings":  # the generated package (a link), checked as output
            continue
        parts = ("acp_codegen", *rel.with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The acp_codegen modules `path` imports anywhere (lazy imports included)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        found |= {t for t in targets if t in known and t != name}
    return found


@functools.cache
def graph() -> dict[str, set[str]]:
    """Each module's imports of the others; made when a test first asks (parsing every module
    at import would cost each test process's collection)."""
    return {name: imports(name, path, set(modules())) for name, path in modules().items()}


def stage(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_the_top_level_is_the_design_cards() -> None:
    for entry in ("pyproject.toml", "README.md", "schema", "codegen", "templates", "generated"):
        assert (REPO / entry).exists(), entry
    assert sorted(p.name for p in (REPO / "templates").iterdir()) == ["package", "scaffold"]
    assert not (REPO / "acp_codegen").exists()


def test_the_generator_is_grouped_by_stage() -> None:
    loose = sorted(p.name for p in SOURCE.iterdir() if p.name != "__pycache__")
    expected = {"__init__.py", "__main__.py", "paths.py", "py.typed", "_bindings"}
    assert set(loose) == expected | set(FLOORS) | {"runtime"}
    for floor in (*FLOORS, "runtime"):
        doc = ast.get_docstring(ast.parse((SOURCE / floor / "__init__.py").read_text()))
        assert doc, f"{floor}/__init__.py says what the stage does"
        if floor in FLOORS[1:]:
            assert "May import" in doc, floor


def test_imports_run_one_way_down_the_pipeline() -> None:
    wrong = []
    for name, targets in graph().items():
        here = stage(name)
        for target in targets:
            there = stage(target)
            if here in LEAVES and there != here:
                wrong.append(f"{name} -> {target} (a leaf imports nothing of ours)")
            elif there in FLOORS and here in FLOORS and FLOORS.index(there) > FLOORS.index(here):
                wrong.append(f"{name} -> {target} (up a floor)")
    assert not wrong, "\n".join(wrong)


def runtime_floor(name: str) -> int | None:
    """The floor of a runtime module (None: not the runtime's; -1: a loose runtime module)."""
    parts = name.split(".")
    if parts[:2] != ["acp_codegen", "runtime"] or len(parts) < 3:
        return None
    return RUNTIME_FLOORS.index(parts[2]) if parts[2] in RUNTIME_FLOORS else -1


def test_the_runtime_is_grouped_by_layer() -> None:
    folders = sorted(p.name for p in RUNTIME.iterdir() if p.is_dir() and p.name != "__pycache__")
    assert folders == sorted(RUNTIME_FLOORS)
    loose = [p.name for p in RUNTIME.glob("*.py") if p.name != "__init__.py"]
    assert len(loose) <= MAX_LOOSE_RUNTIME_MODULES, loose
    for floor in RUNTIME_FLOORS:
        doc = ast.get_docstring(ast.parse((RUNTIME / floor / "__init__.py").read_text()))
        assert doc and "May import" in doc, f"runtime/{floor}/__init__.py says what it may import"
        modules = [p.name for p in (RUNTIME / floor).glob("*.py") if p.name != "__init__.py"]
        assert len(modules) <= MAX_MODULES_PER_FLOOR, (floor, modules)
        assert not [p for p in (RUNTIME / floor).iterdir() if p.is_dir() and p.name[0] != "_"]


def test_runtime_imports_run_down_its_floors() -> None:
    """No import runs back up: a loose module (-1) imports no floor; a floor its own and
    those below."""
    wrong = []
    for name, targets in graph().items():
        here = runtime_floor(name)
        if here is None or name.endswith(".runtime"):
            continue
        for target in targets:
            there = runtime_floor(target)
            if there is not None and there > here and not target.endswith(".runtime"):
                wrong.append(f"{name} -> {target}")
    assert not wrong, "\n".join(wrong)


# The floors that decide without doing I/O: the protocol core and the session state's fold.
NO_IO_FLOORS = ("core", "state")
IO_MODULES = frozenset({"asyncio", "socket", "os", "io", "threading", "subprocess", "selectors"})


def top_level_imports(path: Path) -> set[str]:
    """The top-level names of the modules `path` imports anywhere (lazy imports included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.partition(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.partition(".")[0])
    return found


@pytest.mark.parametrize("floor", NO_IO_FLOORS)
def test_the_core_and_the_state_do_no_io(floor: str) -> None:
    """The protocol's decisions are tested without an event loop: nothing on these floors
    imports what does I/O (the async code around them does it)."""
    doing_io = {
        path.name: sorted(top_level_imports(path) & IO_MODULES)
        for path in sorted((RUNTIME / floor).glob("*.py"))
        if top_level_imports(path) & IO_MODULES
    }
    assert not doing_io, doing_io


def test_the_no_io_check_sees_an_io_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f() -> None:\n    import asyncio.tasks\n    from os import path\n")
    assert top_level_imports(module) & IO_MODULES == {"asyncio", "os"}


def test_the_generated_runtime_has_the_same_layout() -> None:
    """What `generate` copies into every package is the runtime's own tree, floors and all."""
    copied = REPO / "generated" / "acp_bindings" / "_runtime"
    if not copied.is_dir():
        pytest.skip("generated/acp_bindings is absent")

    def tree(root: Path) -> set[str]:
        return {
            p.relative_to(root).as_posix()
            for p in root.rglob("*.py")
            if "__pycache__" not in p.parts
        }

    assert tree(copied) == tree(RUNTIME)


def test_there_are_no_import_circles() -> None:
    circles = []
    state: dict[str, int] = {}  # 1 = on the path, 2 = done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph()[name]):
            if state.get(target) == 1:
                circles.append(" -> ".join([*path[path.index(target) :], target]))
            elif target not in state:
                visit(target, [*path, target])
        state[name] = 2

    for name in sorted(graph()):
        if name not in state:
            visit(name, [name])
    # a package's __init__ importing its own modules is not a circle of jobs
    real = [
        c for c in circles if not all(p.startswith(c.split(" -> ")[0]) for p in c.split(" -> "))
    ]
    assert not real, "\n".join(real)


@pytest.mark.parametrize("root", ["codegen/acp_codegen", "bench", "fuzz", "scripts", "examples"])
def test_no_module_is_over_the_limit(root: str) -> None:
    long = {
        str(path.relative_to(REPO)): count
        for path in (REPO / root).rglob("*.py")
        if "_bindings" not in path.parts
        and (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, long


def test_one_generated_copy_in_the_repository() -> None:
    """What `chat` runs on is generated/acp_bindings itself, linked under the tool's name."""
    link = SOURCE / "_bindings"
    assert link.is_symlink()
    assert link.resolve() == (REPO / "generated" / "acp_bindings").resolve()
    copies = [p for p in REPO.rglob(".acp-codegen-manifest.json") if ".venv" not in str(p)]
    in_repo = [p for p in copies if "tests" not in p.relative_to(REPO).parts[:1]]
    assert [p.relative_to(REPO).as_posix() for p in in_repo] == [
        "generated/acp_bindings/.acp-codegen-manifest.json"
    ]


def test_the_suite_needs_nothing_outside_the_clone() -> None:
    """A clone alone runs the whole suite: upstream's files the tests read are kept, byte-exact
    with their source, under tests/fixtures/ (no test reaches for ../shared)."""
    reaching = [
        str(path.relative_to(REPO))
        for path in (REPO / "tests").rglob("*.py")
        if "golden" not in path.parts
        and path.name != "test_layout.py"  # this test names the words it looks for
        and any(word in path.read_text(encoding="utf-8") for word in ("REPO.parent", '"shared" /'))
    ]
    assert not reaching, reaching


def test_every_package_is_shipped_in_the_wheel() -> None:
    """A new subpackage missing from pyproject's `packages` installs without its modules (the
    installed tool, and every package it generates, would fail at import)."""
    import tomllib

    listed = set(
        tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        ".".join(("acp_codegen", *init.parent.relative_to(SOURCE).parts))
        for init in SOURCE.glob("**/__init__.py")
        if "__pycache__" not in init.parts
    } | {
        ".".join(("acp_codegen", "_bindings", *init.parent.relative_to(SOURCE / "_bindings").parts))
        for init in (SOURCE / "_bindings").glob("**/__init__.py")
    }
    assert found - listed == set()
