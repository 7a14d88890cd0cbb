"""Agent text made safe to print (see `acp_codegen.model.shown`): chat's name for it."""

from __future__ import annotations

from ...model.shown import visible, visible_line

__all__ = ["visible", "visible_line"]
