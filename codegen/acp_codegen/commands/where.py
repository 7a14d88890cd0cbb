"""Where a command runs: the project root, its settings, the schema, and how paths are shown."""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..emit.target import SUBPACKAGE_V1, Target
from ..load.unstable import unstable_input_bytes
from ..write.fingerprint import current_file_count, input_fingerprint
from ..write.leftovers import pending
from ..write.manifest import MANIFEST, sha256
from ..write.writer import files_on_disk
from .config import Settings, find_pyproject, has_table, load_settings
from .console import Console
from .kept_notes import as_shown, kept_notes
from .targets import UsageError, expanded

if TYPE_CHECKING:
    from .pipeline import Inputs


@dataclass(frozen=True, slots=True)
class Where:
    root: Path  # the project root: see `rooted_at`; until then the cwd's project, else the cwd
    settings: Settings
    schema: Path
    bundled: bool  # the schema shipped with the tool, by default
    overlay: Path | None = None  # merge rules for an input that lacks them (see overlay.py)
    console: Console = field(default_factory=Console)
    v1_schema: Path | None = None  # the v1 protocol, carried as the subpackage `v1`
    v1_bundled: bool = False  # that one is the v1 schema shipped with the tool
    unstable: bool = False  # `--unstable` or `unstable = true`: each version's unstable overlay

    @classmethod
    def from_cwd(
        cls,
        schema: Path | None,
        overlay: Path | None = None,
        console: Console | None = None,
        v1_schema: Path | None = None,
        unstable: bool = False,
    ) -> Where:
        """The v1 schema comes from where the schema does: `--v1-schema` beside `--schema` (a
        lone `--schema` makes a single-version package, as ever), `v1-schema` in the table, or
        the shipped pair. `unstable`: the option; `unstable = true` in the table does the same."""
        cwd = Path.cwd()
        settings = load_settings(cwd)
        pyproject = find_pyproject(cwd)
        root = (pyproject.parent if pyproject else cwd).resolve()
        bundled = schema is None and settings.bundled_schema
        if schema is None:  # the table's paths; ones given on the command line are the user's
            settings.inside("schema")
            if v1_schema is None:
                settings.inside("v1-schema")
        chosen = None if overlay is None else expanded(overlay)
        told = console or Console()
        if schema is not None:
            origin = "--schema"
        elif bundled:
            origin = "shipped with acp-codegen"
        else:
            origin = f"[tool.acp-codegen] in {pyproject}"
        path = expanded(schema or settings.schema)
        told.step(f"schema: {path} (from {origin})")
        v1 = expanded(v1_schema) if v1_schema is not None else None
        if v1 is None and schema is None:
            v1 = settings.v1_schema
        v1_bundled = v1_schema is None and bundled and v1 is not None
        if v1 is not None:
            told.step(f"v1 schema: {v1}")
        unstable = unstable or settings.unstable
        if unstable:
            told.step("unstable: each schema's unstable overlay is merged in")
        return cls(root, settings, path, bundled, chosen, told, v1, v1_bundled, unstable)

    def rooted_at(self, output: Path, named: tuple[str, Path]) -> Where:
        """This place with the project root of the output folder `output`, so the regenerate
        command (and so every header and the manifest) is the same from any current directory:
        the nearest folder above `output` whose pyproject.toml holds `[tool.acp-codegen]`, else
        the nearest with a pyproject.toml. Without one, the root `output`'s manifest was named
        from (`named`: the option naming the output in the command, and the path it names), so
        adding a pyproject.toml there later changes nothing; else the current directory when the
        output is inside it, else the folder the output is named in."""
        folder = output.resolve()
        found = [candidate.parent for candidate in _pyprojects_above(folder)]
        tabled = [parent for parent in found if _holds_table(parent / "pyproject.toml")]
        option, path = named
        cwd = Path.cwd().resolve()
        fallback = cwd if folder.is_relative_to(cwd) else path.resolve().parent
        recorded = [] if found else _recorded_root(output, option, path)
        root = (tabled or found or recorded or [fallback])[0]
        self.console.step(f"project root: {root}" + ("" if found else " (no pyproject.toml)"))
        return replace(self, root=root)

    def shown(self, path: Path) -> str:
        """A path as the regenerate command shows it, whatever the current directory and however
        it was typed: relative to the project root (with `..` when outside it but on a common
        branch, as for a sibling checkout), absolute when the two share only `/`."""
        absolute = path.resolve()
        common = Path(os.path.commonpath([absolute, self.root]))
        if common == Path(common.anchor):
            return absolute.as_posix()
        return Path(os.path.relpath(absolute, self.root)).as_posix()

    @staticmethod
    def displayed(path: Path) -> str:
        """A path as messages show it: relative to the current directory when inside it (as
        the user most likely typed it), else absolute."""
        absolute, cwd = path.resolve(), Path.cwd().resolve()
        if absolute.is_relative_to(cwd):
            return absolute.relative_to(cwd).as_posix() or "."
        return absolute.as_posix()

    def schema_option(self) -> list[str]:
        """`--schema PATH` for the regenerate command; nothing for the schema shipped with the
        tool (its install path differs between machines and is the default anyway)."""
        schema = [] if self.bundled else ["--schema", self.shown(self.schema)]
        if self.v1_schema is not None and not self.v1_bundled:
            schema += ["--v1-schema", self.shown(self.v1_schema)]
        schema += [] if self.overlay is None else ["--overlay", self.shown(self.overlay)]
        return schema + (["--unstable"] if self.unstable else [])

    def inputs(self) -> Inputs:
        """The files a generation here reads, named as messages show them."""
        from .pipeline import Inputs  # with the renderer (see `render`)

        return Inputs(
            schema=self.schema,
            shown=self.displayed(self.schema),  # problems and notes name the file as typed
            overlay=self.overlay,
            v1_schema=self.v1_schema,
            v1_shown="" if self.v1_schema is None else self.displayed(self.v1_schema),
            v1_bundled=self.v1_bundled,
            names=self._note_names(),
            unstable=self.unstable,
        )

    def render(self, target: Target) -> dict[str, bytes]:
        """The package folder's files for `target`, from this place's inputs: the generation
        itself is `pipeline.generate`; this says what is read and prints its notes."""
        # Imported here: the renderer (black, jinja, datamodel-code-generator) is most of a
        # no-op's import time, and a current folder never gets this far.
        from .pipeline import generate

        self._reading()
        return generate(self.inputs(), target, self.console.note)

    def current_file_count(self, folder: Path, target: Target) -> int | None:
        """The file count when `folder` is already exactly what `target` renders to (input
        fingerprint and every file's hash match its manifest), so rendering can be skipped;
        None otherwise (including any doubt: the caller renders in full)."""
        if self.overlay is not None:
            self.console.step("fingerprint: not used with --overlay; rendering")
            return None  # the fingerprint does not cover a user's overlay file
        if pending(folder):
            return None  # a killed run left copies beside it: writing puts them right
        try:
            digest = self._digest(self.schema)
            extra = {}
            if self.v1_schema is not None:
                v1_name = Path(self.displayed(self.v1_schema)).name
                extra[SUBPACKAGE_V1] = (v1_name, self._digest(self.v1_schema))
        except (OSError, ValueError):
            return None  # the full path reports it properly
        source_name = Path(self.displayed(self.schema)).name  # as the parser names the source
        fingerprint = input_fingerprint(digest, source_name, target, extra)
        count = current_file_count(folder, fingerprint, set(files_on_disk(folder)))
        self.console.step(
            f"fingerprint: matches the manifest and all {count} file(s); nothing to render"
            if count is not None
            else "fingerprint: no match with the manifest (or its files); rendering"
        )
        if count is not None:  # the notes of this input, as the render that was skipped said
            self._notes(as_shown(kept_notes(folder), self._note_names()))
        return count

    def _digest(self, schema: Path) -> str:
        """The schema's hash as the package records it (with `--unstable`, of its bytes and
        its overlay's: load/unstable.py)."""
        raw = schema.read_bytes()
        return sha256(unstable_input_bytes(raw) if self.unstable else raw)

    def _reading(self) -> None:
        self.console.step(f"reading {self.schema}")
        if self.overlay is not None:
            self.console.step(f"reading overlay {self.overlay}")

    def _notes(self, notes: Iterable[str]) -> None:
        for note in notes:
            self.console.note(note)

    def _note_names(self) -> dict[str, str]:
        """How notes name the input files in this run (see kept_notes.py)."""
        names = {"schema": self.displayed(self.schema)}
        if self.v1_schema is not None:
            names["v1-schema"] = self.displayed(self.v1_schema)
        if self.overlay is not None:
            names["overlay"] = str(self.overlay)
        return names


