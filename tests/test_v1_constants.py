"""v1's names are defined once, in runtime/v1/constants.py: no other runtime module and no
template of the generated package gives one of its values a name of its own, and the
templates write no bare version 1."""

from __future__ import annotations

import ast
from pathlib import Path

from acp_codegen.runtime.v1 import constants

REPO = Path(__file__).resolve().parents[1]
RUNTIME = REPO / "codegen" / "acp_codegen" / "runtime"
TEMPLATES = REPO / "templates" / "package"

# The values constants.py names (strings and the version number), by value.
NAMED = {
    value: name
    for name, value in vars(constants).items()
    if name.isupper() and isinstance(value, str | int) and not isinstance(value, bool)
}
# Values v1 shares with v2's vocabulary (wire/protocol.py names them for v2).
SHARED = {constants.SET_CONFIG_OPTION, constants.MODE_CATEGORY}


def module_constants(path: Path) -> list[tuple[str, object]]:
    """The module-level upper-case names `path` assigns a plain literal to."""
    found: list[tuple[str, object]] = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        value = getattr(node, "value", None)
        if not isinstance(value, ast.Constant):
            continue
        for target in targets:
            if isinstance(target, ast.Name) and target.id.isupper():
                found.append((target.id, value.value))
    return found


def test_no_runtime_module_redefines_a_v1_constant() -> None:
    redefined = [
        f"{path.relative_to(RUNTIME)}: {name} = {value!r} (constants.{NAMED[value]})"
        for path in sorted(RUNTIME.rglob("*.py"))
        if path.name != "constants.py" or path.parent.name != "v1"
        for name, value in module_constants(path)
        if not isinstance(value, bool)
        and value in NAMED
        and value not in SHARED
        and (path.parent.name == "v1" or name.startswith(("V1", "PROTOCOL_V1")))
    ]
    assert not redefined, "\n".join(redefined)


def test_the_templates_take_v1_from_the_runtime() -> None:
    for name in ("agent.py.j2", "client.py.j2"):
        text = (TEMPLATES / name).read_text(encoding="utf-8")
        assert "V1 = 1" not in text and "(1, 2)" not in text, name
        assert " 1 in self.protocol_versions" not in text, name
        assert ".v1.assembly import" in text, name  # the assembly is the runtime's
        assert "VersionedDispatcher" not in text, name
