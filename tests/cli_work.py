"""Helpers shared by the tests/test_cli_*.py modules: a tmp project holding the small
merge_annotation schema, and renders cached by input (rendering is pure, see
test_determinism.py; these tests are about what the commands print and return)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from acp_codegen.commands import pipeline
from acp_codegen.emit.render import Target
from acp_codegen.model.ir import Protocol
from conftest import FIXTURE_SCHEMAS

SOURCE = FIXTURE_SCHEMAS / "merge_annotation.json"
ARGS = ["--schema", "schema.json", "--out", "out", "--package", "pkg"]
COLOUR_VARIABLES = ("NO_COLOR", "FORCE_COLOR", "TERM")
_RENDERED: dict[tuple[str, str, Target], dict[str, bytes]] = {}


def cache_renders(monkeypatch: pytest.MonkeyPatch) -> None:
    real = pipeline.render_files

    def cached(protocol: Protocol, target: Target) -> dict[str, bytes]:
        key = (protocol.sha256, protocol.source_name, target)
        if key not in _RENDERED:
            _RENDERED[key] = real(protocol, target)
        return dict(_RENDERED[key])

    monkeypatch.setattr(pipeline, "render_files", cached)


def enter_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`tmp_path` as the cwd, holding schema.json, with no colour variables set."""
    shutil.copy(SOURCE, tmp_path / "schema.json")
    monkeypatch.chdir(tmp_path)
    for name in COLOUR_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    cache_renders(monkeypatch)
    return tmp_path


def plain_env() -> dict[str, str]:
    """The environment for a subprocess, without colour variables."""
    return {k: v for k, v in os.environ.items() if k not in COLOUR_VARIABLES}
