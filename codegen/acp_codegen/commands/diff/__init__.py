"""`acp-codegen diff`: what changed between two ACP schemas, and whom it breaks."""

from __future__ import annotations

from pathlib import Path

from ...load.parse import load_document
from .compare import compare
from .facts import Facts, collect
from .rules import CATEGORIES, RULES, Change

__all__ = ["CATEGORIES", "RULES", "Change", "diff_files", "load_facts"]


def load_facts(path: Path) -> Facts:
    """Load a schema with the loader `generate` uses; raises SchemaError with file + pointer."""
    from ..pipeline import load_protocol  # with the renderer: not for every command's start

    protocol = load_protocol(path)
    doc, _ = load_document(path)  # the raw `$defs` for field-level facts (already validated)
    return collect(protocol, doc, str(path))


def diff_files(old: Path, new: Path) -> list[Change]:
    """Every change from the schema at `old` to the one at `new`, sorted. The same bytes twice
    (a file against itself or its copy) are loaded once, which still reports a schema that
    cannot be used: loading is nearly all of a diff's time."""
    if _same_bytes(old, new):
        from ..pipeline import load_protocol

        load_protocol(old)
        return []
    return compare(load_facts(old), load_facts(new))


def _same_bytes(old: Path, new: Path) -> bool:
    try:
        return old.read_bytes() == new.read_bytes()
    except OSError:
        return False  # loading reports which one cannot be read
