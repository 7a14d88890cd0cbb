"""Options every command shares: how much to print (`--quiet`, `--verbose`)."""

from __future__ import annotations

import argparse

QUIET, NORMAL, VERBOSE = 0, 1, 2


def common_options() -> argparse.ArgumentParser:
    """A parent parser for every subcommand: `args.verbosity` is QUIET, NORMAL or VERBOSE."""
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_mutually_exclusive_group()
    group.add_argument(
        "-q",
        "--quiet",
        dest="verbosity",
        action="store_const",
        const=QUIET,
        default=NORMAL,
        help="print only errors (and what the command exists to print, such as a diff)",
    )
    group.add_argument(
        "-v",
        "--verbose",
        dest="verbosity",
        action="store_const",
        const=VERBOSE,
        help="also print what the command does step by step",
    )
    return parent
