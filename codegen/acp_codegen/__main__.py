"""`python -m acp_codegen`: the same as the `acp-codegen` command."""

from .commands.cli import main

raise SystemExit(main())
