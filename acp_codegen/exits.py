"""The exit codes every `acp-codegen` command uses (documented in the README)."""

from __future__ import annotations

EXIT_OK = 0
# `check`/`vendor --check`: the tree differs; `diff`: a breaking change; `chat --prompt`: the turn
# did not end with `end_turn`.
EXIT_DIFFERS = 1
# A schema that cannot be used, or a command-line value that cannot work (never a traceback).
EXIT_USAGE = 2
