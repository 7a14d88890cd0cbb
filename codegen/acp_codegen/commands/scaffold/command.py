"""`acp-codegen new agent NAME [--dir DIR]`: start a new agent project."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...model.errors import SchemaError
from ..console import Console
from ..exits import EXIT_OK, EXIT_USAGE
from ..targets import UsageError, checked_folder
from .names import checked_name

if TYPE_CHECKING:
    from .project import Layout

TEXT = "start a new project"
AGENT_TEXT = (
    "create an ACP agent project in DIR (default ./NAME): a package with the bindings vendored "
    "inside it, a small working agent, its tests and a README; NAME with '-' for '_' is the "
    "package, NAME the console script"
)


def add_command(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """`new` on the CLI's subparsers (`sub`: argparse's subparsers action), with `agent` below."""
    new: argparse.ArgumentParser = sub.add_parser("new", help=TEXT, description=TEXT)
    kinds = new.add_subparsers(dest="kind", required=True, metavar="KIND")
    agent: argparse.ArgumentParser = kinds.add_parser(
        "agent", help=AGENT_TEXT, description=AGENT_TEXT, parents=parents
    )
    agent.add_argument("name", metavar="NAME", help="project name, e.g. my-agent")
    agent.add_argument(
        "--dir", type=Path, metavar="DIR", help="folder to create (absent or empty; default ./NAME)"
    )
    agent.add_argument(
        "--unstable",
        action="store_true",
        help="vendor the bindings with upstream's unstable surface too (generate --unstable): "
        "the agent serves session/fork, session/set_title, archive and status, and a test "
        "drives them",
    )


def run(args: argparse.Namespace) -> int:
    # Imported here: it renders the bindings (jinja, datamodel-code-generator, black), which
    # other commands, a no-op `generate` first, should not pay for at start.
    from .project import Layout, create

    console = Console.from_args(args)
    try:
        project = checked_name(args.name)
        where = checked_folder(args.dir or Path(args.name), "--dir", replaced=True)
        layout = Layout(project, unstable=args.unstable)
        files = create(layout, where)
    except UsageError as exc:
        console.error(str(exc))
        return EXIT_USAGE
    except SchemaError as exc:  # the shipped schema is broken: an install problem
        for problem in exc.problems:
            console.error(str(problem))
        return EXIT_USAGE
    except OSError as exc:
        console.error(f"{exc}; nothing was written.")
        return EXIT_USAGE
    _print_next_steps(console, where, layout, files)
    return EXIT_OK


def _print_next_steps(console: Console, where: Path, layout: Layout, files: list[str]) -> None:
    console.info(f"Created {where} ({len(files)} files, bindings in {layout.bindings_dir}).")
    console.info("Next:")
    for line in (
        f"cd {shlex.quote(str(where))}",
        # No `activate`: it would hide this acp-codegen, which the last line needs.
        "python3 -m venv .venv",
        '.venv/bin/pip install -e ".[test]"',
        ".venv/bin/python -m pytest",
        f"acp-codegen chat -- .venv/bin/{layout.project.name}",
    ):
        console.info(f"  {line}")
