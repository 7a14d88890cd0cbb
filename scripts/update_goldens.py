"""Regenerate the golden trees under tests/golden/ from the fixture schemas.

    python scripts/update_goldens.py            # every fixture
    python scripts/update_goldens.py request    # only tests/fixtures/schemas/request.json

Each fixture `tests/fixtures/schemas/<name>.json` is rendered with a fixed target (package `pkg`,
the command below), so the expected bytes do not depend on where the checkout lives.
`tests/test_golden.py` loads this file and compares the same view of the tree, so what this
script writes is exactly what the test expects.

The golden view leaves out two things that are checked elsewhere and would otherwise make every
golden change whenever an unrelated part of the project changes:
- `pkg/_runtime/**`: a verbatim copy of `codegen/acp_codegen/runtime/` (checked in
  tests/test_functional.py);
- `pkg/.acp-codegen-manifest.json`: the written files and their hashes (checked in
  tests/test_golden.py and tests/test_writer_safety.py against the rendered tree).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(REPO / "codegen"))

from acp_codegen.commands.pipeline import load_protocol, render_tree  # noqa: E402
from acp_codegen.emit.render import Target  # noqa: E402
from acp_codegen.write.writer import MANIFEST  # noqa: E402

SCHEMAS = REPO / "tests" / "fixtures" / "schemas"
GOLDEN = REPO / "tests" / "golden"
PACKAGE = "pkg"
UPDATE_COMMAND = "python scripts/update_goldens.py"
LEFT_OUT_PREFIXES = (f"{PACKAGE}/_runtime/",)
MANIFEST_PATH = f"{PACKAGE}/{MANIFEST}"
LEFT_OUT_FILES = (MANIFEST_PATH,)


def fixture_names() -> list[str]:
    return sorted(p.stem for p in SCHEMAS.glob("*.json"))


def schema_path(name: str) -> Path:
    return SCHEMAS / f"{name}.json"


def target(name: str) -> Target:
    command = (
        f"acp-codegen generate --schema tests/fixtures/schemas/{name}.json"
        f" --out tests/golden/{name} --package {PACKAGE}"
    )
    return Target(package=PACKAGE, command=command)


def render_fixture(name: str) -> dict[str, bytes]:
    """The whole tree the generator produces for one fixture (runtime and manifest included)."""
    protocol = load_protocol(schema_path(name), f"tests/fixtures/schemas/{name}.json")
    return render_tree(protocol, target(name))


def in_golden_view(rel: str) -> bool:
    return rel not in LEFT_OUT_FILES and not rel.startswith(LEFT_OUT_PREFIXES)


def golden_view(files: dict[str, bytes]) -> dict[str, bytes]:
    return {rel: data for rel, data in sorted(files.items()) if in_golden_view(rel)}


def expected_tree(name: str) -> dict[str, bytes]:
    return golden_view(render_fixture(name))


def read_tree(root: Path) -> dict[str, bytes]:
    """Every file below `root` (caches aside), keyed by its POSIX path relative to `root`."""
    if not root.is_dir():
        return {}
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }


def write_golden(name: str) -> None:
    folder = GOLDEN / name
    if folder.exists():
        shutil.rmtree(folder)
    for rel, data in expected_tree(name).items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def main(argv: list[str]) -> int:
    known = fixture_names()
    wanted = argv or known
    unknown = sorted(set(wanted) - set(known))
    if unknown:
        print(
            f"unknown fixture(s): {', '.join(unknown)}; known: {', '.join(known)}", file=sys.stderr
        )
        return 2
    for name in wanted:
        write_golden(name)
        print(f"tests/golden/{name}: written")
    if not argv and GOLDEN.is_dir():  # a full run also drops goldens whose fixture is gone
        for folder in sorted(p for p in GOLDEN.iterdir() if p.is_dir() and p.name not in known):
            shutil.rmtree(folder)
            print(f"tests/golden/{folder.name}: removed (no fixture)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
