"""How much every command prints (`--quiet`, `--verbose`) and how: one place for output.

Levels: QUIET prints only errors and what the command exists to print (a diff, a report);
NORMAL adds the usual one-line results and notes; VERBOSE adds the steps. Steps, notes and
errors go to stderr, results to stdout, so `--verbose` never changes what a pipe receives.
Colour (ANSI) only on a terminal, never with NO_COLOR set, always with FORCE_COLOR set.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import sys
from collections.abc import Mapping
from typing import TextIO

from ..model.shown import visible

QUIET, NORMAL, VERBOSE = 0, 1, 2

RED, GREEN, YELLOW, CYAN, BOLD = "31", "32", "33", "36", "1"


def common_options(dest: str = "verbosity") -> argparse.ArgumentParser:
    """A parent parser for every subcommand (and the top level, where `dest` differs so a
    subcommand's default does not override it): `args.<dest>` is QUIET, NORMAL or VERBOSE."""
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_mutually_exclusive_group()
    group.add_argument(
        "-q",
        "--quiet",
        dest=dest,
        action="store_const",
        const=QUIET,
        default=NORMAL,
        help="print only errors (and what the command exists to print, such as a diff)",
    )
    group.add_argument(
        "-v",
        "--verbose",
        dest=dest,
        action="store_const",
        const=VERBOSE,
        help="also print what the command does step by step",
    )
    return parent


def wants_colour(stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """Colour for `stream`: NO_COLOR (any non-empty value) wins, then FORCE_COLOR (non-empty,
    not "0"), then a dumb terminal says no, else only when the stream is a terminal."""
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR", "0") not in ("", "0"):
        return True
    if env.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def paint(text: str, code: str) -> str:
    return f"\033[{code}m{text}\033[0m"


_DIFF_COLOURS = (("+++", BOLD), ("---", BOLD), ("@@", CYAN), ("+", GREEN), ("-", RED))


def paint_diff_line(line: str) -> str:
    """One line of a unified diff, coloured as git colours it (the newline left outside)."""
    body = line.rstrip("\n")
    for prefix, code in _DIFF_COLOURS:
        if body.startswith(prefix):
            return paint(body, code) + line[len(body) :]
    return line


_STAT_ROW = re.compile(r"^(.* \| +\d+ )(\+*)(-*)$")


def _paint_stat_line(line: str) -> str:
    """` path | 12 +++--`: the pluses green, the minuses red."""
    body = line.rstrip("\n")
    row = _STAT_ROW.match(body)
    if row is None:
        return line
    head, plus, minus = row.groups()
    painted = (paint(plus, GREEN) if plus else "") + (paint(minus, RED) if minus else "")
    return head + painted + line[len(body) :]


class Console:
    """Where a command's output goes. Streams are looked up when written to (so a test's
    captured streams are honoured); colour is decided per stream."""

    def __init__(
        self,
        verbosity: int = NORMAL,
        *,
        out: TextIO | None = None,
        err: TextIO | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.verbosity = verbosity
        self._out = out
        self._err = err
        self._environ = environ

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Console:
        return cls(getattr(args, "verbosity", NORMAL))

    @property
    def out(self) -> TextIO:
        return self._out or sys.stdout

    @property
    def err(self) -> TextIO:
        return self._err or sys.stderr

    @property
    def verbose(self) -> bool:
        return self.verbosity >= VERBOSE

    def colour(self, stream: TextIO) -> bool:
        return wants_colour(stream, self._environ)

    # stdout: what the command is for (every level), then the usual results (NORMAL and up)
    def result(self, text: str, marks: Mapping[str, str] | None = None) -> None:
        """Text the command exists to print (a report), at every level; on a terminal each word
        in `marks` is painted in its colour (e.g. {"BREAKING": RED})."""
        text = visible(text)
        if marks and self.colour(self.out):
            for word, code in marks.items():
                text = text.replace(word, paint(word, code))
        _write(self.out, text)

    def diff(self, text: str) -> None:
        """A unified diff, at every level; coloured line by line on a terminal. The files on
        disk may hold anything: what they hold is shown escaped (see `model.shown`)."""
        text = visible(text)
        if self.colour(self.out):
            text = "".join(paint_diff_line(line) for line in text.splitlines(keepends=True))
        _write(self.out, text)

    def stat(self, text: str) -> None:
        """A `--stat` summary (see diffstat.py), at every level; bars coloured on a terminal."""
        text = visible(text)
        if self.colour(self.out):
            text = "".join(_paint_stat_line(line) for line in text.splitlines(keepends=True))
        _write(self.out, text)

    def info(self, line: str) -> None:
        """A one-line result such as "up to date" (not with --quiet)."""
        if self.verbosity >= NORMAL:
            _write(self.out, visible(line) + "\n")

    # stderr: errors (every level), notes (NORMAL and up), steps (VERBOSE)
    def error(self, message: str) -> None:
        self._labelled("error", RED, message)

    def warning(self, message: str) -> None:
        if self.verbosity >= NORMAL:
            self._labelled("warning", YELLOW, message)

    def note(self, message: str) -> None:
        if self.verbosity >= NORMAL:
            self._labelled("note", YELLOW, message)

    def explain(self, line: str) -> None:
        """A line that belongs to an error (which files, how to fix it): every level."""
        _write(self.err, visible(line) + "\n")

    def step(self, line: str) -> None:
        """What the command is doing, one line per step (only with --verbose)."""
        if self.verbose:
            _write(self.err, visible(line) + "\n")

    def _labelled(self, label: str, code: str, message: str) -> None:
        shown = paint(f"{label}:", code) if self.colour(self.err) else f"{label}:"
        _write(self.err, f"{shown} {visible(message)}\n")


def _write(stream: TextIO, text: str) -> None:
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        # The reader went away (`acp-codegen check | head`): drop the rest quietly, as git
        # does, instead of a traceback now and another when Python flushes at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, stream.fileno())
        except (OSError, ValueError, io.UnsupportedOperation):
            pass
        finally:
            os.close(devnull)
