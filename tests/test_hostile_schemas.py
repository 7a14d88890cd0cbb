"""Hostile or unusual schema text: it reaches generated code only as data, or is refused."""

from __future__ import annotations

import ast
import contextlib
import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.commands.cli import main as cli_main
from conftest import FIXTURE_SCHEMAS

# ------------------------------------------------------------------ hostile or unusual schema text


def _variant_of_request_fixture(tmp_path: Path, change: Any) -> Path:
    doc = json.loads((FIXTURE_SCHEMAS / "request.json").read_text(encoding="utf-8"))
    change(doc)
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


def _generate(schema: Path, out: Path, package: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = cli_main(
            ["generate", "--schema", str(schema), "--out", str(out), "--package", package]
        )
    return status, err.getvalue()


def test_schema_title_is_not_code(tmp_path: Path) -> None:
    """Schema text reaches generated code only as data: a title cannot run code on import."""
    title = 'Evil """ + str(open("PWNED", "w")) + """ title \\'

    def change(doc: dict[str, Any]) -> None:
        doc["x-acp"]["title"] = title
        doc["title"] = title

    status, err = _generate(
        _variant_of_request_fixture(tmp_path, change), tmp_path / "out", "hostile"
    )
    if status == 2:  # rejecting the title is fine too
        assert "title" in err
        return
    assert status == 0, err
    for path in (tmp_path / "out").rglob("*.py"):
        ast.parse(path.read_bytes(), filename=str(path))
    code = "import hostile, json; print(json.dumps(hostile.__doc__))"
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path / "out",
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert not (
        tmp_path / "out" / "PWNED"
    ).exists(), "importing the package ran code from the schema"
    doc = json.loads(proc.stdout)
    assert doc is not None and title in doc


def test_method_name_is_not_code(tmp_path: Path) -> None:
    """A method name (any JSON string to JSON-RPC) cannot inject statements into a handler."""
    method = 'session/x"""; raise KeyError("injected"); """'

    def change(doc: dict[str, Any]) -> None:
        doc["x-methods"][0]["method"] = method
        for name in ("RenameSessionRequest", "RenameSessionResponse"):
            doc["$defs"][name]["x-method"] = method

    status, err = _generate(
        _variant_of_request_fixture(tmp_path, change), tmp_path / "out", "hostile_m"
    )
    if status == 2:  # rejecting the name is fine too
        assert "x-methods" in err
        return
    assert status == 0, err
    probe = textwrap.dedent(f"""
        import asyncio, hostile_m
        spec = hostile_m.METHODS[{method!r}]
        agent = getattr(hostile_m, "Agent", None)
        if agent is not None:
            try:
                asyncio.run(getattr(agent(), spec.handler)(params=None))
            except Exception as exc:
                print(type(exc).__name__)
        """)
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path / "out",
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "KeyError" not in proc.stdout, "the method name became a statement in agent.py"


@pytest.mark.parametrize("name", ["Model", "Field", "Tag", "Any"])
def test_definition_names_that_clash_with_generated_names(tmp_path: Path, name: str) -> None:
    """A `$defs` name that models.py also uses is either rejected or still means the definition."""

    def change(doc: dict[str, Any]) -> None:
        doc["$defs"][name] = {
            "title": name,
            "x-method": "session/rename",
            "x-side": "agent",
            "type": "object",
            "properties": {"label": {"type": "string"}, "pet": {"$ref": "#/$defs/Zoo"}},
            "required": ["label"],
        }
        doc["$defs"]["Zoo"] = {  # a tagged union, so models.py routes with `Tag`
            "title": "Zoo",
            "x-union": {"tag": "kind"},
            "anyOf": [
                {
                    "title": "Cat",
                    "type": "object",
                    "properties": {"kind": {"type": "string", "const": "cat"}},
                    "required": ["kind"],
                }
            ],
        }
        del doc["$defs"]["RenameSessionRequest"]
        doc["x-methods"][0]["params"] = name

    package = f"clash_{name.lower()}"
    status, err = _generate(
        _variant_of_request_fixture(tmp_path, change), tmp_path / "out", package
    )
    if status == 2:
        assert f"/$defs/{name}" in err, err
        return
    assert status == 0, err
    probe = textwrap.dedent(f"""
        import json
        from pydantic import BaseModel, TypeAdapter, ValidationError
        import {package}
        spec = {package}.METHODS["session/rename"]
        model = getattr({package}.models, {name!r})
        ta = TypeAdapter(spec.params_type)
        sample = {{"label": "x", "pet": {{"kind": "cat"}}}}
        ok = ta.dump_python(ta.validate_python(sample), mode="json", by_alias=True)
        try:
            ta.validate_python({{"label": 5}})
            rejected = False
        except ValidationError:
            rejected = True
        print(json.dumps([isinstance(model, type) and issubclass(model, BaseModel),
                          spec.params_type is model, ok, rejected]))
        """)
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path / "out",
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    expected = [True, True, {"label": "x", "pet": {"kind": "cat"}}, True]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == expected
