"""Where the generator's own files live: inside the installed package, read as real files.

In a wheel everything sits inside the `acp_codegen` package (pyproject.toml maps the top-level
`templates/` and `schema/` folders into it). In an editable install of a checkout the package is
`codegen/acp_codegen/` and those two folders stay at the checkout's top level, where the design
card puts them: each is looked up in the package first, then in the checkout.
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
CHECKOUT_DIR = PACKAGE_DIR.parent.parent  # codegen/acp_codegen -> the checkout (editable only)


def _shipped_or_checkout(shipped: str, checkout: str) -> Path:
    inside = PACKAGE_DIR / shipped
    return inside if inside.exists() else CHECKOUT_DIR / checkout


TEMPLATES_DIR = _shipped_or_checkout("templates", "templates")
TEMPLATE_DIR = TEMPLATES_DIR / "package"  # the generated package's templates
SCAFFOLD_TEMPLATE_DIR = TEMPLATES_DIR / "scaffold"  # `new agent`'s project templates
RUNTIME_DIR = PACKAGE_DIR / "runtime"
META_SCHEMA = PACKAGE_DIR / "load" / "meta_schema.json"
OVERLAY_DIR = PACKAGE_DIR / "load" / "overlays"

# The canonical ACP v2 schema, shipped with the tool: the default input outside a project.
BUNDLED_SCHEMA = _shipped_or_checkout("bundled/acp.schema.json", "schema/acp.schema.json")
# Its v1 companion (upstream's newest v1 in our words): the bundled set carries both versions.
BUNDLED_V1_SCHEMA = _shipped_or_checkout("bundled/acp.v1.schema.json", "schema/acp.v1.schema.json")
# The unstable overlays of each version, merged in by `generate --unstable` (load/unstable.py).
BUNDLED_UNSTABLE_SCHEMA = _shipped_or_checkout(
    "bundled/acp.unstable.schema.json", "schema/acp.unstable.schema.json"
)
BUNDLED_V1_UNSTABLE_SCHEMA = _shipped_or_checkout(
    "bundled/acp.v1.unstable.schema.json", "schema/acp.v1.unstable.schema.json"
)

# The example agent (examples/demo_agent.py), shipped so `python -m acp_codegen.demo` runs it.
DEMO_AGENT = _shipped_or_checkout("examples/demo_agent.py", "examples/demo_agent.py")
