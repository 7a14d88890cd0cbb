"""Compiled templates are kept between runs (jinja's bytecode cache, emit/render.py); a cache
that is missing, unwritable or corrupt changes nothing but the time a render takes."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp_codegen.emit import render

TEMPLATE = "methods.py.j2"


def _code_of(cache: render._TemplateCache | None) -> object:
    env = render._environment()
    env.bytecode_cache = cache
    return env.get_template(TEMPLATE).root_render_func.__code__.co_code


def test_a_second_run_loads_what_the_first_compiled(tmp_path: Path) -> None:
    cache = render._TemplateCache(str(tmp_path))
    first = _code_of(cache)
    written = sorted(tmp_path.iterdir())
    assert len(written) == 1
    stamp = written[0].stat().st_mtime_ns
    assert _code_of(render._TemplateCache(str(tmp_path))) == first
    assert written[0].stat().st_mtime_ns == stamp  # loaded, not compiled and written again
    assert _code_of(None) == first


def test_a_corrupt_cache_entry_is_compiled_again(tmp_path: Path) -> None:
    cache = render._TemplateCache(str(tmp_path))
    expected = _code_of(cache)
    (entry,) = tmp_path.iterdir()
    entry.write_bytes(b"not bytecode")
    assert _code_of(render._TemplateCache(str(tmp_path))) == expected


def test_a_cache_folder_that_cannot_be_used_is_no_cache(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    assert _code_of(render._TemplateCache(str(gone))) == _code_of(None)
    assert not gone.exists()


def test_no_private_temp_folder_means_no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    def unsafe(self: render._TemplateCache) -> str:
        raise RuntimeError("Cannot determine safe temp directory.")

    monkeypatch.setattr(render._TemplateCache, "_get_default_cache_dir", unsafe)
    render._template_cache.cache_clear()
    try:
        assert render._template_cache() is None
        assert render._environment().bytecode_cache is None
    finally:
        render._template_cache.cache_clear()
