"""Hostile text in every place a schema carries text reaches generated code only as string data.

The same schema is generated twice: once with plain words, once with text built to break out of
string literals, docstrings and comments (quotes, triple quotes, backslashes, newlines, `#`, NUL,
control and bidi characters, look-alikes, keywords, builtins, very long runs). If any of it became
code, the syntax trees of the two outputs would differ in more than the values of string constants.
"""

from __future__ import annotations

import ast
import copy
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURE_SCHEMAS, render, write_tree

REQUEST = json.loads((FIXTURE_SCHEMAS / "request.json").read_text(encoding="utf-8"))

HOSTILE = (
    'end"""; import os; os.system("touch PWNED") #\n'
    "'''; raise SystemExit(3) #\\\\\\"
    "\x00\x07\x1b[2J\u202e\u2066\u200b \u0430dmin class None __import__ __class__ {{ }} {% %} "
    + "Z" * 5000
)


def _schema(text: str, method: str) -> dict[str, Any]:
    """The request fixture with `text` in every titled, described, enumerated or defaulted spot."""
    doc = copy.deepcopy(REQUEST)
    doc["title"] = text
    doc["x-acp"]["title"] = text
    doc["x-methods"][0]["method"] = method
    defs = doc["$defs"]
    for name, schema in defs.items():
        schema["description"] = f"{name}: {text}"
        if "x-method" in schema:
            schema["x-method"] = method
        for prop, sub in schema.get("properties", {}).items():
            sub["description"] = f"{prop}: {text}"
    props = defs["RenameSessionRequest"]["properties"]
    props["mood"] = {"type": "string", "enum": [f"1{text}", f"2{text}"], "default": f"1{text}"}
    props["fixed"] = {"type": "string", "const": f"c{text}", "examples": [text]}
    props["pet"] = {"$ref": "#/$defs/Pet"}
    defs["Pet"] = {
        "title": "Pet",
        "description": text,
        "x-union": {"tag": "kind"},
        "anyOf": [
            {
                "title": "Cat",
                "description": text,
                "type": "object",
                "properties": {"kind": {"type": "string", "const": f"cat{text}"}},
                "required": ["kind"],
            },
            {
                "title": "other",
                "description": text,
                "type": "object",
                "properties": {"kind": {"type": "string"}},
                "required": ["kind"],
                "not": {"properties": {"kind": {"const": f"cat{text}"}}},
            },
        ],
    }
    return doc


def _shape(source: bytes) -> Counter[str]:
    """What the code does, without its string values: the count of every syntax node type."""
    return Counter(type(node).__name__ for node in ast.walk(ast.parse(source)))


def _strings(source: bytes) -> set[str]:
    return {
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, bytes], dict[str, bytes]]:
    root = tmp_path_factory.mktemp("hostile-text")
    trees = []
    for label, text, method in (
        ("plain", "plain words", "session/rename"),
        ("hostile", HOSTILE, f"session/rename{HOSTILE}"),
    ):
        path = root / f"{label}.json"
        path.write_text(json.dumps(_schema(text, method)), encoding="utf-8")
        files = render(path, "hostile_text")
        write_tree(root / label, files)
        trees.append({rel: data for rel, data in files.items() if rel.endswith(".py")})
    return trees[0], trees[1]


def test_hostile_text_adds_no_code(outputs: tuple[dict[str, bytes], dict[str, bytes]]) -> None:
    plain, hostile = outputs
    assert plain.keys() == hostile.keys()
    for rel in sorted(plain):
        assert _shape(hostile[rel]) == _shape(plain[rel]), f"{rel}: schema text became code"


def test_hostile_text_is_kept_as_data(outputs: tuple[dict[str, bytes], dict[str, bytes]]) -> None:
    _, hostile = outputs
    models = _strings(hostile["hostile_text/models.py"])
    for value in (f"1{HOSTILE}", f"2{HOSTILE}", f"c{HOSTILE}", f"cat{HOSTILE}"):
        assert value in models, "an enum, const or tag value was altered"
    methods = _strings(hostile["hostile_text/methods.py"])
    assert f"session/rename{HOSTILE}" in methods


def test_hostile_package_imports_and_round_trips(
    outputs: tuple[dict[str, bytes], dict[str, bytes]], tmp_path: Path
) -> None:
    root = tmp_path / "hostile"
    write_tree(root, outputs[1])
    message = {
        "sessionId": "s",
        "title": "t",
        "mood": f"2{HOSTILE}",
        "fixed": f"c{HOSTILE}",
        "pet": {"kind": f"cat{HOSTILE}"},
    }
    probe = (
        "import json, sys, hostile_text as p\n"
        "spec = p.METHODS[json.loads(sys.argv[1])]\n"
        "m = p.models.RenameSessionRequest.model_validate(json.loads(sys.argv[2]))\n"
        "dumped = m.model_dump(mode='json', by_alias=True, exclude_unset=True)\n"
        "print(json.dumps([spec.method, dumped, type(m.pet).__name__]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe, json.dumps(f"session/rename{HOSTILE}"), json.dumps(message)],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert not (root / "PWNED").exists()
    name, dumped, pet = json.loads(proc.stdout)
    assert name == f"session/rename{HOSTILE}" and dumped == message and pet == "Cat"


# What steers a terminal or makes text read differently from how it runs (see model.shown).
_STEERING = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def test_hostile_text_never_reaches_a_generated_file_raw(
    outputs: tuple[dict[str, bytes], dict[str, bytes]],
) -> None:
    """A description becomes a docstring; `cat models.py`, `check`'s diff or an editor would
    otherwise run the schema's escape sequences (here ESC [2J, BEL, NUL, U+202E)."""
    _, hostile = outputs
    for rel, data in sorted(hostile.items()):
        raw = _STEERING.findall(data.decode("utf-8").replace("\r\n", "\n"))
        assert not raw, f"{rel}: {sorted(set(raw))!r}"
    docs = [
        ast.get_docstring(node, clean=False)
        for node in ast.walk(ast.parse(hostile["hostile_text/models.py"]))
        if isinstance(node, ast.ClassDef) and node.name == "RenameSessionRequest"
    ]
    assert docs and "\\x00\\x07\\e[2J\\u202e\\u2066" in (docs[0] or ""), docs
