"""The `acp-codegen` command: generate, check, validate, vendor, diff."""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from ..emit.target import Target
from ..model.errors import SchemaError
from ..write.manifest import MANIFEST, Legacy
from .chat import command as chat_command
from .console import NORMAL, Console, common_options
from .diff import command as diff_command
from .examples import EXAMPLES, add_examples
from .exits import EXIT_HELP, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from .help_format import HelpFormatter
from .inspect import command as inspect_command
from .scaffold import command as new_command
from .shipped import add_shipped_parsers, run_demo, run_schema
from .sync import Job, apply, check, report_current
from .targets import UsageError, checked_folder, checked_package, expanded
from .vendor import add_vendor_parser, run_vendor
from .where import Where, command_line

FORCE_HELP = (
    "write even over files acp-codegen did not write or that were edited since it wrote them: "
    "edited files get the generated text back, files the manifest does not list are deleted "
    "(caches aside). A folder without an acp-codegen manifest is never taken over, even so."
)
OVERLAY_HELP = (
    "overlay file with merge rules and patch fields for an input that lacks them "
    "(default: the built-in ACP v2 overlay for a v2 input without x-merge)"
)
V1_SCHEMA_HELP = (
    "the ACP v1 schema, generated beside the main one as the subpackage <package>.v1 "
    "(default from [tool.acp-codegen] v1-schema, else the v1 schema shipped with acp-codegen when "
    "the main one is the shipped one too; a lone --schema makes a single-version package)"
)
UNSTABLE_HELP = (
    "also generate upstream's unstable methods, fields and capabilities (fork, titles, archive, "
    "status, providers, auth status, MCP over ACP, proxies), each marked unstable "
    "(default from [tool.acp-codegen] unstable = true)"
)
STAT_HELP = "one line per differing file with +/- counts and a total, instead of the diff"
SCHEMA_HELP = (
    "schema file (default from [tool.acp-codegen], else the schema shipped with acp-codegen)"
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="acp-codegen",
        description="Generate typed Python bindings for the Agent Client Protocol.",
        epilog=EXIT_HELP,
        formatter_class=HelpFormatter,
        parents=[common_options("global_verbosity")],
        usage="acp-codegen [-h] [-q | -v] [--version] COMMAND ...",
    )
    parser.add_argument("--version", action="version", version=f"acp-codegen {__version__}")
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", prog="acp-codegen"
    )
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
        cmd.add_argument("--schema", type=Path, help=SCHEMA_HELP)
        cmd.add_argument("--v1-schema", type=Path, metavar="FILE", help=V1_SCHEMA_HELP)
        cmd.add_argument(
            "--out",
            type=Path,
            metavar="DIR",
            help="output directory (default from [tool.acp-codegen], else ./generated)",
        )
        cmd.add_argument(
            "--package",
            metavar="NAME",
            help="generated package name, a Python identifier (default from [tool.acp-codegen], "
            "else acp_bindings)",
        )
        cmd.add_argument("--overlay", type=Path, help=OVERLAY_HELP)
        cmd.add_argument("--unstable", action="store_true", help=UNSTABLE_HELP)
        if name == "generate":
            cmd.add_argument("--force", action="store_true", help=FORCE_HELP)
        else:
            cmd.add_argument("--stat", action="store_true", help=STAT_HELP)
    val = sub.add_parser(
        "validate",
        help="report every problem in a schema",
        description="report every problem in a schema",
        parents=parents,
    )
    val.add_argument(
        "path", type=Path, metavar="PATH", help="the schema file to check (JSON Schema of ACP)"
    )
    val.add_argument("--overlay", type=Path, help=OVERLAY_HELP)
    add_vendor_parser(sub, FORCE_HELP, OVERLAY_HELP, parents, V1_SCHEMA_HELP, UNSTABLE_HELP)
    add_shipped_parsers(sub, parents)
    diff_command.add_command(sub, parents)
    chat_command.add_command(sub, parents)
    inspect_command.add_command(sub, parents)
    new_command.add_command(sub, parents)
    for name in EXAMPLES:
        add_examples(sub.choices[name], name)
    return parser


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Each subcommand's own parser, by name (to report a bad option in its usage)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line, with `-q`/`-v` accepted before the subcommand too, and an unknown
    option reported in the usage of the subcommand it was given to."""
    parser = _parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        subcommands(parser)[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    if getattr(args, "verbosity", NORMAL) == NORMAL:
        args.verbosity = args.global_verbosity
    return args


def console_main() -> int:
    """The `acp-codegen` command (and `python -m acp_codegen`): `main`, in a process that ends
    right after. What is alive then is frozen out of the collector first, so the interpreter's
    collection on the way out does not walk every object a full generate built (~0.15 s of CPU).
    Files are written and closed and children waited for by then; only a process about to exit
    may do this, so tests and other callers use `main`."""
    code = main()
    gc.freeze()
    return code


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _run(parse(argv))
    except KeyboardInterrupt:
        # Writing is atomic (see writer.py), so an interrupted run leaves nothing half-written.
        print("acp-codegen: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _run(args: argparse.Namespace) -> int:
    if args.command == "schema":
        return run_schema(args)
    if args.command == "demo-agent":
        return run_demo(args)
    if args.command == "diff":
        return diff_command.run(args)
    if args.command == "new":
        return new_command.run(args)
    if args.command == "chat":
        return chat_command.run(args)
    if args.command == "inspect":
        return inspect_command.run(args)
    console = Console.from_args(args)
    started = time.perf_counter()
    try:
        if args.command == "validate":
            return _validate(args, console)
        if args.command == "vendor":
            return run_vendor(args)
        return _generate_or_check(args, console)
    except UsageError as exc:
        console.error(str(exc))
        return EXIT_USAGE
    except OSError as exc:  # disk full, permissions: the writer has put the old folder back
        console.error(f"{exc}; nothing was changed.")
        return EXIT_USAGE
    except SchemaError as exc:
        for problem in exc.problems:
            console.error(str(problem))
        done = "" if args.command == "validate" else "; nothing written"
        console.explain(f"{len(exc.problems)} problem(s){done}.")
        return EXIT_USAGE
    finally:
        console.step(f"{args.command}: {time.perf_counter() - started:.2f}s")


def _validate(args: argparse.Namespace, console: Console) -> int:
    overlay = None if args.overlay is None else expanded(args.overlay)
    console.step(f"schema: {args.path}" + (f", overlay: {overlay}" if overlay else ""))
    from .pipeline import load_protocol  # with the renderer: a no-op generate needs neither

    protocol = load_protocol(expanded(args.path), overlay=overlay)
    for note in protocol.notes:
        console.note(note)
    console.info(f"{args.path}: ok")
    return EXIT_OK


def _generate_or_check(args: argparse.Namespace, console: Console) -> int:
    where = Where.from_cwd(args.schema, args.overlay, console, args.v1_schema, args.unstable)
    if args.out is None:
        where.settings.inside("out")
    out = checked_folder(where.settings.out if args.out is None else args.out, "--out")
    package = checked_package(where.settings.package if args.package is None else args.package)
    folder = checked_folder(out / package, "--out/--package", replaced=True)
    where = where.rooted_at(folder, named=("--out", out))
    command = command_line(
        ["acp-codegen", "generate"],
        where.schema_option(),
        ["--out", where.shown(out), "--package", package],
    )
    target = Target(package=package, command=command)
    shown = f"{where.displayed(out)}/{package}"
    legacy = Legacy(out / MANIFEST, package)
    count = None if legacy.path.exists() else where.current_file_count(folder, target)
    if count is not None:
        return report_current(shown, count, checking=args.command == "check", console=console)
    job = Job(
        folder=folder,
        files=where.render(target),
        shown=shown,
        label=package,
        command=command,
        legacy=legacy,
    )
    if args.command == "check":
        return check(job, console=console, summary=args.stat)
    return apply(job, force=args.force, console=console)


if __name__ == "__main__":
    raise SystemExit(main())
