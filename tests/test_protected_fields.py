"""A property may carry any name pydantic's BaseModel uses for itself (`model_dump`, `schema`,
`json`, `copy`, ...): the generated models import without a single warning, keep each such
property under its wire name, and give it a field that shadows nothing.

pydantic warns when a class is made (so at every import of the models) about a field whose name
starts with one of its protected namespaces, `model_dump` and `model_validate`; such a field
is named with datamodel-code-generator's own `field_` prefix (see validate_names.py).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.commands.cli import main
from acp_codegen.load.validate_names import python_field_name
from conftest import FIXTURE_SCHEMAS, render, write_tree
from pydantic import BaseModel

REQUEST = json.loads((FIXTURE_SCHEMAS / "request.json").read_text(encoding="utf-8"))
# Every attribute of BaseModel (methods, properties, private helpers, dunders), and names that
# only start like one, in the spellings a schema uses.
BASE_MODEL_NAMES = sorted(set(dir(BaseModel)))
# pydantic's default `protected_namespaces` (the import test fails should it ever add one).
PROTECTED_NAMESPACES = ("model_validate", "model_dump")
NEAR_NAMES = [
    "modelDumpAll",
    "modelValidateJsonLines",
    "model_dumpling",
    "modelValidateX",
    "modelFieldsSet2",
]


def schema_with(tmp_path: Path, names: list[str]) -> Path:
    doc: dict[str, Any] = copy.deepcopy(REQUEST)
    props = doc["$defs"]["RenameSessionRequest"]["properties"]
    props.update({name: {"type": "string"} for name in names})
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The models of a schema whose request carries a property for every name above."""
    tmp = tmp_path_factory.mktemp("protected")
    files = render(schema_with(tmp, BASE_MODEL_NAMES + NEAR_NAMES), "protected_models")
    write_tree(tmp / "out", files)
    return tmp / "out"


def run_models(package: Path, code: str) -> subprocess.CompletedProcess[str]:
    """`code` in a fresh interpreter with every warning an error, the models importable."""
    return subprocess.run(
        [sys.executable, "-W", "error", "-c", code],
        cwd=package,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_models_import_without_a_warning(package: Path) -> None:
    proc = run_models(package, "import protected_models.models, protected_models")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""


def test_every_name_round_trips_under_its_wire_name(package: Path) -> None:
    names = BASE_MODEL_NAMES + NEAR_NAMES
    message = {"sessionId": "s", "title": "t", **{name: f"v{i}" for i, name in enumerate(names)}}
    code = (
        "import json, sys; from protected_models.models import RenameSessionRequest as R; "
        "m = R.model_validate(json.loads(sys.argv[1])); "
        "print(json.dumps(m.model_dump(mode='json', by_alias=True, exclude_unset=True))); "
        "print(json.dumps({n: f.alias or n for n, f in R.model_fields.items()}))"
    )
    proc = run_models(package, code.replace("sys.argv[1]", repr(json.dumps(message))))
    assert proc.returncode == 0, proc.stderr
    dumped, fields = (json.loads(line) for line in proc.stdout.splitlines())
    assert dumped == message
    wires = list(fields.values())
    assert set(message) <= set(wires) and len(set(wires)) == len(wires)  # a field each
    for field in fields:
        assert not hasattr(BaseModel, field), field
        assert not field.startswith(PROTECTED_NAMESPACES), field


@pytest.mark.parametrize(
    ("wire", "python"),
    [
        ("model_dump", "field_model_dump"),
        ("model_dump_json", "field_model_dump_json"),
        ("model_validate", "field_model_validate"),
        ("modelValidateJson", "field_model_validate_json"),
        ("model_dumpling", "field_model_dumpling"),
        ("model_fields", "model_fields_"),  # shadows BaseModel's: datamodel-code-generator's `_`
        ("schema", "schema_"),
        ("json", "json_"),
        ("modelName", "model_name"),  # not a protected namespace
    ],
)
def test_python_field_name_leaves_the_protected_namespaces(wire: str, python: str) -> None:
    assert python_field_name(wire) == python


def test_a_property_named_like_the_renamed_field_is_refused_not_merged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = schema_with(tmp_path, ["model_dump", "field_model_dump"])
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "'field_model_dump'" in err and "'model_dump'" in err
