"""`python -m acp_codegen`: the same as the `acp-codegen` command."""

from .commands.cli import console_main

raise SystemExit(console_main())
