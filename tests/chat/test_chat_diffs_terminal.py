"""What the user approves is what they see: a scripted agent (`diff_agent.py`, v2 and v1) asks
to edit a file, its question's tool call carrying the diff, and `chat` in a real terminal (a
pty, driven by pexpect; rich's live screen and the plain one) draws the file, its hunk with the
removed and added lines, and the new file's lines folded, before the options; once answered,
the tool call shows the same diff. Synchronisation is on screen text only."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path
from typing import Any

import pytest

pexpect = pytest.importorskip("pexpect")
pytestmark = pytest.mark.slow  # a real terminal, a few seconds a case

REPO = Path(__file__).resolve().parents[2]
AGENT = [sys.executable, str(Path(__file__).with_name("diff_agent.py"))]
PROMPT = r"(?<!-)> "  # not the `> ` of a `-> Apply` in the live view's last frame
WITHOUT_RICH = (
    "import sys; sys.modules['rich'] = None; from acp_codegen.commands.cli import main; main()"
)
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # rich's colours and cursor moves
SCREENS = [
    pytest.param(["-m", "acp_codegen"], id="live-with-rich"),
    pytest.param(["-c", WITHOUT_RICH], id="plain-without-rich"),
]


def spawn(python_args: list[str], version: str, rows: int) -> Any:  # a pexpect.spawn
    child = pexpect.spawn(
        sys.executable,
        [*python_args, "chat", "--", *AGENT, version],
        cwd=str(REPO),
        dimensions=(rows, 120),
        encoding="utf-8",
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8"},
    )
    child.expect("session open in")
    return child


@pytest.mark.parametrize("python_args", SCREENS)
@pytest.mark.parametrize("version", ["v2", "v1"])
def test_a_permission_question_shows_the_diff_it_approves(
    python_args: list[str], version: str
) -> None:
    if python_args[0] == "-m":
        pytest.importorskip("rich")
    # 30 rows: the question, with its options, still fits (its diffs folded to the room left).
    child = spawn(python_args, version, rows=30)
    child.logfile_read = transcript = io.StringIO()
    child.expect(PROMPT)
    child.sendline("edit the greeting")
    child.expect("permission: Edit app.py")
    # In order, before any option: the file, its hunk, the lines it removes and adds.
    child.expect(re.escape("diff: /work/app.py (modify +1 -1)"))
    child.expect(re.escape("@@ -28,7 +28,7 @@"))
    child.expect(re.escape("line_29 = 29"))
    child.expect(re.escape('- greeting = "hello"'))
    child.expect(re.escape('+ greeting = "hi"'))
    child.expect(re.escape("diff: /work/NOTES.md (add +50 -0)"))
    child.expect(re.escape("+ note 0"))
    child.expect(r"\.\.\. \d+ more lines")
    child.expect(r"\[1\] Apply \(allow_once\)")
    child.expect(r"\[2\] Skip \(reject_once\)")
    child.send("1")
    child.expect("turn ended: end_turn")
    # The tool call shows the same diff: plain text writes it once, as it first comes (on
    # v1 the question's own tool call, before the question); rich draws it above the answer.
    assert "-> Apply (allow_once)" in ANSI.sub("", transcript.getvalue())
    if python_args[0] == "-m":
        after = ANSI.sub("", child.before or "")
        completed = re.search(r"(edit1|Edit app\.py \(edit\)): completed", after)
        assert completed is not None, after
        assert '+ greeting = "hi"' in after[completed.end() :]
    else:
        assert '  | + greeting = "hi"' in transcript.getvalue()
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Traceback" not in (child.before or "")
