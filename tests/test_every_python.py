"""Every module the project ships compiles on every Python it claims (pyproject's classifiers).

Python 3.13 compiles docstrings differently: a lone surrogate `\\ud800` written unescaped in a
runtime docstring (line_framing.py) made every agent die at import there, while CI, on 3.11 only,
passed. Here each claimed interpreter compiles, in memory and with warnings as errors (3.12 made
an invalid escape such as `"\\d"` a SyntaxWarning), every .py file of the tool, the committed
generated package, a freshly scaffolded agent project (its freshly vendored bindings are the
templates' output), examples/, scripts/, bench/, fuzz/ and tests/.

The same holds for what a schema makes: its text may carry a lone surrogate (`"\\ud800"` is
valid JSON), and every docstring it reaches shows the escape as text.

A claimed interpreter missing here is a skip saying so; under CI (CI=true) it is a failure:
CI must prove every version the project claims. scripts/pythons.py finds them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from acp_codegen.commands.cli import main
from acp_codegen.commands.exits import EXIT_USAGE
from conftest import FIXTURE_SCHEMAS, REPO, load_script, render, write_tree

pythons = load_script("pythons")

# Folders of the checkout whose .py files must compile (codegen/acp_codegen/_bindings is a link
# to generated/acp_bindings, so each file is compiled once, under its real path).
ROOTS = ("codegen/acp_codegen", "generated", "examples", "scripts", "bench", "fuzz", "tests")
SUBSET = REPO / "tests" / "every_python.txt"

# Run by each interpreter: the paths come on stdin, the failures go to stdout as JSON.
COMPILE_ALL = """
import json, sys, warnings
warnings.simplefilter("error")
failed = []
for path in json.load(sys.stdin):
    try:
        with open(path, "rb") as handle:
            compile(handle.read(), path, "exec", dont_inherit=True)
    except Exception as exc:  # SyntaxError, a warning made an error, UnicodeEncodeError, ...
        failed.append(f"{path}: {type(exc).__name__}: {exc}")
