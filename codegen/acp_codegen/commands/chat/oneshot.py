"""`chat --prompt TEXT`: one turn, the conversation written as plain text as it happens, the
exit code saying whether the turn ended with `end_turn`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..._bindings import models
from ...model.diff_view import diff_text, diff_view
from ..console import QUIET
from ..exits import EXIT_DIFFERS, EXIT_OK
from .command_env import AllowedEnv
from .gate import Gate, Question
from .link import AgentLink
from .permissions import CANCELLED, answer_text, first_allow, question_diffs
from .plain import PlainLog
from .remote import RemoteTarget
from .transcript import Turn, turn_since
from .visible import visible

END_TURN = "end_turn"


async def run_once(args: argparse.Namespace, argv: list[str] | RemoteTarget, cwd: Path) -> int:
    verbosity: int = args.verbosity
    log = PlainLog(sys.stdout, verbosity)

    async def ask(request: models.RequestPermissionRequest) -> models.RequestPermissionOutcome:
        # Nobody to ask: --approve allows, otherwise the request is cancelled.
        outcome = first_allow(request) if args.approve else CANCELLED
        if verbosity != QUIET:  # with what was approved: the diffs of its tool call
            diffs = [f"  {row.text}" for row in question_diffs(request)]
            log.note("\n".join([answer_text(request, outcome), *diffs]))
        return outcome

    async def confirm(question: Question) -> bool:
        # A v1 agent's write, command or (remote) read: --approve allows, otherwise nobody is
        # there to ask. Its details follow, so a log shows what was allowed: every variable of
        # a command.
        if verbosity != QUIET:
            verdict = "allowed" if args.approve else "refused (no --approve)"
            log.note(Question(f"{question.title}: {verdict}", question.details).text())
            view = diff_view(question.diff)  # a write's: what it changes
            if view is not None:
                log.note("\n".join(f"  {line}" for line in diff_text(view).split("\n")))
        return bool(args.approve)

    def tell(text: str) -> None:
        # A command refused without asking: said even with --quiet (it explains the answer).
        if verbosity != QUIET:
            log.note(text)
        else:
            print(text, file=sys.stderr, flush=True)

    link = AgentLink(
        argv,
        cwd=cwd,
        cwd_given=args.cwd is not None,
        ask=ask,
        confirm=Gate(confirm, tell, AllowedEnv.parse(args.allow_env)),
        trace=args.trace,
        verbose=verbosity > 1,
        show_traffic=log.aside,
        notice=None if verbosity == QUIET else log.note,
        tell=None if verbosity == QUIET else log.note,
        reconnect=True,
    )
    await link.start()
    if verbosity != QUIET:
        log.note(link.connected_text())
    before = link.snapshot()

    def now(*, ended: bool = False) -> Turn:
        return turn_since(before, link.snapshot(), ended=ended)

    link.listen(lambda update: log.heard(update, now))
    ended = False
    try:
        stop = await link.turn(args.prompt)
        ended = True
    finally:
        # What the agent did before failing (a ChatError) is still worth seeing.
        link.listen(None)
        log.end(now(ended=ended))
        await link.stop()
    failure = link.turn_failure(stop)
    if failure is not None:
        print(visible(failure), file=sys.stderr, flush=True)  # it quotes the agent's stderr
    elif verbosity != QUIET:
        for offered in link.client.offered(link.session):
            if offered is not None:
                log.note(offered)
    return EXIT_OK if stop == END_TURN else EXIT_DIFFERS
