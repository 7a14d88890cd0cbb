"""The `acp-codegen` command: generate, check, validate, diff."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .config import find_pyproject, load_settings
from .errors import SchemaError
from .pipeline import load_protocol, render_tree
from .render import Target
from .writer import diff, plan, write

EXIT_OK, EXIT_DIFFERS, EXIT_SCHEMA = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="acp-codegen",
        description="Generate typed Python bindings for the Agent Client Protocol.",
    )
    parser.add_argument("--version", action="version", version=f"acp-codegen {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (
        ("generate", "write the generated package (only files whose bytes change)"),
        ("check", "exit 1 with a diff when the generated tree on disk is out of date"),
    ):
        cmd = sub.add_parser(name, help=text, description=text)
        cmd.add_argument(
            "--schema", type=Path, help="schema file (default from [tool.acp-codegen])"
        )
        cmd.add_argument(
            "--out", type=Path, help="output directory (default from [tool.acp-codegen])"
        )
        cmd.add_argument(
            "--package", help="generated package name (default from [tool.acp-codegen])"
        )
    val = sub.add_parser(
        "validate",
        help="report every problem in a schema",
        description="report every problem in a schema",
    )
    val.add_argument("path", type=Path)
    _add_diff_command(sub)
    return parser


def _add_diff_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    import textwrap

    from .protodiff.rules import LEGEND, rules_table

    text = "report what changed between two schemas and whether it breaks peers built on OLD"
    cmd = sub.add_parser(
        "diff",
        help=text,
        description=text + ". Exit 0: no breaking change; 1: some change is breaking; "
        "2: a schema cannot be read.",
        epilog="A change is breaking when a peer built on OLD fails against one built on NEW:\n\n"
        + rules_table()
        + "\n\n"
        + textwrap.fill(LEGEND, width=96),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cmd.add_argument("old", type=Path, metavar="OLD", help="the schema peers were built on")
    cmd.add_argument("new", type=Path, metavar="NEW", help="the schema to compare with")
    cmd.add_argument("--format", choices=("text", "json"), default="text")


def _diff(args: argparse.Namespace) -> int:
    from .protodiff import diff_files
    from .protodiff.render import as_json, as_text

    try:
        changes = diff_files(args.old, args.new)
    except SchemaError as exc:
        for problem in exc.problems:
            print(f"error: {problem}", file=sys.stderr)
        print(f"{len(exc.problems)} problem(s); nothing compared.", file=sys.stderr)
        return EXIT_SCHEMA
    render = as_json if args.format == "json" else as_text
    sys.stdout.write(render(changes, str(args.old), str(args.new)))
    return EXIT_DIFFERS if any(c.breaking for c in changes) else EXIT_OK


def _shown(path: Path, root: Path) -> str:
    """A path as the regenerate command should show it: relative to the project when inside it."""
    absolute = path.resolve()
    return absolute.relative_to(root).as_posix() if absolute.is_relative_to(root) else str(path)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "diff":
        return _diff(args)
    try:
        if args.command == "validate":
            load_protocol(args.path)
            print(f"{args.path}: ok")
            return EXIT_OK
        return _generate_or_check(args)
    except SchemaError as exc:
        for problem in exc.problems:
            print(f"error: {problem}", file=sys.stderr)
        print(f"{len(exc.problems)} problem(s); nothing written.", file=sys.stderr)
        return EXIT_SCHEMA


def _generate_or_check(args: argparse.Namespace) -> int:
    cwd = Path.cwd()
    settings = load_settings(cwd)
    schema = args.schema or settings.schema
    out = args.out or settings.out
    package = args.package or settings.package
    pyproject = find_pyproject(cwd)
    root = (pyproject.parent if pyproject else cwd).resolve()
    command = shlex.join(
        [
            "acp-codegen",
            "generate",
            "--schema",
            _shown(schema, root),
            "--out",
            _shown(out, root),
            "--package",
            package,
        ]
    )
    protocol = load_protocol(schema, _shown(schema, root))
    for note in protocol.notes:
        print(f"note: {note}", file=sys.stderr)
    files = render_tree(protocol, Target(package=package, command=command))
    if args.command == "check":
        todo = plan(out, files, package)
        if todo.clean:
            print(f"{_shown(out, root)}: up to date")
            return EXIT_OK
        sys.stdout.write(diff(out, files, todo))
        print(
            f"\n{_shown(out, root)} is out of date: {len(todo.changed)} changed, "
            f"{len(todo.missing)} missing, {len(todo.extra)} extra file(s).",
            f"\nFix it with: {command}",
            file=sys.stderr,
        )
        return EXIT_DIFFERS
    done = write(out, files, package)
    written = len(done.changed) + len(done.missing)
    unchanged = len(files) - written
    print(
        f"{_shown(out, root)}/{package}: {written + len(done.extra)} file(s) changed, "
        f"{unchanged} unchanged ({written} written, {len(done.extra)} removed)"
    )
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
