"""The input fingerprint: a no-op `generate`/`check`/`vendor` skips rendering, and any difference
(schema, generator, a file's bytes, a stray file) falls back to a full render."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from acp_codegen.commands import pipeline
from acp_codegen.commands.cli import main
from acp_codegen.emit.render import Target
from acp_codegen.model.ir import Protocol
from acp_codegen.write import fingerprint
from acp_codegen.write.manifest import MANIFEST
from conftest import FIXTURE_SCHEMAS

ARGS = ["--schema", "schema.json", "--out", "out", "--package", "pkg"]
VENDOR = ["vendor", "--schema", "schema.json", "--into", "vend/acp", "--package", "vend.acp"]


class Renders:
    """Counts renders; `forbid` makes the next one fail the test."""

    def __init__(self) -> None:
        self.count = 0
        self.forbid = False


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> Renders:
    real = pipeline.render_files
    seen = Renders()

    def counting(
        protocol: Protocol, target: Target, v1: Protocol | None = None
    ) -> dict[str, bytes]:
        assert not seen.forbid, "rendered although the fingerprint matched"
        seen.count += 1
        return real(protocol, target, v1)

    monkeypatch.setattr(pipeline, "render_files", counting)
    return seen


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "schema.json").write_bytes((FIXTURE_SCHEMAS / "merge_annotation.json").read_bytes())
    monkeypatch.chdir(tmp_path)
    return tmp_path


def stats(root: Path) -> dict[str, tuple[int, int]]:
    return {
        p.relative_to(root).as_posix(): (p.stat().st_mtime_ns, p.stat().st_ino)
        for p in root.rglob("*")
        if p.is_file()
    }


def test_a_no_op_run_renders_nothing(
    work: Path, renders: Renders, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["generate", *ARGS]) == 0
    written = len(stats(work / "out"))
    assert main([*VENDOR]) == 0
    assert renders.count == 2
    capsys.readouterr()
    renders.forbid = True
    before = stats(work / "out")
    assert main(["generate", *ARGS]) == 0
    assert f"0 file(s) changed, {written} unchanged" in capsys.readouterr().out
    assert main(["check", *ARGS]) == 0
    assert "up to date" in capsys.readouterr().out
    assert main([*VENDOR, "--check"]) == 0
    assert main([*VENDOR]) == 0
    assert stats(work / "out") == before


@pytest.mark.parametrize(
    "change", ["edit", "delete", "stray", "cache-only", "elsewhere", "schema", "target"]
)
def test_any_difference_falls_back_to_a_full_render(
    work: Path, renders: Renders, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    assert main(["generate", *ARGS]) == 0
    pkg = work / "out" / "pkg"
    args = ARGS
    if change == "edit":
        (pkg / "state.py").write_text("# edited\n", encoding="utf-8")
    elif change == "delete":
        (pkg / "state.py").unlink()
    elif change == "stray":
        (pkg / "stray.py").write_text("x = 1\n", encoding="utf-8")
    elif change == "cache-only":
        (pkg / "__pycache__").mkdir()
        (pkg / "__pycache__" / "state.cpython-311.pyc").write_bytes(b"\0")
    elif change == "schema":
        doc = json.loads((work / "schema.json").read_text(encoding="utf-8"))
        doc["$defs"]["ContentChunk"]["description"] = "Edited."
        (work / "schema.json").write_text(json.dumps(doc), encoding="utf-8")
    elif change == "elsewhere":  # the same folder and command, typed from inside the output
        monkeypatch.chdir(work / "out")
        args = ["--schema", "../schema.json", "--out", ".", "--package", "pkg"]
    else:  # the same bytes under another name: another header, another regenerate command
        (work / "other.json").write_bytes((work / "schema.json").read_bytes())
        args = ["--schema", "other.json", "--out", "out", "--package", "pkg"]
    renders.count = 0
    same = change in ("cache-only", "elsewhere")
    assert main(["check", *args]) == (0 if same else 1)
    # Caches are no difference, nor where the command is typed from (the project's root is
    # the one the manifest was written from); everything else is.
    assert renders.count == (0 if same else 1)


def test_a_generator_change_refreshes_only_the_manifest(
    work: Path, renders: Renders, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same output from a changed generator: `check` passes (the fingerprint is only a cache
    key), `generate` rewrites just the manifest, and the next run skips rendering again."""
    assert main(["generate", *ARGS]) == 0
    old_manifest = json.loads((work / "out" / "pkg" / MANIFEST).read_bytes())
    monkeypatch.setattr(fingerprint, "generator_digest", lambda: "another generator")
    before = stats(work / "out")
    renders.count = 0
    assert main(["check", *ARGS]) == 0
    assert main(["generate", *ARGS]) == 0
    assert renders.count == 2
    after = stats(work / "out")
    assert sorted(rel for rel in after if after[rel] != before[rel]) == [f"pkg/{MANIFEST}"]
    new_manifest = json.loads((work / "out" / "pkg" / MANIFEST).read_bytes())
    assert new_manifest["fingerprint"] != old_manifest["fingerprint"]
    assert {**new_manifest, "fingerprint": None} == {**old_manifest, "fingerprint": None}
    renders.forbid = True
    assert main(["generate", *ARGS]) == 0
    assert main(["check", *ARGS]) == 0


