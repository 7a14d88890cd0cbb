"""`chat --prompt TEXT`: one turn, the conversation printed as plain text, the exit code saying
whether the turn ended with `end_turn`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .._bindings import models
from ..console import QUIET
from ..exits import EXIT_DIFFERS, EXIT_OK
from .link import AgentLink, ChatError
from .permissions import CANCELLED, answer_text, first_allow
from .plain import render_turn
from .transcript import turn_since

END_TURN = "end_turn"


async def run_once(args: argparse.Namespace, argv: list[str], cwd: Path) -> int:
    verbosity: int = args.verbosity

    async def ask(request: models.RequestPermissionRequest) -> models.RequestPermissionOutcome:
        # Nobody to ask: --approve allows, otherwise the request is cancelled.
        outcome = first_allow(request) if args.approve else CANCELLED
        if verbosity != QUIET:
            print(answer_text(request, outcome), flush=True)
        return outcome

    link = AgentLink(argv, cwd=cwd, ask=ask, trace=args.trace, verbose=verbosity > 1)
    await link.start()
    before = link.snapshot()
    try:
        stop = await link.turn(args.prompt)
    except ChatError:
        # What the agent did before failing is still worth seeing.
        sys.stdout.write(render_turn(turn_since(before, link.snapshot()), verbosity))
        raise
    finally:
        await link.stop()
    sys.stdout.write(render_turn(turn_since(before, link.snapshot(), ended=True), verbosity))
    return EXIT_OK if stop == END_TURN else EXIT_DIFFERS
