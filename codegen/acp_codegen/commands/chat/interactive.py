"""The interactive chat: a prompt line, the turn drawn as it happens, permission requests
answered by key, `/` commands (`slash` says which are the agent's), and Ctrl-C: once cancels
the running turn (`session/cancel`), again (or when idle, or Ctrl-D) quits, stopping the
agent. While a turn runs the terminal is read key by key: a key answers a permission question
(any other key is told what would), and other typing is refused out loud, never sent later."""

from __future__ import annotations

import argparse
import asyncio
import signal
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from ..._bindings import SessionSnapshot, models
from ..exits import EXIT_OK
from .command_env import AllowedEnv
from .gate import Gate, Question
from .keys import Terminal
from .link import AgentLink, ChatError
from .permissions import CANCELLED, answer_text, keys_hint, selected
from .remote import RemoteTarget
from .screens import Asking, PlainScreen, Screen, TurnView, asking
from .session_commands import SessionCommands, refusal
from .slash import command_name, help_text, route
from .transcript import Turn, turn_since

T = TypeVar("T")
CTRL_D = "\x04"  # a plain byte in cbreak mode, not end of input
NOT_SENT = (
    "the agent is still working: what you type now is not sent (wait for the > prompt; "
    "Ctrl-C cancels the turn)"
)


def make_screen(verbosity: int) -> Screen:
    """Rich's live screen when the `chat` extra is installed, plain text otherwise."""
    try:
        from .live import RichScreen
    except ImportError:  # the `chat` extra is not installed
        return PlainScreen(verbosity)
    return RichScreen(verbosity)


