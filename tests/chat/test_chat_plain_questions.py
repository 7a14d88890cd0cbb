"""The plain screen writes every question of a turn, each once: a question answered and freed
must not hide the next one made in its place in memory (it was told apart by `id()`)."""

from __future__ import annotations

import io

from acp_codegen._bindings import models
from acp_codegen.commands.chat.plain import PlainLog
from acp_codegen.commands.chat.screens import PlainTurn, asking
from acp_codegen.commands.chat.transcript import Turn


def question(number: int) -> models.RequestPermissionRequest:
    return models.RequestPermissionRequest(
        session_id="s1",
        title=f"Allow the agent to do thing {number}?",
        options=[models.PermissionOption(option_id="allow", name="Allow", kind="allow_once")],
    )


def test_each_question_is_written_once_even_in_a_freed_ones_place() -> None:
    out = io.StringIO()
    view = PlainTurn(PlainLog(out, 0))
    for number in range(40):  # freed and made again: CPython reuses the same memory
        asked = asking(question(number))
        view.update(Turn(), asked)
        view.update(Turn(), asked)  # redrawn while it is open: not written again
        del asked
    written = out.getvalue()
    for number in range(40):
        assert written.count(f"permission: Allow the agent to do thing {number}?") == 1, number
