"""Agent text made safe to print (`acp_codegen.model.shown`, shared with the generator's console).

In chat, plain text is escaped where it is written (`lines.Lines`; the screens' `aside`, which
carries the `-v` traffic, the agent's stderr and the runtime's log), the live view where agent
text becomes a rich `Text` (`live.shown`), a failure where it becomes a `ChatError`, and what
Python itself writes (`unhandled`). One-line things (a title, a name, a path) are escaped with
`visible_line` where they are formatted, so a newline in them cannot start a line that looks
like chat's own.
"""

from __future__ import annotations

from ...model.shown import visible, visible_line

__all__ = ["visible", "visible_line"]