class Chat:
    def __init__(self, args: argparse.Namespace, argv: list[str] | RemoteTarget, cwd: Path) -> None:
        self.screen: Screen = make_screen(args.verbosity)
        self.terminal = Terminal()
        self.link = AgentLink(
            argv,
            cwd=cwd,
            cwd_given=args.cwd is not None,
            ask=self.ask,
            confirm=Gate(self.confirm, self.note, AllowedEnv.parse(args.allow_env)),
            trace=args.trace,
            verbose=args.verbosity > 1,
            show_traffic=self.screen.aside,
            notice=self.note,
            tell=self.note,
            on_drop=self.note,
            reconnect=True,
        )
        self.cwd = cwd
        self.quitting = asyncio.Event()
        self.turn: asyncio.Task[str | None] | None = None
        self.cancelling = False
        self.asking: Asking | None = None
        self.redraw: Callable[[], None] | None = None  # shows the running turn now
        self.view: TurnView | None = None  # the running turn's, where notes go meanwhile
        self.answers: asyncio.Queue[str] | None = None  # keys, while a question is open
        self.refused_typing = False  # said once per turn that typing is not sent
        self.cancel_task: asyncio.Future[None] | None = None
        self.session_commands = SessionCommands(self.link)

    def note(self, text: str) -> None:
        """A line for the user: in the running turn's view, in its order, or on the screen."""
        if self.view is not None:
            self.view.note(text)
        else:
            self.screen.note(text)

    def keys_typed(self, keys: str) -> None:
        """Keys pressed while a turn runs: an answer to the open question, or refused."""
        if self.answers is not None:
            self.answers.put_nowait(keys)
        elif keys in ("", CTRL_D):
            self.quitting.set()
        elif keys.strip() and not self.refused_typing:
            self.refused_typing = True
            self.note(NOT_SENT)

    # -- Ctrl-C -----------------------------------------------------------------------------------

    def interrupt(self) -> None:
        if self.turn is not None and not self.turn.done() and not self.cancelling:
            self.cancelling = True
            self.note("cancelling the turn (Ctrl-C again quits)")
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

    async def confirm(self, question: Question) -> bool:
        """A v1 agent's write, command or (remote) read, asked like a permission (allow, or
        reject); its details (a command's program, folder, variables) shown below the title,
        a write's diff as a tool call's."""
        subject = None
        if question.diff is not None:  # shown as a tool call's diff is
            call = {"toolCallId": "fs/write_text_file", "content": [question.diff]}
            subject = models.ToolCallPermissionSubject.model_validate({"toolCall": call})
        request = models.RequestPermissionRequest(
            session_id=self.link.session.session_id,
            title=f"Allow the agent to {question.title}?",
            description="\n".join(question.details) or None,
            subject=subject,
            options=[
                models.PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
                models.PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
            ],
        )
        outcome = await self.ask(request)
        return getattr(outcome, "option_id", None) == "allow"

    async def ask(
        self, request: models.RequestPermissionRequest
    ) -> models.RequestPermissionOutcome:
        self.asking = asking(request)
        in_turn = self.view is not None  # else no key reader runs: read the key here
        self.answers = asyncio.Queue() if in_turn else None
        if self.redraw is not None:
            self.redraw()
        try:
            keys = dict(self.asking[1])
            while True:
                typed = await (self.answers.get() if self.answers else self.terminal.read_key())
                if typed in ("", CTRL_D):  # the terminal is gone, or the user leaves
                    self.quitting.set()
                    return CANCELLED
                choice = typed.strip().lower()  # a key and Enter, or a pasted "1\n", count
                if choice in keys:
                    outcome = selected(keys[choice])
                    self.asking = None
                    self.note(answer_text(request, outcome))
                    return outcome
                wrong = f"{choice!r} is not an answer: " if choice else ""
                self.note(f"{wrong}press {keys_hint(self.asking[1])} (Ctrl-C cancels)")
        finally:
            self.asking = None
            self.answers = None

    # -- the loop ---------------------------------------------------------------------------------

    async def run(self) -> int:
        if await self.until_quit(self._start()) is None:
            return EXIT_OK
        self.screen.note(
            f"{self.link.connected_text()} session open in {self.cwd}. Type a prompt; /? lists "
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
                offered = self.session_commands.offered
                self.screen.note(help_text(self.link.commands, offered))
                models = self.link.client.offered(self.link.session)[1]
                if models is not None:
                    self.screen.note(models)
            elif where == "session":
                await self.session_command(text)
            elif where == "unknown":
                self.screen.note(f"unknown command /{command_name(text)}; /? lists them")
            elif text:  # a prompt, or one of the agent's commands: the agent reads both
                await self.run_turn(text)
        self.screen.note("bye")
        return EXIT_OK

    async def session_command(self, line: str) -> None:
        """`/fork`, `/title TEXT`, `/archive`, `/unarchive [ID]`, `/status`: sent when the agent
        advertised it, else refused saying so; the agent's refusal is shown and the chat goes
        on."""
        name = command_name(line)
        if name not in self.session_commands.offered:
            self.screen.note(refusal(name))
            return
        text = line.strip()[1 + len(name) :].strip()
        if name == "title" and not text:
            self.screen.note("/title needs the title: /title TEXT")
            return
        commands = self.session_commands
        if name == "unarchive" and not (text := text or commands.last_archived or ""):
            self.screen.note("/unarchive needs the session: /unarchive ID (none archived here)")
            return
        if not await self._connected():
            return
        try:
            if name == "fork":
                said = await self.until_quit(commands.fork())
            elif name == "title":
                said = await self.until_quit(commands.title(text))
            elif name == "archive":
                said = await self.until_quit(commands.archive())
            elif name == "unarchive":
                said = await self.until_quit(commands.unarchive(text))
            else:
                said = await self.until_quit(commands.status())
        except ChatError as error:
            self.screen.note(f"[{error}]")
            return
        if said is None:  # the user quit meanwhile
            return
        self.screen.note(said)
        if name == "fork":  # the fork's history, drawn as a turn is
            empty = cast(SessionSnapshot, self.link.lifecycle.new_state().snapshot())
            self.screen.begin_turn().finish(turn_since(empty, self.link.snapshot()))

    async def _start(self) -> bool:
        await self.link.start()
        return True

    async def run_turn(self, text: str) -> None:
        if not await self._connected():
            return
        before = self.link.snapshot()

        def now(*, ended: bool = False) -> Turn:
            return turn_since(before, self.link.snapshot(), ended=ended)

        view: TurnView = self.screen.begin_turn()
        self.view, self.refused_typing = view, False
        self.redraw = lambda: view.update(now(), self.asking)
        self.link.listen(lambda update: view.heard(update, now))
        self.cancelling = False
        self.turn = turn = asyncio.ensure_future(self.link.turn(text))
        with self.terminal.keys(self.keys_typed):
            failure = await self._follow(turn, view, now)
        if failure is not None:
            self.screen.note(failure)
        elif (suggestions := self.link.client.offered(self.link.session)[0]) is not None:
            self.screen.note(suggestions)

    async def _connected(self) -> bool:
        """A prompt typed while the connection is being reattached waits for it, saying so:
        no turn is drawn (the agent is not working on it, it has not got it). False when the
        user quits meanwhile; the link's `ChatError` when it gives up (nothing was sent)."""
        if not self.link.reconnecting:
            return True
        self.screen.note("[not connected: the prompt waits until chat is reconnected]")
        return await self.until_quit(self._reconnected()) is not None

    async def _reconnected(self) -> bool:
        try:
            await self.link.reattach()
        except ChatError as error:
            raise ChatError(f"{error}; the prompt was not sent", error.code) from None
        return True

    async def _follow(
        self, turn: asyncio.Task[str | None], view: TurnView, now: Callable[..., Turn]
    ) -> str | None:
        """Wait for `turn` (redrawing it) or for quitting; what the agent's failure was, if the
        turn ended `_internal_error`."""
        failure: str | None = None
        try:
            while not turn.done() and not self.quitting.is_set():
                quit_wait = asyncio.ensure_future(self.quitting.wait())
                waiters: set[asyncio.Future[Any]] = {turn, quit_wait}
                await asyncio.wait(
                    waiters, timeout=view.redraw_seconds, return_when=asyncio.FIRST_COMPLETED
                )
                quit_wait.cancel()
                if view.redraw_seconds is not None:
                    view.update(now(), self.asking)
            if not turn.done():  # quitting mid-turn: the agent is stopped next
                turn.cancel()
            else:  # a ChatError (the agent died) ends the chat
                failure = self.link.turn_failure(turn.result())
        finally:
            self.link.listen(None)
            self.redraw, self.view = None, None
            # a turn that failed (the agent died, the connection was lost for good) did not
            # end: the stop reason in the session is the previous turn's
            ended = turn.done() and not turn.cancelled() and turn.exception() is None
            view.finish(now(ended=ended))
            self.turn = None
        return failure


async def run_interactive(
    args: argparse.Namespace, argv: list[str] | RemoteTarget, cwd: Path
) -> int:
    chat = Chat(args, argv, cwd)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, chat.interrupt)
    try:
        return await chat.run()
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        await chat.link.stop()
