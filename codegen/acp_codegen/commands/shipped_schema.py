"""`acp-codegen schema`: the schema shipped inside acp-codegen, printed or written to a file, so
every example works after `pip install` without a clone."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..paths import BUNDLED_SCHEMA
from .console import Console
from .exits import EXIT_OK, EXIT_USAGE
from .targets import expanded

TEXT = "print the ACP schema shipped with acp-codegen (the default input of generate)"


def add_schema_parser(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    cmd: argparse.ArgumentParser = sub.add_parser(
        "schema", help=TEXT, description=TEXT, parents=parents
    )
    cmd.add_argument(
        "--write",
        type=Path,
        metavar="FILE",
        help="write it to FILE instead of stdout (refuses to replace an existing file)",
    )


def run_schema(args: argparse.Namespace) -> int:
    console = Console.from_args(args)
    data = BUNDLED_SCHEMA.read_bytes()
    if args.write is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return EXIT_OK
    path = expanded(args.write)
    try:
        with path.open("xb") as handle:  # never replaces a file of the user's
            handle.write(data)
    except OSError as exc:
        console.error(f"--write {path}: {exc.strerror or exc}; nothing written")
        return EXIT_USAGE
    console.info(f"wrote {path}")
    return EXIT_OK
