"""`acp-codegen demo-agent` started by a person in a terminal says on stderr what it is for (it
answers typing with parse errors); started by a client (stdin a pipe) it says nothing."""

from __future__ import annotations

import subprocess
import sys

import pytest
from acp_codegen.commands.shipped import TERMINAL_HINT

pytestmark = pytest.mark.slow  # a real terminal

DEMO = [sys.executable, "-m", "acp_codegen", "demo-agent"]


def test_in_a_terminal_it_says_a_client_drives_it() -> None:
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(DEMO[0], DEMO[1:], encoding="utf-8", timeout=120, dimensions=(24, 400))
    child.expect_exact(TERMINAL_HINT)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_through_a_pipe_it_says_nothing() -> None:
    proc = subprocess.run(DEMO, input="", capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "acp-codegen chat" not in proc.stderr and proc.stdout == ""
