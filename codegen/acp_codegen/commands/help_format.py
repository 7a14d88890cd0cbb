"""How `--help` lays out a command's description and epilog: prose wrapped to the terminal,
tables and examples as written.

argparse either wraps everything (examples and tables run together) or nothing (a one-line
description runs past the edge of the terminal). Here a paragraph (text between blank lines) is
prose, wrapped, unless one of its lines is indented: then it is laid out by hand and kept."""

from __future__ import annotations

import argparse
import textwrap


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = text.split("\n\n")
        return "\n\n".join(
            (
                textwrap.indent(paragraph, indent)
                if any(line[:1].isspace() for line in paragraph.splitlines())
                else textwrap.fill(
                    " ".join(paragraph.split()),
                    width,
                    initial_indent=indent,
                    subsequent_indent=indent,
                )
            )
            for paragraph in paragraphs
        )
