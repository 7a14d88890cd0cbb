"""The `acp-codegen diff` subcommand: its arguments, help text and exit status."""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

from ...model.errors import SchemaError
from ..console import RED, Console
from ..exits import EXIT_DIFFERS as EXIT_BREAKING
from ..exits import EXIT_OK
from ..exits import EXIT_USAGE as EXIT_SCHEMA
from ..help_format import HelpFormatter
from . import diff_files
from .render import as_json, as_text
from .rules import LEGEND, rules_table


def add_command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: list[argparse.ArgumentParser],
) -> None:
    text = "report what changed between two schemas and whether it breaks peers built on OLD"
    cmd = sub.add_parser(
        "diff",
        help=text,
        description=f"{text}. Exit 0: no breaking change; 1: some change is breaking; "
        "2: a schema cannot be read.",
        epilog="A change is breaking when a peer built on OLD fails against one built on NEW:\n\n"
        + rules_table()
        + "\n\n"
        + textwrap.fill(LEGEND, width=96),
        formatter_class=HelpFormatter,
        parents=parents,
    )
    cmd.add_argument("old", type=Path, metavar="OLD", help="the schema peers were built on")
    cmd.add_argument("new", type=Path, metavar="NEW", help="the schema to compare with")
    cmd.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text for people (default), json for machines (shape in docs/diff.md)",
    )


def run(args: argparse.Namespace) -> int:
    console = Console.from_args(args)
    try:
        console.step(f"old: {args.old}")
        console.step(f"new: {args.new}")
        changes = diff_files(args.old, args.new)
    except SchemaError as exc:
        for problem in exc.problems:
            console.error(str(problem))
        console.explain(f"{len(exc.problems)} problem(s); nothing compared.")
        return EXIT_SCHEMA
    breaking = sum(c.breaking for c in changes)
    console.step(f"{len(changes)} change(s), {breaking} breaking")
    if args.format == "json":
        console.result(as_json(changes, str(args.old), str(args.new)))
    else:
        console.result(as_text(changes, str(args.old), str(args.new)), marks={"BREAKING": RED})
    return EXIT_BREAKING if breaking else EXIT_OK
