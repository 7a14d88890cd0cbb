"""The models module kept between runs, for whoever asks for it (`ACP_CODEGEN_CACHE_DIR`).

datamodel-code-generator and black on the models module are most of a full generate. A project
that generates the same schema again and again (a monorepo's CI with several packages, a test
suite scaffolding agents) can name a folder in `ACP_CODEGEN_CACHE_DIR`; each models module is
then kept there under a key that covers everything its bytes depend on: the generator's own files
and the versions of the libraries it drives (the caller's `generator` digest, the fingerprint's),
the lowered schema and datamodel-code-generator's template data. The package's header is not in
it: the models are made under a stand-in header that the package's own replaces afterwards
(render.py, `headed`), so every package name and command shares an entry. A later run with the
same key reads both texts (the unformatted one the other modules are rendered from, and black's)
instead of making them. The other modules rendered from our templates are kept there too, in
`formatted/`: black's text for each under a key of the generator and the module's unformatted
text (header and all), so a package generated again skips black altogether; and so is the
fact that a schema's bytes passed the checks (`checked/`), which are then not run again.
Without the variable nothing is read or written.

An entry is written whole (a temporary file renamed into place), so two runs racing never read
half of one; an entry that cannot be read or parsed is a miss and is written again; a folder
that cannot be written to costs the time and nothing else.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

CACHE_DIR_VARIABLE = "ACP_CODEGEN_CACHE_DIR"


@dataclass(frozen=True, slots=True)
class Models:
    raw: str  # datamodel-code-generator's text: the other modules are rendered from it
    formatted: str  # models.py as written


@dataclass(frozen=True, slots=True)
class ModelsCache:
    folder: Path
    generator: str  # digest of the generator's own files and the libraries it drives

    def key(self, schema: Mapping[str, Any], template_data: Mapping[str, Any]) -> str:
        digest = hashlib.sha256(f"models\n{self.generator}\n".encode())
        # The schema's member order shapes the models (datamodel-code-generator keeps it).
        digest.update(json.dumps(schema, ensure_ascii=True).encode())
        digest.update(json.dumps(template_data, ensure_ascii=True, sort_keys=True).encode())
        return digest.hexdigest()

    def get(self, key: str) -> Models | None:
        try:
            entry = json.loads((self.folder / f"{key}.json").read_bytes())
            return Models(entry["raw"], entry["formatted"])
        except (OSError, ValueError, TypeError, KeyError):
            return None

    def put(self, key: str, models: Models) -> None:
        data = json.dumps({"raw": models.raw, "formatted": models.formatted}).encode()
        _write_whole(self.folder, f"{key}.json", data)

    def formatted(self, source: str, format_source: Callable[[str], str]) -> str:
        """`format_source(source)`, read from the folder when this generator formatted the same
        text before. black's output depends on its version and mode (both in `generator`) and
        the text alone."""
        digest = hashlib.sha256(f"formatted\n{self.generator}\n".encode())
        digest.update(source.encode("utf-8", "surrogatepass"))
        folder, name = self.folder / "formatted", f"{digest.hexdigest()}.json"
        try:
            kept = json.loads((folder / name).read_bytes())
            if isinstance(kept, str):
                return kept
        except (OSError, ValueError):
            pass
        text = format_source(source)
        _write_whole(folder, name, json.dumps(text).encode())
        return text

    def checked(self, schema: bytes) -> bool:
        """Whether this generator found nothing wrong with a schema of these bytes before."""
        return (self.folder / "checked" / self._checked_name(schema)).is_file()

    def remember_checked(self, schema: bytes) -> None:
        """Keep that a schema of these bytes passed this generator's checks."""
        _write_whole(self.folder / "checked", self._checked_name(schema), b"")

    def _checked_name(self, schema: bytes) -> str:
        # jsonschema checks the schema but shapes no output: not in `generator`, so named here.
        try:
            checker = f"jsonschema {metadata.version('jsonschema')}"
        except metadata.PackageNotFoundError:
            checker = "jsonschema -"
        digest = hashlib.sha256(f"checked\n{self.generator}\n{checker}\n".encode())
        digest.update(schema)
        return digest.hexdigest()


def _write_whole(folder: Path, name: str, data: bytes) -> None:
    """`data` as `folder/name`, written under a temporary name and renamed into place; a folder
    that cannot be written to is left as it is."""
    with suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}.")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
            os.replace(temporary, folder / name)
        except OSError:
            os.unlink(temporary)
            raise


def from_environment(generator: Callable[[], str]) -> ModelsCache | None:
    """The cache `ACP_CODEGEN_CACHE_DIR` names, or None when it is unset or empty."""
    folder = os.environ.get(CACHE_DIR_VARIABLE, "")
    return ModelsCache(Path(folder), generator()) if folder else None
