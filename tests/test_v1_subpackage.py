"""The generated package carries both protocols: v2 at the top, v1 as the subpackage `v1`, built
by the same pipeline; `v1` has the modules a package generated from the v1 schema alone has and
imports the parent's runtime. A lone `--schema` still makes a single-version package."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from acp_codegen._bindings.merge_rules import MERGE_RULES
from acp_codegen.commands.cli import main
from acp_codegen.commands.pipeline import V1_READ_AS_V2, load_protocol, render_files
from acp_codegen.emit.render import Target
from acp_codegen.paths import BUNDLED_V1_SCHEMA
from acp_codegen.runtime.v1.client_updates import V1UpdateReader
from acp_codegen.write.manifest import MANIFEST
from conftest import REPO, SCHEMA, load_script

V1_SCHEMA = REPO / "schema" / "acp.v1.schema.json"
UPSTREAM_V1 = REPO / "tests" / "fixtures" / "upstream" / "v1-2.4.0" / "schema.json"
COMMITTED = REPO / "generated" / "acp_bindings"


def _body(data: bytes) -> str:
    """A module without its header, its runtime imports made the same either way (and the models
    import, which sorts after the parent's runtime in a subpackage, left out)."""
    text = data.decode("utf-8")
    text = re.sub(r"\A(#[^\n]*\n)+", "", text).replace("from . import models\n", "")
    # black may wrap a longer import line: compare without layout
    return re.sub(r"[\s(),]+", "", text.replace(".._runtime", "._runtime"))


def test_v1_subpackage_has_the_modules_of_a_v1_only_package() -> None:
    target = Target(package="pkg", command="x")
    v1 = load_protocol(V1_SCHEMA)
    both = render_files(load_protocol(SCHEMA), target, v1)
    alone = render_files(v1, target)
    nested = {rel[3:]: data for rel, data in both.items() if rel.startswith("v1/")}
    expected = {
        rel
        for rel in alone
        if not rel.startswith("_runtime/") and rel not in (MANIFEST, "py.typed")
    }
    assert set(nested) == expected
    for rel in sorted(expected - {"PROTOCOL.md"}):
        assert _body(nested[rel]) == _body(alone[rel]), rel
    assert not any(rel.startswith("v1/_runtime/") for rel in both)  # one runtime copy
    manifest = json.loads(both[MANIFEST])
    assert manifest["subpackages"]["v1"]["schema"] == "acp.v1.schema.json"


def test_committed_package_serves_v1_tables_from_the_parent_runtime() -> None:
    text = (COMMITTED / "v1" / "methods.py").read_text(encoding="utf-8")
    assert "from .._runtime.wire.tables import MethodSpec" in text
    assert '"session/request_permission"' in text and '"fs/read_text_file"' in text


def _generate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> Path:
    monkeypatch.chdir(tmp_path)
    assert main(["generate", "-q", "--out", "out", "--package", "pkg", *args]) == 0
    return tmp_path / "out" / "pkg"


def test_lone_schema_makes_a_single_version_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _generate(tmp_path, monkeypatch, "--schema", str(UPSTREAM_V1))
    assert not (folder / "v1").exists()
    assert (folder / "_runtime" / "wire" / "tables.py").is_file()


def test_v1_schema_option_adds_the_subpackage_and_names_it_in_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _generate(
        tmp_path, monkeypatch, "--schema", str(SCHEMA), "--v1-schema", str(UPSTREAM_V1)
    )
    assert (folder / "v1" / "agent.py").is_file()
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    assert "--v1-schema" in manifest["regenerate"]
    assert manifest["subpackages"]["v1"]["schema"] == "schema.json"
    # the fingerprint covers the v1 schema: a second run renders nothing and says so
    assert main(["check", "-q", "--out", "out", "--package", "pkg", "--schema", str(SCHEMA),
                 "--v1-schema", str(UPSTREAM_V1)]) == 0  # fmt: skip


def test_table_names_the_v1_schema(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "v1.json").write_bytes(BUNDLED_V1_SCHEMA.read_bytes())
    (tmp_path / "v2.json").write_bytes(SCHEMA.read_bytes())
    (tmp_path / "pyproject.toml").write_text(
        '[tool.acp-codegen]\nschema = "v2.json"\nv1-schema = "v1.json"\n', encoding="utf-8"
    )
    folder = _generate(tmp_path, monkeypatch)
    assert (folder / "v1" / "models.py").is_file()
    edited = json.loads((tmp_path / "v1.json").read_text(encoding="utf-8"))
    edited["title"] = "changed"
    (tmp_path / "v1.json").write_text(json.dumps(edited), encoding="utf-8")
    assert main(["check", "-q", "--out", "out", "--package", "pkg"]) == 1  # v1 input changed


def test_canonical_v1_schema_is_built_by_its_script() -> None:
    assert load_script("build_v1_schema").build() == V1_SCHEMA.read_bytes()


def _structure(node: object) -> object:
    """A schema without its words: what the protocol is, not how it is described."""
    if isinstance(node, dict):
        return {
            k: _structure(v)
            for k, v in node.items()
            if k not in ("description", "title", "x-acp") or not isinstance(v, (str, dict))
        }
    if isinstance(node, list):
        return [_structure(v) for v in node]
    return node


def test_canonical_v1_schema_is_upstream_v1_in_our_words() -> None:
    ours = json.loads(V1_SCHEMA.read_text(encoding="utf-8"))
    upstream = json.loads(UPSTREAM_V1.read_text(encoding="utf-8"))
    assert _structure(ours) == _structure(upstream)
    theirs = {json.dumps(t) for t in _descriptions(upstream)}
    copied = [t for t in _descriptions(ours) if json.dumps(t) in theirs and len(t) > 40]
    assert copied == []


def _descriptions(node: object) -> list[str]:
    if isinstance(node, dict):
        found = [node["description"]] if isinstance(node.get("description"), str) else []
        return found + [t for v in node.values() for t in _descriptions(v)]
    if isinstance(node, list):
        return [t for v in node for t in _descriptions(v)]
    return []


def test_v1_beside_v2_does_not_say_its_lifecycle_is_left_to_the_author(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Alone, a v1 schema's package leaves initialize and the turn to the author, and generate
    # says so; beside v2 the package's Agent serves v1 through the lifecycle, so it must not.
    monkeypatch.chdir(tmp_path)
    assert (
        main(["generate", "--out", "alone", "--package", "pkg", "--schema", str(UPSTREAM_V1)]) == 0
    )
    assert "prompt lifecycle is not generated" in capsys.readouterr().err
    args = ["--schema", str(SCHEMA), "--v1-schema", str(UPSTREAM_V1)]
    assert main(["generate", "--out", "both", "--package", "pkg", *args]) == 0
    said = capsys.readouterr().err
    assert "note:" in said  # the v1 schema's other notes are still printed
    assert "prompt lifecycle is not generated" not in said


def test_v1_beside_v2_notes_say_the_client_folds_plans_and_mode_updates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # v1's overlay has no rule for `plan` and `current_mode_update` (v1 plans have no id, modes
    # are no v2 entity), but the package's Client reads them as v2 updates its state folds: a
    # note that they go to `unknown` (printed by every generate and check in a clone) is false.
    monkeypatch.chdir(tmp_path)
    args = ["--schema", str(SCHEMA), "--v1-schema", str(V1_SCHEMA)]
    assert main(["generate", "--out", "both", "--package", "pkg", *args]) == 0
    said = [line for line in capsys.readouterr().err.splitlines() if "has no merge rule" in line]
    (note,) = said
    assert "plan" in note and "current_mode_update" in note and "Client folds them" in note
    # ... and it is true: each becomes an update the v2 state has a merge rule for
    reader = V1UpdateReader()
    reader.session_setup({"modes": {"currentModeId": "a", "availableModes": [{"id": "a"}]}})
    for tag, fields in (("plan", {"entries": []}), ("current_mode_update", {"currentModeId": "a"})):
        assert tag in V1_READ_AS_V2
        read = reader.read({"sessionUpdate": tag, **fields})
        assert read and all(update["sessionUpdate"] in MERGE_RULES for update in read), read
    # alone, a v1 package's own SessionState does keep them under `unknown`, and says so
    assert main(["generate", "--out", "alone", "--package", "pkg", "--schema", str(V1_SCHEMA)]) == 0
    alone = capsys.readouterr().err
    assert "has no merge rule for plan, current_mode_update; SessionState keeps" in alone
