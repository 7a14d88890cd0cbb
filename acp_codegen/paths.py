"""Where the generator's own files live: inside the installed package, read as real files.

Everything is located through `importlib.resources` from the `acp_codegen` package itself (a
regular package, so its resources are plain directories in a wheel, an sdist build or an
editable install), never by a path's repr.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def _package_dir() -> Path:
    root = resources.files("acp_codegen")
    if not isinstance(root, Path):  # e.g. a zip import: the generator needs real files
        raise RuntimeError(f"acp_codegen must be installed as files, not from {root!r}")
    return root


PACKAGE_DIR = _package_dir()
TEMPLATE_DIR = PACKAGE_DIR / "templates"
RUNTIME_DIR = PACKAGE_DIR / "runtime"
META_SCHEMA = PACKAGE_DIR / "meta_schema.json"


def _bundled_schema() -> Path:
    shipped = PACKAGE_DIR / "bundled" / "acp.schema.json"
    if shipped.is_file():
        return shipped
    return PACKAGE_DIR.parent / "schema" / "acp.schema.json"  # an editable install of a checkout


# The canonical ACP v2 schema, shipped with the tool: the default input outside a project.
BUNDLED_SCHEMA = _bundled_schema()
