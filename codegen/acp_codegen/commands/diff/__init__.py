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
    """Every change from the schema at `old` to the one at `new`, sorted."""
    return compare(load_facts(old), load_facts(new))
