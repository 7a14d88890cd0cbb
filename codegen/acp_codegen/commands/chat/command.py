"""`acp-codegen chat [options] -- AGENT_CMD [ARGS...]` (or `--url URL` for an agent served
remotely): talk to an agent from a terminal, or run one prompt (`--prompt`) for scripts and CI."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ..console import Console
from ..exits import EXIT_INTERRUPTED, EXIT_USAGE
from ..help_format import HelpFormatter
from .command_env import ALLOW_OPTION, AllowedEnv
from .remote import add_remote_options, agent_target

NAME = "chat"
TEXT = (
    "talk to an ACP agent: start AGENT_CMD, open a session and prompt it interactively, or "
    "run one --prompt and exit 0 when the turn ends with end_turn, 1 otherwise"
)
KEYS = """\
in the chat:
  Ctrl-C        cancel the running turn; again, or when idle, quit (stopping the agent)
  Ctrl-D        quit
  /?            list the agent's slash commands and chat's own
  /quit, /exit  quit (unless the agent lists a command of that name)
  1-9, a-z      answer a permission question with the option of that key

the live view needs acp-codegen's [chat] extra (rich), e.g. pip install
"/path/to/acp-codegen[chat]"; without it the chat is written as plain text.
"""


def add_command(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """The `chat` subcommand on the CLI's subparsers (`sub`: argparse's subparsers action)."""
    cmd = agent_command_parser(
        sub,
        parents,
        NAME,
        TEXT,
        KEYS,
        "acp-codegen chat [options] (-- AGENT_CMD [ARGS...] | --url URL)",
    )
    add_remote_options(cmd)
    cmd.add_argument(
        "--prompt", metavar="TEXT", help="send TEXT as one turn, print it as plain text, exit"
    )
    cmd.add_argument(
        "--approve",
        action="store_true",
        help="with --prompt: answer permission requests with their first allow option "
        "(without it they are answered cancelled)",
    )
    cmd.add_argument(
        "--trace",
        type=Path,
        metavar="FILE",
        default=env_trace(),
        help="append the JSON-RPC traffic to FILE as JSON lines (default: $ACP_TRACE)",
    )


def agent_command_parser(
    sub: Any, parents: list[argparse.ArgumentParser], name: str, text: str, epilog: str, usage: str
) -> argparse.ArgumentParser:
    """A subcommand that starts an agent given after `--` (chat, inspect)."""
    cmd: argparse.ArgumentParser = sub.add_parser(
        name,
        help=text,
        description=text,
        epilog=epilog,
        formatter_class=HelpFormatter,
        parents=parents,
        usage=usage,
    )
    cmd.add_argument("agent", nargs="*", metavar="AGENT_CMD", help="the agent's command line")
    cmd.add_argument(
        "--cwd",
        type=Path,
        metavar="DIR",
        help="the session's working directory (default: the current directory); a v1 "
        "agent's files are served under it, and an agent reached by --url reads there without "
        "being asked only when --cwd is given",
    )
    cmd.add_argument(
        ALLOW_OPTION,
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="let a v1 agent's command set the environment variable NAME (with any value, or "
        "only VALUE), one refused by default because it makes another program run (PATH, "
        "LD_PRELOAD, BASH_ENV, GIT_*, PYTHON*, PAGER, ...); repeatable. The command is still "
        "asked about, the variable shown",
    )
    return cmd


def allowed_env(args: argparse.Namespace) -> AllowedEnv:
    """What `--allow-env` let through (ValueError names a malformed entry)."""
    return AllowedEnv.parse(args.allow_env)


def session_cwd(args: argparse.Namespace) -> Path | None:
    """The session's working directory (`--cwd`, else the current one); None if no folder."""
    cwd: Path = (args.cwd or Path.cwd()).resolve()
    return cwd if cwd.is_dir() else None


def env_trace() -> Path | None:
    """The trace file `ACP_TRACE` names, if any."""
    value = os.environ.get("ACP_TRACE")
    return Path(value) if value else None


def run(args: argparse.Namespace) -> int:
    try:
        argv = agent_target(args)
        allowed_env(args)
    except ValueError as problem:
        return usage_error(str(problem))
    if not argv:
        return usage_error("give the agent's command after --, e.g. acp-codegen chat -- ./agent.py")
    cwd = session_cwd(args)
    if cwd is None:
        return usage_error(f"--cwd {args.cwd}: not a directory")
    if args.approve and args.prompt is None:
        return usage_error("--approve only applies with --prompt (interactively you answer by key)")
    if args.prompt is None and not sys.stdin.isatty():
        return usage_error("stdin is not a terminal: pass --prompt TEXT to run one turn")
    # The bindings and asyncio take a moment to import: only `chat` pays for them.
    import asyncio

    from .link import ChatError
    from .unhandled import escape_unhandled_output

    escape_unhandled_output()

    try:
        if args.prompt is not None:
            from .oneshot import run_once

            return asyncio.run(run_once(args, argv, cwd))
        from .interactive import run_interactive

        return asyncio.run(run_interactive(args, argv, cwd))
    except ChatError as error:
        Console().error(str(error))
        return error.code
    except KeyboardInterrupt:  # Ctrl-C with --prompt (interactively it cancels the turn)
        Console().explain("interrupted")
        return EXIT_INTERRUPTED


def usage_error(message: str) -> int:
    """Say what is wrong with the command line; the usage exit code."""
    Console().error(message)
    return EXIT_USAGE
