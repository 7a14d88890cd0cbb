"""The inspector's pictures in the docs are the ones its browser tests take: every
`docs/inspect-*.png` a doc shows is written by a `screenshot(page, NAME)` call in
tests/inspector (run with ACP_INSPECT_SCREENSHOTS=1), and every picture taken is shown."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_every_inspector_picture_in_the_docs_is_taken_by_a_test() -> None:
    docs = "".join(path.read_text() for path in [REPO / "README.md", *REPO.glob("docs/*.md")])
    shown = set(re.findall(r"\((?:docs/)?(inspect-[\w-]+)\.png\)", docs))
    tests = "".join(path.read_text() for path in (REPO / "tests" / "inspector").glob("*.py"))
    taken = set(re.findall(r'screenshot\(page, "([\w-]+)"\)', tests))
    assert shown == taken
    assert {"inspect-turns", "inspect-diff"} <= taken
    for name in taken:
        assert (REPO / "docs" / f"{name}.png").is_file(), name