def _recorded_root(output: Path, option: str, path: Path) -> list[Path]:
    """The folder `output`'s manifest named `path` from (as `option`'s relative value in its
    regenerate command); none when there is no such manifest or the name does not fit."""
    try:
        data = json.loads((output / MANIFEST).read_text(encoding="utf-8"))
        words = shlex.split(data["regenerate"])
        named = Path(words[words.index(option) + 1])
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return []
    absolute = path.resolve()
    if (
        named.is_absolute()
        or ".." in named.parts
        or absolute.parts[-len(named.parts) :] != named.parts
    ):
        return []
    return [absolute.parents[len(named.parts) - 1]]


def _holds_table(pyproject: Path) -> bool:
    """Whether a pyproject.toml above the output holds our table; one that cannot be read is
    somebody else's file, not a reason to refuse (the cwd's own settings are checked as ever)."""
    try:
        return has_table(pyproject)
    except UsageError:
        return False


def _pyprojects_above(folder: Path) -> list[Path]:
    """Every pyproject.toml in `folder` (which may not exist yet) and above it, nearest first."""
    return [
        candidate / "pyproject.toml"
        for candidate in (folder, *folder.parents)
        if (candidate / "pyproject.toml").is_file()
    ]


def command_line(*parts: list[str]) -> str:
    return shlex.join(word for part in parts for word in part)
