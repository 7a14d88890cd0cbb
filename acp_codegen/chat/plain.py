"""A turn as plain text (no colours, no cursor movement): for pipes, files and terminals
without the `chat` extra. `--quiet` keeps the answer alone."""

from __future__ import annotations

from ..console import QUIET
from .transcript import Turn, tool_output, usage_text

PLAN_MARKS = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]"}


def render_turn(turn: Turn, verbosity: int) -> str:
    """The turn's text, one item per line or block, ending with a newline when not empty."""
    if verbosity == QUIET:
        answer = "".join(turn.answer).strip()
        return answer + "\n" if answer else ""
    lines: list[str] = []
    lines += [f"(thinking) {text.strip()}" for text in turn.thoughts if text.strip()]
    for entries in turn.plans:
        lines.append("plan:")
        for entry in entries:
            mark = PLAN_MARKS.get(entry["status"], f"[{entry['status']}]")
            lines.append(f"  {mark} {entry['content']}")
    for call in turn.tool_calls:
        kind = f" ({call['kind']})" if call.get("kind") else ""
        lines.append(f"tool: {call.get('title') or call['toolCallId']}{kind}: {call.get('status')}")
        output = tool_output(call).strip()
        lines += [f"  | {line}" for line in output.splitlines()]
    for terminal in turn.terminals:
        command = terminal.get("command") or terminal["terminalId"]
        lines.append(f"terminal: {command}")
        lines += [f"  | {line}" for line in terminal["output"].rstrip().splitlines()]
        status = terminal.get("exitStatus")
        if status:
            lines.append(f"  exit: {status.get('exitCode', status.get('signal'))}")
    lines += [f"agent: {text.strip()}" for text in turn.answer if text.strip()]
    if turn.usage is not None:
        lines.append(f"usage: {usage_text(turn.usage)}")
    if turn.stop_reason is not None:
        lines.append(f"[turn ended: {turn.stop_reason}]")
    return "".join(line + "\n" for line in lines)
