"""The generator's output is a function of its inputs only: same bytes every run, any hash seed."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from acp_codegen.commands.pipeline import load_protocol, render_tree
from acp_codegen.emit.models_cache import CACHE_DIR_VARIABLE
from acp_codegen.write.manifest import MANIFEST
from conftest import CANONICAL_TARGET, FIXTURE_SCHEMAS, REPO, SCHEMA, render

HASH_SEEDS = ("0", "12345")


@pytest.fixture(autouse=True)
def no_models_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each render here makes its models anew (the suite's models cache would hand the second
    render the first one's bytes), in process and in the children started here."""
    monkeypatch.delenv(CACHE_DIR_VARIABLE, raising=False)


_RENDER_AND_HASH = textwrap.dedent("""
    import hashlib, json, sys
    from pathlib import Path
    from acp_codegen.commands.pipeline import load_protocol, render_tree
    from acp_codegen.emit.render import Target

    schema, package, command = sys.argv[1:4]
    files = render_tree(load_protocol(Path(schema)), Target(package=package, command=command))
    print(json.dumps({rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()}))
    """)


def digests(files: dict[str, bytes]) -> dict[str, str]:
    return {rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()}


def test_generating_twice_gives_the_same_bytes(canonical_files: dict[str, bytes]) -> None:
    again = render_tree(load_protocol(SCHEMA), CANONICAL_TARGET)
    assert list(again) == list(canonical_files)  # same files, same order
    assert f"{CANONICAL_TARGET.package}/PROTOCOL.md" in again  # the reference is covered too
    changed = sorted(rel for rel in again if again[rel] != canonical_files[rel])
    assert not changed


def test_output_does_not_depend_on_the_hash_seed(canonical_files: dict[str, bytes]) -> None:
    """Two subprocesses with different PYTHONHASHSEED values (run side by side) agree."""
    procs = []
    for seed in HASH_SEEDS:
        env = {**os.environ, "PYTHONHASHSEED": seed}
        args = [str(SCHEMA), CANONICAL_TARGET.package, CANONICAL_TARGET.command]
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", _RENDER_AND_HASH, *args],
                cwd=REPO,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    results = []
    for seed, proc in zip(HASH_SEEDS, procs, strict=True):
        out, err = proc.communicate()
        assert proc.returncode == 0, f"PYTHONHASHSEED={seed}: {err}"
        results.append(json.loads(out.strip().splitlines()[-1]))
    first, second = results
    assert first == second
    assert first == digests(canonical_files)


def test_output_does_not_depend_on_the_working_directory(tmp_path: Path) -> None:
    schema = FIXTURE_SCHEMAS / "merge_annotation.json"
    here = render(schema, "pkg", "cmd")
    proc = subprocess.run(
        [sys.executable, "-c", _RENDER_AND_HASH, str(schema), "pkg", "cmd"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == digests(here)


def test_schema_key_order_does_not_matter(tmp_path: Path) -> None:
    """Reordering `$defs` (a JSON object: its order means nothing) changes only the schema
    hash (in `__init__`)."""
    schema = FIXTURE_SCHEMAS / "merge_annotation.json"
    doc = json.loads(schema.read_text(encoding="utf-8"))
    doc["$defs"] = dict(reversed(list(doc["$defs"].items())))
    shuffled = tmp_path / schema.name
    shuffled.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    original = render(schema, "pkg", "cmd")
    reordered = render(shuffled, "pkg", "cmd")
    old_hash = hashlib.sha256(schema.read_bytes()).hexdigest().encode()
    new_hash = hashlib.sha256(shuffled.read_bytes()).hexdigest().encode()
    assert set(original) == set(reordered)
    for rel in set(original) - {f"pkg/{MANIFEST}"}:  # the manifest hashes __init__, hash and all
        assert original[rel].replace(old_hash, b"<sha>") == reordered[rel].replace(
            new_hash, b"<sha>"
        ), rel
