"""Helpers of the tests about what the CLI writes: render each schema once per test run, and
take a picture of a tree that shows any rewrite."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp_codegen.commands import pipeline
from acp_codegen.emit.render import Target
from acp_codegen.model.ir import Protocol

_RENDERED: dict[tuple[object, ...], dict[str, bytes]] = {}
_REAL_RENDER = pipeline.render_files


def render_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each distinct (schema, target) renders once. Rendering is a pure function of them
    (test_determinism.py checks that); the callers test what is done with the result."""

    def cached(protocol: Protocol, target: Target, v1: Protocol | None = None) -> dict[str, bytes]:
        also = None if v1 is None else (v1.sha256, v1.source_name)
        key = (protocol.sha256, protocol.source_name, target, also)
        if key not in _RENDERED:
            _RENDERED[key] = _REAL_RENDER(protocol, target, v1)
        return dict(_RENDERED[key])

    monkeypatch.setattr(pipeline, "render_files", cached)


def file_states(root: Path) -> dict[str, tuple[bytes, int, int]]:
    """Every file below `root` with its bytes, mtime and inode (a rewrite changes one of them)."""
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns, p.stat().st_ino)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }
