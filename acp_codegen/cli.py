"""The `acp-codegen` command: generate, check, validate."""

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
        cmd.add_argument(
            "--overlay",
            type=Path,
            help="overlay file with merge rules and patch fields for an input that lacks them "
            "(default: the built-in ACP v2 overlay for a v2 input without x-merge)",
        )
    val = sub.add_parser(
        "validate",
        help="report every problem in a schema",
        description="report every problem in a schema",
    )
    val.add_argument("path", type=Path)
    return parser


def _shown(path: Path, root: Path) -> str:
    """A path as the regenerate command should show it: relative to the project when inside it."""
    absolute = path.resolve()
    return absolute.relative_to(root).as_posix() if absolute.is_relative_to(root) else str(path)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
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
            *(["--overlay", _shown(args.overlay, root)] if args.overlay else []),
        ]
    )
    protocol = load_protocol(schema, _shown(schema, root), args.overlay)
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
