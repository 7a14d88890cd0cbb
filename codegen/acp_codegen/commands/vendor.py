"""`acp-codegen vendor`: the bindings written straight into a folder of the user's project,
importable under a dotted name of their choosing (the generated code imports itself relatively
and never names itself). Writing goes through the same writer as `generate`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..emit.target import Target
from .console import Console
from .sync import Job, apply, check, report_current
from .targets import UsageError, checked_folder, checked_package
from .where import Where, command_line

TEXT = (
    "write the bindings into DIR, importable as DOTTED.NAME, with a manifest "
    "(DIR/.acp-codegen-manifest.json); files you edited are never overwritten without --force"
)


def add_vendor_parser(
    sub: Any,
    force_help: str,
    overlay_help: str,
    parents: list[argparse.ArgumentParser],
    v1_schema_help: str,
    unstable_help: str = "",
) -> None:
    """The `vendor` subcommand on the CLI's subparsers (`sub`: argparse's subparsers action)."""
    cmd: argparse.ArgumentParser = sub.add_parser(
        "vendor",
        help=TEXT,
        description=TEXT,
        parents=parents,
        usage="acp-codegen vendor --into DIR --package DOTTED.NAME [options]",
    )
    cmd.add_argument(
        "--into", type=Path, required=True, metavar="DIR", help="the package folder to write"
    )
    cmd.add_argument(
        "--package",
        required=True,
        metavar="DOTTED.NAME",
        help="the name DIR is imported as, e.g. myproj._vendor.acp",
    )
    cmd.add_argument(
        "--schema",
        type=Path,
        help="schema file (default from [tool.acp-codegen], else the schema shipped with "
        "acp-codegen)",
    )
    cmd.add_argument("--v1-schema", type=Path, metavar="FILE", help=v1_schema_help)
    cmd.add_argument("--overlay", type=Path, help=overlay_help)
    cmd.add_argument("--unstable", action="store_true", help=unstable_help)
    cmd.add_argument("--force", action="store_true", help=force_help)
    cmd.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 with a diff when DIR is not what vendoring would write, "
        "0 when it is (for CI)",
    )
    cmd.add_argument(
        "--stat",
        action="store_true",
        help="with --check: one line per differing file with +/- counts instead of the diff",
    )


def run_vendor(args: argparse.Namespace) -> int:
    if args.stat and not args.check:
        raise UsageError("--stat only goes with --check")
    console = Console.from_args(args)
    where = Where.from_cwd(args.schema, args.overlay, console, args.v1_schema, args.unstable)
    package = checked_package(args.package, dotted=True)
    into = checked_folder(args.into, "--into", replaced=True)
    where = where.rooted_at(into, named=("--into", into))
    _note_import_path(into, package, console)
    command = command_line(
        ["acp-codegen", "vendor", "--into", where.shown(into), "--package", package],
        where.schema_option(),
    )
    target = Target(package=package, command=command)
    shown = where.displayed(into)
    count = where.current_file_count(into, target)
    if count is not None:
        return report_current(shown, count, checking=args.check, console=console)
    job = Job(folder=into, files=where.render(target), shown=shown, label=shown, command=command)
    if args.check:
        return check(job, console=console, summary=args.stat)
    return apply(job, force=args.force, console=console)


def _note_import_path(into: Path, package: str, console: Console) -> None:
    """The folder only imports as `package` if its path ends in the name's parts (unless the
    project maps packages elsewhere): say so early rather than at the user's first import."""
    parts = package.split(".")
    tail = into.resolve().parts[-len(parts) :]
    if list(tail) != parts:
        console.note(
            f"{into} does not end in {'/'.join(parts)}; make sure it is importable as {package}"
        )
