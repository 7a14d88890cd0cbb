"""The writer never destroys the user's work: refusals, --force, several packages per --out,
atomic writes, checked --out/--package, the old single manifest, and what a schema edit changes.

Runs the CLI on the small merge_annotation fixture in tmp dirs (cwd changed there).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.commands import pipeline
from acp_codegen.commands.cli import main
from acp_codegen.emit import dcg
from acp_codegen.emit.render import Target
from acp_codegen.model.ir import Protocol
from acp_codegen.write import writer
from acp_codegen.write.manifest import MANIFEST
from conftest import FIXTURE_SCHEMAS
from write_checks import file_states, render_once

SOURCE = FIXTURE_SCHEMAS / "merge_annotation.json"


@pytest.fixture(autouse=True)
def _render_once(monkeypatch: pytest.MonkeyPatch) -> None:
    render_once(monkeypatch)


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "schema.json").write_bytes(SOURCE.read_bytes())
    monkeypatch.chdir(tmp_path)
    return tmp_path


def generate(package: str = "pkg", *extra: str) -> int:
    return main(
        ["generate", "--schema", "schema.json", "--out", "out", "--package", package, *extra]
    )


def entries(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


# ------------------------------------------------------------------ user files are never lost


def test_a_folder_of_user_files_is_refused_and_left_intact(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = work / "out" / "pkg"
    mine.mkdir(parents=True)
    (mine / "__init__.py").write_text("# my own package\n", encoding="utf-8")
    (mine / "notes.txt").write_text("mine\n", encoding="utf-8")
    before = file_states(work / "out")
    assert generate() == 1
    err = capsys.readouterr().err
    assert "out/pkg/__init__.py (not written by acp-codegen)" in err
    assert "out/pkg/notes.txt (not written by acp-codegen)" in err
    assert "Nothing was written" in err
    assert file_states(work / "out") == before
    assert entries(work / "out") == {"pkg", "pkg/__init__.py", "pkg/notes.txt"}
    # --force never takes over a folder acp-codegen did not create
    assert generate("pkg", "--force") == 1
    assert "not taken over even with --force" in capsys.readouterr().err
    assert file_states(work / "out") == before


def test_stray_and_edited_files_block_until_force(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate() == 0
    pkg = work / "out" / "pkg"
    pristine = (pkg / "state.py").read_bytes()
    (pkg / "state.py").write_bytes(pristine + b"# my tweak\n")
    (pkg / "helpers.py").write_text("x = 1\n", encoding="utf-8")
    (pkg / "sub").mkdir()
    (pkg / "sub" / "deep.txt").write_text("deep\n", encoding="utf-8")
    before = file_states(work / "out")
    capsys.readouterr()
    assert generate() == 1
    err = capsys.readouterr().err
    assert "out/pkg/state.py (edited since generated)" in err
    assert "out/pkg/helpers.py (not written by acp-codegen)" in err
    assert "out/pkg/sub/deep.txt (not written by acp-codegen)" in err
    assert file_states(work / "out") == before
    # check names the same files and offers the forcing fix
    assert main(["check", "--schema", "schema.json", "--out", "out", "--package", "pkg"]) == 1
    err = capsys.readouterr().err
    assert "Fix it with: acp-codegen generate" in err and err.rstrip().endswith("--force")
    # --force: edited files get the generated text back, unlisted files go
    assert generate("pkg", "--force") == 0
    assert (pkg / "state.py").read_bytes() == pristine
    assert not (pkg / "helpers.py").exists() and not (pkg / "sub").exists()
    assert main(["check", "--schema", "schema.json", "--out", "out", "--package", "pkg"]) == 0


def test_caches_are_not_user_files(work: Path) -> None:
    assert generate() == 0
    cache = work / "out" / "pkg" / "__pycache__"
    cache.mkdir()
    (cache / "state.cpython-311.pyc").write_bytes(b"\0")
    (work / "out" / "pkg" / "_runtime" / "stray.pyc").write_bytes(b"\0")
    (work / "out" / "pkg" / "state.py").unlink()
    assert generate() == 0
    assert (work / "out" / "pkg" / "state.py").is_file()


def test_a_lost_manifest_does_not_block_identical_files(work: Path) -> None:
    """Files already holding exactly what we would write put nothing of the user's at stake."""
    assert generate() == 0
    (work / "out" / "pkg" / MANIFEST).unlink()
    assert generate() == 0
    assert (work / "out" / "pkg" / MANIFEST).is_file()


