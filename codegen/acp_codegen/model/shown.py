"""Untrusted text made safe to print: every character that would steer the user's terminal
is shown as a visible escape instead of reaching it.

Text from a peer or a schema is someone else's choice: an agent's messages, titles, terminal
output and file names in chat and inspect; a schema's names and descriptions in `diff`,
`check` and generated docstrings. Written raw, ESC/CSI/OSC sequences and CR could rewrite what
the user is asked, set the clipboard (OSC 52) or the window title, or hide links (OSC 8), and
direction controls make text read differently from how it runs. Only our own styling may reach
the terminal, so such text passes through `visible` (multi-line text) or `visible_line` (one
line: titles, names, paths), where it is written: the generator's `Console`; chat's `Lines`,
its screens' `aside`, `live.shown`, `ChatError` and `unhandled` (see `commands/chat/visible`).

A backslash is left as it is: `\\e` typed by the agent and an escaped ESC read the same, and
both are inert; escaping every backslash would garble paths and code to tell them apart.
"""

from __future__ import annotations

import re
from typing import Final

# C0 controls, DEL, C1 controls (0x9b is a one-byte CSI), the Unicode direction marks,
# embeddings, overrides and isolates (text that reads differently from how it runs), the line
# and paragraph separators, and lone surrogates (no terminal encoding can carry one).
_CONTROLS: Final = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    "\ud800-\udfff"
)
# Multi-line text keeps tab and newline; a CR right before a newline is a Windows line end
# (it cannot overwrite anything: the cursor leaves the line at once), so it reads as the
# newline alone. Any other CR is escaped: it would let the text after it overwrite the line.
# (One character class, the CR looked past in `_escape_in_text`: twice as fast as `\r\n|[...]`.)
_STEERING: Final = re.compile(f"[{_CONTROLS}]")
_STEERING_LINE: Final = re.compile(f"[\t\n{_CONTROLS}]")
_NAMED: Final = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\x1b": "\\e"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _escape_in_text(match: re.Match[str]) -> str:
    if match.group() == "\r" and match.string.startswith("\n", match.end()):
        return ""  # CR LF: the newline after it stays
    return _escape(match)


def visible(text: str) -> str:
    """`text` with tab and newline kept (CR LF read as a newline) and every other steering
    character escaped (`\\e[2K`, `\\r`, `\\x07`, `\\u202e`, ...)."""
    return _STEERING.sub(_escape_in_text, text)


def visible_line(text: str) -> str:
    """`text` on one line: like `visible`, with tabs, newlines and CR LF escaped too."""
    return _STEERING_LINE.sub(_escape, text)
