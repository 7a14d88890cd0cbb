"""`chat --prompt TEXT`: one turn, the conversation written as plain text as it happens, the
exit code saying whether the turn ended with `end_turn`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..._bindings import models
from ..console import QUIET
from ..exits import EXIT_DIFFERS, EXIT_OK
from .link import AgentLink
from .permissions import CANCELLED, answer_text, first_allow
from .plain import PlainLog
from .remote import RemoteTarget
from .transcript import Turn, turn_since
from .visible import visible, visible_line

END_TURN = "end_turn"


async def run_once(args: argparse.Namespace, argv: list[str] | RemoteTarget, cwd: Path) -> int:
    verbosity: int = args.verbosity
    log = PlainLog(sys.stdout, verbosity)

    async def ask(request: models.RequestPermissionRequest) -> models.RequestPermissionOutcome:
        # Nobody to ask: --approve allows, otherwise the request is cancelled.
        outcome = first_allow(request) if args.approve else CANCELLED
        if verbosity != QUIET:
            log.note(answer_text(request, outcome))
        return outcome

    async def confirm(what: str) -> bool:
        # A v1 agent's write or command: --approve allows, otherwise nobody is there to ask.
        if verbosity != QUIET:
            said = f"{what}: {'allowed' if args.approve else 'refused (no --approve)'}"
            log.note(visible_line(said))  # what the agent asks is on one line
        return bool(args.approve)

    link = AgentLink(
        argv,
        cwd=cwd,
        ask=ask,
        confirm=confirm,
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
    return EXIT_OK if stop == END_TURN else EXIT_DIFFERS