def test_two_packages_share_one_out_and_both_import(work: Path) -> None:
    assert generate("first") == 0
    before = file_states(work / "out" / "first")
    assert generate("second") == 0
    assert file_states(work / "out" / "first") == before
    assert (work / "out" / "first" / MANIFEST).is_file()
    assert (work / "out" / "second" / MANIFEST).is_file()
    proc = subprocess.run(
        [sys.executable, "-c", "import first, second; print(first.SCHEMA_SHA256, second.METHODS)"],
        cwd=work / "out",
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert hashlib.sha256(SOURCE.read_bytes()).hexdigest() in proc.stdout


def test_the_old_single_manifest_is_migrated(work: Path) -> None:
    """Files the old `<out>/MANIFEST` lists count as ours; its entries for the package go."""
    assert generate() == 0
    pkg = work / "out" / "pkg"
    listed = sorted(f"pkg/{rel}" for rel in json.loads((pkg / MANIFEST).read_bytes())["files"])
    (pkg / MANIFEST).unlink()
    (pkg / "state.py").write_text("# an older generator's output\n", encoding="utf-8")
    (pkg / "gone.py").write_text("# generated by an older release\n", encoding="utf-8")
    other = ["other/__init__.py"]
    old = {"generated-by": "acp-codegen 0.0.9", "files": [*listed, "pkg/gone.py", *other]}
    (work / "out" / MANIFEST).write_text(json.dumps(old), encoding="utf-8")
    assert generate() == 0
    assert not (pkg / "gone.py").exists()
    assert "older" not in (pkg / "state.py").read_text(encoding="utf-8")
    assert json.loads((work / "out" / MANIFEST).read_bytes())["files"] == other
    (work / "out" / MANIFEST).write_text(json.dumps({"files": listed}), encoding="utf-8")
    assert generate() == 0
    assert not (work / "out" / MANIFEST).exists(), "an emptied old manifest is removed"


# ------------------------------------------------------------------ atomic writes


def _edit_schema(work: Path) -> None:
    doc = json.loads((work / "schema.json").read_text(encoding="utf-8"))
    doc["$defs"]["ContentChunk"]["description"] = "A piece of streamed content (edited)."
    doc["$defs"]["UpdateSessionNotification"]["properties"]["sessionId"]["description"] = "Which."
    (work / "schema.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")


def test_a_failure_mid_write_leaves_the_old_tree(
    work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate() == 0
    (work / "out" / "pkg" / "state.py").unlink()  # so several files are due
    before = file_states(work / "out")
    _edit_schema(work)
    real = writer._write_file
    calls: list[Path] = []

    def failing(path: Path, data: bytes) -> None:
        calls.append(path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real(path, data)

    monkeypatch.setattr(writer, "_write_file", failing)
    assert generate() == 2
    assert "No space left on device" in capsys.readouterr().err
    assert len(calls) == 2
    assert file_states(work / "out") == before
    folders = {parent.as_posix() for rel in before for parent in Path(rel).parents}
    assert entries(work / "out") == set(before) | folders - {"."}


def test_a_failure_at_the_swap_puts_the_old_folder_back(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert generate() == 0
    before = file_states(work / "out")
    _edit_schema(work)
    real = os.rename
    calls: list[tuple[Any, Any]] = []

    def failing(src: Any, dst: Any) -> None:
        calls.append((src, dst))
        if len(calls) == 2:  # old -> backup worked; staged -> folder fails
            raise OSError(5, "Input/output error")
        real(src, dst)

    monkeypatch.setattr(writer.os, "rename", failing)
    assert generate() == 2
    monkeypatch.setattr(writer.os, "rename", real)
    assert file_states(work / "out") == before
    assert not [p for p in (work / "out").iterdir() if p.name.startswith(".")]


def test_a_failure_in_a_new_out_leaves_nothing(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(path: Path, data: bytes) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writer, "_write_file", failing)
    assert main(["generate", "--schema", "schema.json", "--out", "a/b/out", "--package", "p"]) == 2
    assert not (work / "a").exists()


def test_a_template_exception_writes_nothing(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert generate() == 0
    before = file_states(work / "out")
    _edit_schema(work)

    def broken(protocol: Protocol, target: Target, v1: Protocol | None = None) -> dict[str, bytes]:
        raise RuntimeError("template blew up")

    monkeypatch.setattr(pipeline, "render_files", broken)
    with pytest.raises(RuntimeError):
        generate()
    assert file_states(work / "out") == before


# ------------------------------------------------------------------ what a schema edit changes


def test_a_description_edit_changes_only_the_files_it_touches(work: Path) -> None:
    assert generate() == 0
    before = file_states(work / "out")
    doc = json.loads((work / "schema.json").read_text(encoding="utf-8"))
    doc["$defs"]["ContentChunk"]["description"] = "A piece of streamed content (edited)."
    (work / "schema.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    assert generate() == 0
    after = file_states(work / "out")
    changed = sorted(rel for rel in after if after[rel] != before.get(rel))
    # PROTOCOL.md shows the description too.
    assert changed == [
        "pkg/.acp-codegen-manifest.json",
        "pkg/PROTOCOL.md",
        "pkg/__init__.py",
        "pkg/models.py",
    ]
    digest = hashlib.sha256((work / "schema.json").read_bytes()).hexdigest().encode()
    holding = sorted(rel for rel, (data, _, _) in after.items() if digest in data)
    assert holding == ["pkg/.acp-codegen-manifest.json", "pkg/__init__.py"]


# ------------------------------------------------------------------ bad --out / --package


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--out", "/"], "filesystem root"),
        (["--out", "~"], "home directory"),
        (["--out", "schema.json"], "is a file, not a folder"),
        (["--out", "schema.json/sub"], "is a file, not a folder"),
        (["--package", ""], "--package is empty"),
        (["--package", "1pkg"], "must start with a letter or an underscore"),
        (["--package", "my-pkg"], "'-' cannot appear in a Python name; try 'my_pkg'"),
        (
            ["--package", "a.b"],
            "has dots: generate writes one top-level package; use `acp-codegen vendor",
        ),
        (["--package", "class"], "'class' is a Python keyword"),
        (["--package", "json"], "would shadow the module 'json'"),
        (["--package", "typing"], "would shadow the module 'typing'"),
        (["--package", "pydantic"], "would shadow the module 'pydantic'"),
        (["--package", "pydantic_core"], "would shadow"),
        (["--package", "typing_extensions"], "would shadow"),
        (["--package", "annotated_types"], "would shadow"),
        (["--package", "acp"], "would shadow the module 'acp'"),
    ],
)
def test_bad_targets_are_refused(
    work: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    monkeypatch.setenv("HOME", str(work))
    argv = ["generate", "--schema", "schema.json", "--out", "out", "--package", "pkg", *args]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err, err
    assert sorted(p.name for p in work.iterdir()) == ["schema.json"]


def test_an_existing_file_as_out_is_a_message_not_a_traceback(work: Path) -> None:
    exe = Path(sys.executable).parent / "acp-codegen"
    proc = subprocess.run(
        [str(exe), "generate", "--schema", "schema.json", "--out", "schema.json"],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "is a file, not a folder" in proc.stderr


def test_tilde_is_expanded_in_out_and_schema(
    work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = work / "home"
    home.mkdir()
    (home / "s.json").write_bytes(SOURCE.read_bytes())
    monkeypatch.setenv("HOME", str(home))
    assert main(["generate", "--schema", "~/s.json", "--out", "~/gen", "--package", "pkg"]) == 0
    assert (home / "gen" / "pkg" / "models.py").is_file()
    assert not (work / "~").exists()


# ------------------------------------------------------------------ the pydantic the package needs


def test_the_minimum_pydantic_is_stated_and_checked_at_import(work: Path) -> None:
    assert generate() == 0
    init = (work / "out" / "pkg" / "__init__.py").read_text(encoding="utf-8")
    check = (work / "out" / "pkg" / "_pydantic_check.py").read_text(encoding="utf-8")
    assert f'PYDANTIC_MINIMUM = "{dcg.PYDANTIC_MINIMUM}"' in check
    assert dcg._OPTIONS["target_pydantic_version"] == dcg.PYDANTIC_MINIMUM
    assert "PYDANTIC_MINIMUM" in init
    manifest = json.loads((work / "out" / "pkg" / MANIFEST).read_bytes())
    assert manifest["requires"] == f"pydantic>={dcg.PYDANTIC_MINIMUM}"
    old = "2.13.9"
    script = f"import pydantic.version\npydantic.version.VERSION = {old!r}\nimport pkg\n"
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=work / "out", capture_output=True, text=True
    )
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: pkg was generated for pydantic>=")
    assert f">={dcg.PYDANTIC_MINIMUM}" in last and old in last
    ok = subprocess.run(
        [sys.executable, "-c", "import pkg; print(pkg.PYDANTIC_MINIMUM)"],
        cwd=work / "out",
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip() == dcg.PYDANTIC_MINIMUM
