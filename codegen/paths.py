"""Where the generator's own files live, installed or in a checkout."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

_here = Path(__file__).resolve().parent


def _templates() -> Path:
    checkout = _here.parent / "templates"
    if checkout.is_dir():
        return checkout
    return Path(str(resources.files("codegen.templates")))


TEMPLATE_DIR = _templates()
RUNTIME_DIR = _here / "runtime"
META_SCHEMA = _here / "meta_schema.json"