print(json.dumps(failed))
"""


def interpreter(version: str) -> Path:
    """The interpreter for `version`; skipped with where it was looked for, failed under CI."""
    found, tried = pythons.find(version)
    if found is None:
        reason = f"python{version} is claimed but not found: " + "; ".join(tried)
        if os.environ.get("CI"):
            pytest.fail(f"CI is set, so this is a failure, not a skip: {reason}")
        pytest.skip(reason)
    return Path(found)


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project made by `acp-codegen new agent`, bindings vendored into it by the same call."""
    root = tmp_path_factory.mktemp("every-python")
    made = subprocess.run(
        [sys.executable, "-m", "acp_codegen", "new", "agent", "every-python", "-q"],
        cwd=root,
        input="",
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    return root / "every-python"


@pytest.fixture(scope="module")
def surrogate_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package generated from a schema with a lone surrogate in every kind of text."""
    lone = "\ud800"
    doc = json.loads((FIXTURE_SCHEMAS / "request.json").read_text(encoding="utf-8"))
    doc["title"] = doc["x-acp"]["title"] = f"Fixture {lone}"
    for name, schema in doc["$defs"].items():
        schema["description"] = f"{name} {lone} (and a closing \udc00)"
        for prop, sub in schema.get("properties", {}).items():
            sub["description"] = f"{prop} {lone}"
    props = doc["$defs"]["RenameSessionRequest"]["properties"]
    props["mood"] = {"type": "string", "default": f"a{lone}", "description": lone}
    root = tmp_path_factory.mktemp("surrogates")
    (root / "schema.json").write_text(json.dumps(doc), encoding="ascii")
    write_tree(root / "out", render(root / "schema.json", "surrogate_text"))
    return root / "out"


def compile_errors(python: Path, files: list[Path]) -> list[str]:
    """What `python` cannot compile of `files` (warnings count as errors)."""
    proc = subprocess.run(
        [str(python), "-I", "-c", COMPILE_ALL],
        input=json.dumps([str(path) for path in files]),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    failed: list[str] = json.loads(proc.stdout)
    return failed


def shipped_files(scaffolded: Path) -> list[Path]:
    found = {path.resolve() for root in ROOTS for path in (REPO / root).rglob("*.py")}
    found |= {path.resolve() for path in scaffolded.rglob("*.py")}
    return sorted(found)


@pytest.mark.parametrize("version", pythons.claimed())
def test_every_shipped_module_compiles(version: str, scaffolded: Path) -> None:
    python = interpreter(version)
    files = shipped_files(scaffolded)
    # what the test must cover: the runtime, the generated copy, the vendored copy, the demo
    assert {"line_framing.py", "demo_agent.py", "__main__.py"} <= {path.name for path in files}
    assert any("acp" in path.parts and path.is_relative_to(scaffolded) for path in files)
    assert compile_errors(python, files) == [], f"python{version} cannot compile these"


@pytest.mark.parametrize("version", pythons.claimed())
def test_a_schema_with_lone_surrogates_makes_a_package_every_python_compiles(
    version: str, surrogate_package: Path
) -> None:
    files = sorted(surrogate_package.rglob("*.py"))
    assert compile_errors(interpreter(version), files) == [], f"python{version}"


def test_the_package_imports_and_its_docstrings_show_lone_surrogates_as_escapes(
    surrogate_package: Path,
) -> None:
    probe = (
        "import json, surrogate_text as p; m = p.models\n"
        "r = m.RenameSessionRequest.model_validate_json(input())\n"
        "print(json.dumps([r.model_dump(mode='json', by_alias=True, exclude_unset=True),"
        " m.RenameSessionRequest.__doc__, p.__doc__]))\n"
    )
    message = {"sessionId": "s", "title": "t", "mood": "calm"}
    proc = subprocess.run(
        [sys.executable, "-W", "error", "-c", probe],
        input=json.dumps(message) + "\n",
        cwd=surrogate_package,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    dumped, class_doc, package_doc = json.loads(proc.stdout)
    assert dumped == message
    assert "RenameSessionRequest \\ud800 (and a closing \\udc00)" in class_doc
    assert "Fixture \\ud800" in package_doc


@pytest.mark.parametrize(
    ("where", "prop"),
    [
        ("/properties/k\ud800", {"k\ud800": {"type": "string"}}),
        ("/properties/mood/enum/1", {"mood": {"type": "string", "enum": ["a", "b\udfff"]}}),
        ("/properties/mood/const", {"mood": {"type": "string", "const": "\ud800"}}),
    ],
    ids=["property name", "enum value", "const value"],
)
def test_a_lone_surrogate_pydantic_cannot_hold_is_refused_with_a_pointer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str, prop: dict[str, object]
) -> None:
    """An alias or a Literal holding one makes a model that fails at its first use."""
    doc = json.loads((FIXTURE_SCHEMAS / "request.json").read_text(encoding="utf-8"))
    doc["$defs"]["RenameSessionRequest"]["properties"].update(prop)
    (tmp_path / "schema.json").write_text(json.dumps(doc), encoding="ascii")
    assert main(["validate", str(tmp_path / "schema.json")]) == EXIT_USAGE
    err = capsys.readouterr().err
    at = "#/$defs/RenameSessionRequest" + where
    assert at.encode("unicode_escape").decode() in err and "lone surrogate" in err, err


def test_the_claimed_versions_are_the_ones_the_metadata_and_readme_state() -> None:
    versions = pythons.claimed()
    assert versions[0] == "3.11" and len(versions) >= 3, versions
    with (REPO / "pyproject.toml").open("rb") as handle:
        project = tomllib.load(handle)["project"]
    assert project["requires-python"] == f">={versions[0]}"
    stated = ", ".join(versions[:-1]) + f" and {versions[-1]}"
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"Python {stated}" in readme, stated


def subset_paths() -> list[str]:
    lines = SUBSET.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def test_the_every_python_subset_names_tests_that_exist_and_ci_runs_it() -> None:
    paths = subset_paths()
    assert paths and all((REPO / path).exists() for path in paths), paths
    assert "tests/runtime" in paths and "tests/test_install.py" in paths
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "tests/every_python.txt" in ci and "scripts/pythons.py" in ci
    development = (REPO / "README.md").read_text(encoding="utf-8").split("## Development")[1]
    assert "tests/every_python.txt" in development


def fake_python(path: Path, says: str, code: int = 0) -> Path:
    """An executable that answers the version question with `says` (and exits with `code`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho {says}\nexit {code}\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def run_finder(version: str, path: str, pyenv_root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": path, "PYENV_ROOT": str(pyenv_root)}
    script = REPO / "scripts" / "pythons.py"
    return subprocess.run(
        [sys.executable, str(script), version],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_shim_that_fails_gives_way_to_the_newest_pyenv_build(tmp_path: Path) -> None:
    shims = tmp_path / "shims"
    fake_python(shims / "python3.99", "'pyenv: python3.99: command not found'", code=127)
    root = tmp_path / "pyenv"
    fake_python(root / "versions" / "3.99.1" / "bin" / "python3.99", "3.99")
    newest = fake_python(root / "versions" / "3.99.12" / "bin" / "python3.99", "3.99")
    fake_python(root / "versions" / "3.99-dev" / "bin" / "python3.99", "3.99")
    fake_python(root / "versions" / "3.991.0" / "bin" / "python3.99", "3.99")
    proc = run_finder("3.99", f"{shims}{os.pathsep}/usr/bin{os.pathsep}/bin", root)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(newest)


def test_an_interpreter_that_is_another_version_is_not_taken(tmp_path: Path) -> None:
    shims = tmp_path / "shims"
    fake_python(shims / "python3.99", "3.98")
    proc = run_finder("3.99", f"{shims}{os.pathsep}/usr/bin{os.pathsep}/bin", tmp_path / "none")
    assert proc.returncode == 1
    assert re.search(r"python3\.99: is 3\.98, not 3\.99", proc.stderr), proc.stderr
    assert proc.stdout == ""


def test_a_missing_version_fails_saying_where_it_looked(tmp_path: Path) -> None:
    proc = run_finder("3.99", f"/usr/bin{os.pathsep}/bin", tmp_path / "pyenv")
    assert proc.returncode == 1 and proc.stdout == ""
    assert "python3.99 not found" in proc.stderr
    assert str(tmp_path / "pyenv" / "versions" / "3.99*") in proc.stderr, proc.stderr
