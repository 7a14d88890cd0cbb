"""Notes belong to the input, not to a render: they are kept in the manifest, so a run that skips
rendering (the fingerprint matched) prints them too.

A note names the schema (and overlay) as the user typed it, which depends on the current folder;
the manifest must not. So the manifest keeps `{schema}` and `{overlay}` in their place, and
they are put back as this run shows those files when the notes are printed again."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

from ..write.manifest import MANIFEST


def _named(name: str) -> re.Pattern[str]:
    """`name` where a note names a file: at a word's start, followed by `:` or `#`."""
    return re.compile(rf"(?<![\w./-]){re.escape(name)}(?=[:#])")


def portable(notes: Iterable[str], names: dict[str, str]) -> list[str]:
    """`notes` with each shown file name (`names`: placeholder -> name) as its placeholder."""
    kept = []
    for note in notes:
        for placeholder, name in names.items():
            note = _named(name).sub("{" + placeholder + "}", note)  # names hold no backslash
        kept.append(note)
    return kept


def as_shown(notes: Iterable[str], names: dict[str, str]) -> list[str]:
    """Kept notes with each placeholder as this run shows its file."""
    result = []
    for note in notes:
        for placeholder, name in names.items():
            note = note.replace("{" + placeholder + "}", name)
        result.append(note)
    return result


def kept_notes(folder: Path) -> list[str]:
    """The notes `folder`'s manifest keeps (none when it keeps none or cannot be read)."""
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    notes = data.get("notes") if isinstance(data, dict) else None
    if not isinstance(notes, list):
        return []
    return [note for note in notes if isinstance(note, str)]