def test_the_generator_digest_covers_templates_and_runtime() -> None:
    """Changing a template or a runtime file changes the fingerprint of every input."""
    assert fingerprint.generator_digest() == fingerprint.generator_digest()
    covered = fingerprint._SOURCE_SUFFIXES
    assert {".py", ".j2", ".jinja2"} <= set(covered)


def test_the_tools_own_bindings_do_not_shape_the_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`acp_codegen/_bindings` is output (generated/acp_bindings, whose manifest holds this
    digest): it must not change the digest, or it would never be current; the tool's code and
    its templates (wherever they live: inside the package in a wheel, at the top of a checkout)
    still count."""
    package, templates = tmp_path / "acp_codegen", tmp_path / "templates"
    (package / "_bindings").mkdir(parents=True)
    (templates / "package").mkdir(parents=True)
    (package / "tool.py").write_text("a = 1\n")
    (templates / "package" / "models.py.j2").write_text("{{ a }}\n")
    (package / "_bindings" / MANIFEST).write_text('{"fingerprint": "one"}\n')
    monkeypatch.setattr(fingerprint, "PACKAGE_DIR", package)
    monkeypatch.setattr(fingerprint, "TEMPLATES_DIR", templates)
    digest = fingerprint.generator_digest.__wrapped__
    before = digest()
    (package / "_bindings" / MANIFEST).write_text('{"fingerprint": "two"}\n')
    (package / "_bindings" / "models.py").write_text("b = 2\n")
    assert digest() == before
    (templates / "package" / "models.py.j2").write_text("{{ b }}\n")
    after_template = digest()
    assert after_template != before
    (package / "tool.py").write_text("a = 2\n")
    assert digest() != after_template


def test_the_committed_manifest_carries_the_current_generator_fingerprint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A generator change committed without regenerating passes `check` (the files are the
    same) but leaves a stale fingerprint: the README's first command would then rewrite the
    manifest in a fresh clone. A run on a copy of the project must leave it byte for byte."""
    import shutil

    from conftest import REPO

    for name in ("pyproject.toml", "schema", "generated"):
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name)
        else:
            shutil.copy(source, tmp_path / name)
    manifest = tmp_path / "generated" / "acp_bindings" / MANIFEST
    before = manifest.read_bytes()
    monkeypatch.chdir(tmp_path)
    assert main(["generate", "-q"]) == 0
    assert manifest.read_bytes() == before, "regenerate: acp-codegen generate, and commit"
