"""`check --stat` and `vendor --check --stat`: one line per differing file and a total, like
`git diff --stat`, still exit 1 when out of date."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp_codegen.commands.cli import main
from acp_codegen.write.diffstat import BAR_WIDTH, counts, stat
from cli_work import ARGS, enter_work


def test_counts_skip_the_file_headers() -> None:
    lines = ["--- a/x\n", "+++ b/x\n", "@@ -1,2 +1,2 @@\n", "-a\n", "+b\n", "+c\n", " d\n"]
    assert counts(lines) == (2, 1)


def test_stat_lines_marks_and_total() -> None:
    text = stat(
        [("p/a.py", ["+x\n", "+y\n", "-z\n"]), ("p/new.py", ["+n\n"])], {"p/new.py": "missing"}
    )
    assert text == (
        " p/a.py             | 3 ++-\n"
        " p/new.py (missing) | 1 +\n"
        " 2 file(s) changed, 3 insertion(s)(+), 1 deletion(s)(-)\n"
    )


def test_long_bars_are_scaled_but_small_changes_stay_visible() -> None:
    text = stat([("big", ["+x\n"] * 400), ("small", ["-y\n"])])
    big, small, _ = text.splitlines()
    assert big.endswith("| 400 " + "+" * BAR_WIDTH)
    assert small.endswith("|   1 -")


def test_nothing_differs_nothing_printed() -> None:
    assert stat([]) == ""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return enter_work(tmp_path, monkeypatch)


def test_check_stat_summarises_changed_missing_and_extra(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["generate", *ARGS]) == 0
    assert main(["check", "--stat", *ARGS]) == 0
    pkg = work / "out" / "pkg"
    (pkg / "methods.py").write_text(
        (pkg / "methods.py").read_text(encoding="utf-8") + "# one\n# two\n", encoding="utf-8"
    )
    (pkg / "state.py").unlink()
    (pkg / "stray.py").write_text("x = 1\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["check", "--stat", *ARGS]) == 1
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 4 and "@@" not in out
    assert lines[0].startswith(" pkg/methods.py ") and lines[0].endswith("|  2 --")
    assert lines[1].startswith(" pkg/state.py (missing) |")
    assert lines[2].startswith(" pkg/stray.py (extra)   |") and lines[2].endswith("|  1 -")
    assert lines[3].startswith(" 3 file(s) changed, ")
    assert "Fix it with: acp-codegen generate" in err


def test_vendor_check_stat(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    vendor = ["vendor", "-q", "--schema", "schema.json", "--into", "a/b", "--package", "a.b"]
    assert main([*vendor, "--check", "--stat"]) == 1
    out = capsys.readouterr().out
    assert "\n a/b/models.py (missing) " in out and "@@" not in out
    assert main(vendor) == 0
    assert main([*vendor, "--check", "--stat"]) == 0
    assert capsys.readouterr().out == ""


def test_vendor_stat_needs_check(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["vendor", "--schema", "schema.json", "--into", "a/b", "--package", "a.b", "--stat"]
    assert main(argv) == 2
    assert capsys.readouterr().err == "error: --stat only goes with --check\n"
    assert not (work / "a").exists()
