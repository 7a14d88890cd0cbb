"""A no-op `generate` or `check` (the folder is current) decides from the fingerprint alone,
so it never imports the renderer: black, jinja and datamodel-code-generator are most of a
full run's start-up, and a no-op should cost about the start of the interpreter."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import FIXTURE_SCHEMAS

RENDERER = ("black", "jinja2", "datamodel_code_generator")
SCRIPT = """
import sys
from acp_codegen.commands.cli import main
code = main(sys.argv[1:])
print(code, sorted(name for name in {renderer!r} if name in sys.modules))
"""


def _run(tmp_path: Path, *argv: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(renderer=RENDERER), *argv],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip().splitlines()[-1]


def test_a_current_folder_is_recognised_without_loading_the_renderer(tmp_path: Path) -> None:
    shutil.copy(FIXTURE_SCHEMAS / "merge_annotation.json", tmp_path / "schema.json")
    args = ("--schema", "schema.json", "--out", "out", "--package", "pkg", "-q")
    first = _run(tmp_path, "generate", *args)
    assert first.startswith("0 ") and "black" in first  # a full render needs all of it
    assert _run(tmp_path, "generate", *args) == "0 []"
    assert _run(tmp_path, "check", *args) == "0 []"
