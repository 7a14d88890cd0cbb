"""The `acp-codegen` command: generate, check, validate, vendor, diff."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .console import common_options
from .errors import SchemaError
from .exits import EXIT_OK, EXIT_USAGE
from .manifest import MANIFEST, Legacy
from .pipeline import load_protocol
from .protodiff import command as diff_command
from .render import Target
from .scaffold import command as new_command
from .sync import Job, apply, check, report_current
from .targets import UsageError, checked_folder, checked_package, expanded
from .vendor import add_vendor_parser, run_vendor
from .where import Where, command_line

FORCE_HELP = (
    "write even over files acp-codegen did not write or that were edited since it wrote them: "
    "edited files get the generated text back, files the manifest does not list are deleted "
    "(caches aside). A folder without an acp-codegen manifest is never taken over, even so."
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="acp-codegen",
        description="Generate typed Python bindings for the Agent Client Protocol.",
    )
    parser.add_argument("--version", action="version", version=f"acp-codegen {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    parents = [common_options()]
    for name, text in (
        (
            "generate",
            "write the generated package <out>/<package> and its manifest "
            "<out>/<package>/.acp-codegen-manifest.json (only files whose bytes change); "
            "refuses to touch files it did not write",
        ),
        ("check", "exit 1 with a diff when the generated tree on disk is out of date"),
    ):
        cmd = sub.add_parser(name, help=text, description=text, parents=parents)
        cmd.add_argument(
            "--schema",
            type=Path,
            help="schema file (default from [tool.acp-codegen], else the schema shipped with "
            "acp-codegen)",
        )
        cmd.add_argument(
            "--out", type=Path, help="output directory (default from [tool.acp-codegen])"
        )
        cmd.add_argument(
            "--package", help="generated package name (default from [tool.acp-codegen])"
        )
        cmd.add_argument(
            "--overlay",
            type=Path,
            help="overlay file with merge rules and patch fields for an input that lacks them "
            "(default: the built-in ACP v2 overlay for a v2 input without x-merge)",
        )
        if name == "generate":
            cmd.add_argument("--force", action="store_true", help=FORCE_HELP)
    val = sub.add_parser(
        "validate",
        help="report every problem in a schema",
        description="report every problem in a schema",
        parents=parents,
    )
    val.add_argument("path", type=Path)
    add_vendor_parser(sub, FORCE_HELP, parents)
    diff_command.add_command(sub, parents)
    new_command.add_command(sub, parents)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "diff":
        return diff_command.run(args)
    if args.command == "new":
        return new_command.run(args)
    try:
        if args.command == "validate":
            load_protocol(expanded(args.path))
            print(f"{args.path}: ok")
            return EXIT_OK
        if args.command == "vendor":
            return run_vendor(args)
        return _generate_or_check(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # disk full, permissions: the writer has put the old folder back
        print(f"error: {exc}; nothing was changed.", file=sys.stderr)
        return EXIT_USAGE
    except SchemaError as exc:
        for problem in exc.problems:
            print(f"error: {problem}", file=sys.stderr)
        print(f"{len(exc.problems)} problem(s); nothing written.", file=sys.stderr)
        return EXIT_USAGE


def _generate_or_check(args: argparse.Namespace) -> int:
    where = Where.from_cwd(args.schema, args.overlay)
    out = checked_folder(where.settings.out if args.out is None else args.out, "--out")
    package = checked_package(where.settings.package if args.package is None else args.package)
    folder = checked_folder(out / package, "--out/--package", replaced=True)
    command = command_line(
        ["acp-codegen", "generate"],
        where.schema_option(),
        ["--out", where.shown(out), "--package", package],
    )
    target = Target(package=package, command=command)
    shown = f"{where.shown(out)}/{package}"
    legacy = Legacy(out / MANIFEST, package)
    count = None if legacy.path.exists() else where.current_file_count(folder, target)
    if count is not None:
        return report_current(shown, count, checking=args.command == "check")
    job = Job(
        folder=folder,
        files=where.render(target),
        shown=shown,
        label=package,
        command=command,
        legacy=legacy,
    )
    if args.command == "check":
        return check(job)
    return apply(job, force=args.force)


if __name__ == "__main__":
    raise SystemExit(main())
