"""The examples each subcommand's `--help` ends with: runnable as written after `pip install`
(the shipped schema and example agent are reached through the tool itself)."""

from __future__ import annotations

import argparse

from .help_format import HelpFormatter

EXAMPLES: dict[str, tuple[str, ...]] = {
    "generate": (
        "acp-codegen generate    # the shipped schema into ./generated/acp_bindings",
        "acp-codegen generate --schema my.schema.json --out src --package my_acp",
    ),
    "check": (
        "acp-codegen check       # in CI: exit 1 with a diff when out of date",
        "acp-codegen check --stat",
    ),
    "validate": (
        "acp-codegen schema --write acp.schema.json && acp-codegen validate acp.schema.json",
    ),
    "vendor": (
        "acp-codegen vendor --into src/myproj/acp --package myproj.acp",
        "acp-codegen vendor --into src/myproj/acp --package myproj.acp --check",
    ),
    "diff": ("acp-codegen diff old.schema.json new.schema.json --format json",),
    "chat": (
        "acp-codegen chat -- acp-codegen demo-agent --slow 0.3",
        'acp-codegen chat --prompt "hello there" --approve -- acp-codegen demo-agent',
        "ACP_TOKEN=TOKEN acp-codegen chat --url http://127.0.0.1:8000/   # token from the env",
    ),
    "demo-agent": (
        "acp-codegen chat -- acp-codegen demo-agent --slow 0.3",
        "ACP_TOKEN=TOKEN acp-codegen demo-agent --http 127.0.0.1:8000",
    ),
    "inspect": (
        "acp-codegen inspect -- acp-codegen demo-agent --slow 0.3",
        "ACP_TOKEN=TOKEN acp-codegen inspect --url http://127.0.0.1:8000/",
        "acp-codegen inspect --trace session.trace.jsonl",
    ),
    "schema": (
        "acp-codegen schema > acp.schema.json    # the schema shipped with acp-codegen",
        "acp-codegen schema --write acp.schema.json",
    ),
    "new": ("acp-codegen new agent my-agent",),
}


def add_examples(parser: argparse.ArgumentParser, name: str) -> None:
    """End `parser`'s help with the examples for the subcommand `name` (kept before any epilog
    it already has)."""
    lines = "\n".join(f"  {line}" for line in EXAMPLES[name])
    text = f"example{'s' if len(EXAMPLES[name]) > 1 else ''}:\n{lines}"
    parser.epilog = text if not parser.epilog else f"{text}\n\n{parser.epilog}"
    parser.formatter_class = HelpFormatter
