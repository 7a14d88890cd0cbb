"""Every user mistake on the command line: exit 2, a short `error:` on stderr, no traceback.

Each case runs `python -m acp_codegen` as a subprocess in a tmp dir (so nothing in-process, such
as an exception handler in a test, can hide a traceback)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from acp_codegen.commands.exits import EXIT_DIFFERS, EXIT_OK, EXIT_USAGE
from cli_work import SOURCE, plain_env
from conftest import REPO

GOOD = ["--out", "out", "--package", "pkg"]


def _nothing(root: Path) -> None:
    pass


def _files(**contents: bytes | str) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        for name, data in contents.items():
            raw = data.encode("utf-8") if isinstance(data, str) else data
            (root / name).write_bytes(raw)

    return setup


def _pyproject(text: str) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        (root / "pyproject.toml").write_text(text, encoding="utf-8")

    return setup


def _folder(root: Path) -> None:
    (root / "folder.json").mkdir()


SCHEMA = SOURCE.read_text(encoding="utf-8")
CASES: list[tuple[str, Callable[[Path], None], list[str]]] = [
    ("missing schema", _nothing, ["generate", "--schema", "nope.json", *GOOD]),
    ("schema is a folder", _folder, ["check", "--schema", "folder.json", *GOOD]),
    ("invalid JSON", _files(s="{"), ["generate", "--schema", "s", *GOOD]),
    ("not UTF-8", _files(s=b'{"\xff": 1}'), ["validate", "s"]),
    ("not an object", _files(s="[1]"), ["validate", "s"]),
    ("bad --package", _files(s=SCHEMA), ["generate", "--schema", "s", "--package", "a-b"]),
    ("stdlib --package", _files(s=SCHEMA), ["check", "--schema", "s", "--package", "json"]),
    ("--out is a file", _files(s=SCHEMA, f="x"), ["generate", "--schema", "s", "--out", "f"]),
    ("--out below a file", _files(s=SCHEMA, f="x"), ["check", "--schema", "s", "--out", "f/o"]),
    ("unknown option", _nothing, ["generate", "--frobnicate"]),
    ("unknown command", _nothing, ["frobnicate"]),
    ("no command", _nothing, []),
    ("-q with -v", _nothing, ["validate", "-q", "-v", "x.json"]),
    ("diff with a missing file", _files(s=SCHEMA), ["diff", "s", "nope.json"]),
    ("diff with bad JSON", _files(s=SCHEMA, b="{"), ["diff", "b", "s"]),
    ("diff bad --format", _files(s=SCHEMA), ["diff", "s", "s", "--format", "xml"]),
    (
        "vendor --into a file",
        _files(s=SCHEMA, f="x"),
        ["vendor", "--schema", "s", "--into", "f", "--package", "a.f"],
    ),
    (
        "vendor bad --package",
        _files(s=SCHEMA),
        ["vendor", "--schema", "s", "--into", "v", "--package", "a..b"],
    ),
    (
        "vendor --stat alone",
        _files(s=SCHEMA),
        ["vendor", "--schema", "s", "--into", "v", "--package", "v", "--stat"],
    ),
    ("vendor without --into", _nothing, ["vendor", "--package", "a"]),
    ("missing overlay", _files(s=SCHEMA), ["generate", "--schema", "s", "--overlay", "o", *GOOD]),
    ("validate missing overlay", _files(s=SCHEMA), ["validate", "s", "--overlay", "o"]),
    ("broken pyproject.toml", _pyproject("[tool.acp-codegen\n"), ["generate"]),
    ("non-string setting", _pyproject("[tool.acp-codegen]\nout = 3\n"), ["check"]),
    ("setting not a table", _pyproject('[tool]\nacp-codegen = "x"\n'), ["check"]),
]


@pytest.mark.parametrize(("setup", "argv"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_user_mistake_exits_2_with_a_short_error(
    tmp_path: Path, setup: Callable[[Path], None], argv: list[str]
) -> None:
    setup(tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    proc = subprocess.run(
        [sys.executable, "-m", "acp_codegen", *argv],
        cwd=tmp_path,
        env=plain_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == EXIT_USAGE, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "error:" in proc.stderr
    # The usage (argparse wraps it: generate's options take three lines), then one error line.
    assert len(proc.stderr.splitlines()) <= 4, proc.stderr
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before  # no output


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_schema_exits_2(tmp_path: Path) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(SCHEMA, encoding="utf-8")
    schema.chmod(0)
    proc = subprocess.run(
        [sys.executable, "-m", "acp_codegen", "validate", "s.json"],
        cwd=tmp_path,
        env=plain_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == EXIT_USAGE
    assert "error: s.json#/: cannot read file" in proc.stderr and "Traceback" not in proc.stderr


def test_exit_codes_are_in_help_and_readme() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "acp_codegen", "--help"],
        env=plain_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0
    epilog = proc.stdout[proc.stdout.index("exit status:") :]
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for code in (EXIT_OK, EXIT_DIFFERS, EXIT_USAGE):
        assert re.search(rf"^  {code}  \w", epilog, flags=re.MULTILINE), epilog
        assert re.search(rf"^\| {code} \| \w", readme, flags=re.MULTILINE)
    assert len({EXIT_OK, EXIT_DIFFERS, EXIT_USAGE}) == 3
    assert "end_turn" in epilog and "breaking" in epilog


def test_a_reader_that_goes_away_is_not_a_traceback(tmp_path: Path) -> None:
    """`acp-codegen check | head`: the diff of a whole missing package (far more than a pipe
    holds) meets a closed pipe; check still says out of date (exit 1) without a traceback."""
    (tmp_path / "s.json").write_text(SCHEMA, encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "acp_codegen", "check", "--schema", "s.json", *GOOD],
        cwd=tmp_path,
        env=plain_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait() == EXIT_DIFFERS
    assert "Traceback" not in err and "BrokenPipeError" not in err
    assert "out/pkg is out of date" in err
