"""Golden-file tests: each fixture schema renders to exactly the tree under tests/golden/<fixture>/.

One small schema per construct (tests/fixtures/schemas/). Missing, extra and changed files all
fail with a diff; regenerate deliberately with `python scripts/update_goldens.py` and review the
diff. The runtime copy and the manifest are left out of the goldens (see the script's docstring)
and checked here against the rendered tree instead.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from acp_codegen.emit.render import wrapped_command
from conftest import FIXTURE_SCHEMAS, REPO, load_script

goldens = load_script("update_goldens")

EXPECTED_FIXTURES = {
    "request",
    "notification",
    "tagged_union",
    "open_enum",
    "three_state",
    "merge_annotation",
    "extension_method",
    "nested_union",
}
GOLDEN_ROOT = REPO / "tests" / "golden"
MAX_DIFF_LINES = 80


def _all_names() -> list[str]:
    on_disk = (
        {p.name for p in GOLDEN_ROOT.iterdir() if p.is_dir()} if GOLDEN_ROOT.is_dir() else set()
    )
    return sorted(set(goldens.fixture_names()) | on_disk)


@cache
def rendered(name: str) -> dict[str, bytes]:
    return goldens.render_fixture(name)  # type: ignore[no-any-return]


def _diff(rel: str, old: bytes, new: bytes) -> str:
    lines = list(
        difflib.unified_diff(
            old.decode("utf-8", "replace").splitlines(keepends=True),
            new.decode("utf-8", "replace").splitlines(keepends=True),
            fromfile=f"golden/{rel}",
            tofile=f"generated/{rel}",
        )
    )
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"... ({len(lines) - MAX_DIFF_LINES} more diff lines)\n"]
    return "".join(lines)


def test_every_construct_has_a_fixture() -> None:
    assert set(goldens.fixture_names()) >= EXPECTED_FIXTURES


def test_update_command_is_the_documented_one() -> None:
    assert goldens.UPDATE_COMMAND == "python scripts/update_goldens.py"
    assert Path(REPO / "scripts" / "update_goldens.py").is_file()


@pytest.mark.parametrize("name", _all_names())
def test_golden_tree(name: str) -> None:
    schema = FIXTURE_SCHEMAS / f"{name}.json"
    fix = f"Regenerate the goldens with: {goldens.UPDATE_COMMAND}  (then review the diff)"
    if not schema.is_file():
        pytest.fail(f"tests/golden/{name}/ has no fixture {schema.relative_to(REPO)}.\n{fix}")
    expected = goldens.read_tree(GOLDEN_ROOT / name)
    if not expected:
        pytest.fail(
            f"no golden tree for fixture {name!r} (tests/golden/{name}/ missing or empty).\n{fix}"
        )
    actual = goldens.golden_view(rendered(name))
    problems: list[str] = []
    for rel in sorted(set(expected) - set(actual)):
        problems.append(f"extra file in the golden tree (the generator no longer writes it): {rel}")
    for rel in sorted(set(actual) - set(expected)):
        problems.append(f"missing from the golden tree (the generator now writes it): {rel}")
        problems.append(_diff(rel, b"", actual[rel]))
    for rel in sorted(set(actual) & set(expected)):
        if actual[rel] != expected[rel]:
            problems.append(f"changed: {rel}")
            problems.append(_diff(rel, expected[rel], actual[rel]))
    if problems:
        pytest.fail(
            f"tests/golden/{name}/ differs from the generator's output:\n"
            + "\n".join(problems)
            + f"\n{fix}"
        )


@pytest.mark.parametrize("name", sorted(EXPECTED_FIXTURES))
def test_manifest_lists_exactly_the_rendered_files(name: str) -> None:
    files = rendered(name)
    manifest = json.loads(files[goldens.MANIFEST_PATH])
    prefix = f"{goldens.PACKAGE}/"
    assert all(rel.startswith(prefix) for rel in files)
    listed = {prefix + rel: digest for rel, digest in manifest["files"].items()}
    assert listed == {
        rel: hashlib.sha256(data).hexdigest()
        for rel, data in files.items()
        if rel != goldens.MANIFEST_PATH
    }


@pytest.mark.parametrize("name", sorted(EXPECTED_FIXTURES))
def test_golden_headers_do_not_depend_on_the_checkout_path(name: str) -> None:
    text = b"".join(goldens.golden_view(rendered(name)).values()).decode("utf-8")
    assert str(REPO) not in text
    assert wrapped_command(goldens.target(name).command) in text


def test_update_script_writes_exactly_the_compared_view(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The update script writes exactly the view the test compares (run into a tmp dir)."""
    monkeypatch.setattr(goldens, "GOLDEN", tmp_path)
    assert goldens.main(["request"]) == 0
    written = goldens.read_tree(tmp_path / "request")
    assert written == goldens.golden_view(rendered("request"))
    assert not any(rel.startswith("pkg/_runtime/") for rel in written)
    assert goldens.main(["no_such_fixture"]) == 2


def test_update_script_runs_as_documented(tmp_path: Path) -> None:
    """The script runs standalone (its own imports) and rejects unknown fixture names."""
    code = (
        "import runpy, sys; sys.argv = ['update_goldens.py', 'no_such_fixture'];"
        f"runpy.run_path({str(REPO / 'scripts' / 'update_goldens.py')!r}, run_name='__main__')"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True
    )
    assert proc.returncode == 2, proc.stderr
    assert "unknown fixture(s): no_such_fixture" in proc.stderr
