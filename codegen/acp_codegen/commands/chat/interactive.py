"""The interactive chat: a prompt line, the turn drawn as it happens, permission requests
answered by key, `/` commands (`slash` says which are the agent's), and Ctrl-C: once cancels
the running turn (`session/cancel`), again (or when idle, or Ctrl-D) quits, stopping the
agent."""

from __future__ import annotations

import argparse
import asyncio
import signal
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from ..._bindings import models
from ..exits import EXIT_OK
from .keys import Terminal
from .link import AgentLink
from .permissions import CANCELLED, answer_text, selected
from .screens import Asking, PlainScreen, Screen, TurnView, asking
from .slash import command_name, help_text, route
from .transcript import Turn, turn_since

T = TypeVar("T")
CTRL_D = "\x04"  # a plain byte in cbreak mode, not end of input


def make_screen(verbosity: int) -> Screen:
    """Rich's live screen when the `chat` extra is installed, plain text otherwise."""
    try:
        from .live import RichScreen
    except ImportError:  # the `chat` extra is not installed
        return PlainScreen(verbosity)
    return RichScreen(verbosity)


class Chat:
    def __init__(self, args: argparse.Namespace, argv: list[str], cwd: Path) -> None:
        self.screen: Screen = make_screen(args.verbosity)
        self.terminal = Terminal()
        self.link = AgentLink(
            argv, cwd=cwd, ask=self.ask, trace=args.trace, verbose=args.verbosity > 1
        )
        self.cwd = cwd
        self.quitting = asyncio.Event()
        self.turn: asyncio.Task[str | None] | None = None
        self.cancelling = False
        self.asking: Asking | None = None
        self.redraw: Callable[[], None] | None = None  # shows the running turn now
        self.cancel_task: asyncio.Future[None] | None = None

    # -- Ctrl-C -----------------------------------------------------------------------------------

    def interrupt(self) -> None:
        if self.turn is not None and not self.turn.done() and not self.cancelling:
            self.cancelling = True
            self.screen.note("cancelling the turn (Ctrl-C again quits)")
            self.cancel_task = asyncio.ensure_future(self.link.cancel())
        else:
            self.quitting.set()

    async def until_quit(self, step: Awaitable[T]) -> T | None:
        """`step`'s result, or None when the user quits first (then `step` is cancelled)."""
        task = asyncio.ensure_future(step)
        quit_wait = asyncio.ensure_future(self.quitting.wait())
        waiters: set[asyncio.Future[Any]] = {task, quit_wait}
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        quit_wait.cancel()
        if not task.done():
            task.cancel()
            return None
        return task.result()

    # -- permission requests ----------------------------------------------------------------------

    async def ask(
        self, request: models.RequestPermissionRequest
    ) -> models.RequestPermissionOutcome:
        self.asking = asking(request)
        if self.redraw is not None:
            self.redraw()
        try:
            keys = dict(self.asking[1])
            while True:
                key = await self.terminal.read_key()
                if key in ("", CTRL_D):  # the terminal is gone, or the user leaves
                    self.quitting.set()
                    return CANCELLED
                if key.lower() in keys:
                    outcome = selected(keys[key.lower()])
                    self.asking = None
                    self.screen.note(answer_text(request, outcome))
                    return outcome
        finally:
            self.asking = None

    # -- the loop ---------------------------------------------------------------------------------

    async def run(self) -> int:
        if await self.until_quit(self._start()) is None:
            return EXIT_OK
        self.screen.note(
            f"{self.link.agent_name}: session open in {self.cwd}. Type a prompt; /? lists "
            "commands; Ctrl-C cancels a turn, Ctrl-C again or Ctrl-D quits."
        )
        while not self.quitting.is_set():
            self.screen.prompt()
            line = await self.until_quit(self.terminal.read_line())
            if line is None:
                break
            text = line.strip()
            where = route(text, self.link.commands) if text.startswith("/") else "agent"
            if where == "quit":
                break
            if where == "help":
                self.screen.note(help_text(self.link.commands))
            elif where == "unknown":
                self.screen.note(f"unknown command /{command_name(text)}; /? lists them")
            elif text:  # a prompt, or one of the agent's commands: the agent reads both
                await self.run_turn(text)
        self.screen.note("bye")
        return EXIT_OK

    async def _start(self) -> bool:
        await self.link.start()
        return True

    async def run_turn(self, text: str) -> None:
        before = self.link.snapshot()

        def now(*, ended: bool = False) -> Turn:
            return turn_since(before, self.link.snapshot(), ended=ended)

        view: TurnView = self.screen.begin_turn()
        self.redraw = lambda: view.update(now(), self.asking)
        self.link.listen(lambda update: view.heard(update, now))
        self.cancelling = False
        self.turn = asyncio.ensure_future(self.link.turn(text))
        try:
            while not self.turn.done() and not self.quitting.is_set():
                quit_wait = asyncio.ensure_future(self.quitting.wait())
                waiters: set[asyncio.Future[Any]] = {self.turn, quit_wait}
                await asyncio.wait(
                    waiters, timeout=view.redraw_seconds, return_when=asyncio.FIRST_COMPLETED
                )
                quit_wait.cancel()
                if view.redraw_seconds is not None:
                    self.redraw()
            if not self.turn.done():  # quitting mid-turn: the agent is stopped next
                self.turn.cancel()
            else:
                self.turn.result()  # a ChatError (the agent died) ends the chat
        finally:
            self.link.listen(None)
            self.redraw = None
            view.finish(now(ended=self.turn.done()))
            self.turn = None


async def run_interactive(args: argparse.Namespace, argv: list[str], cwd: Path) -> int:
    chat = Chat(args, argv, cwd)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, chat.interrupt)
    try:
        return await chat.run()
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        await chat.link.stop()
