"""The exit codes every `acp-codegen` command uses (documented in the README)."""

from __future__ import annotations

EXIT_OK = 0
# `check`/`vendor --check`: the tree differs; `diff`: a breaking change; `chat --prompt`: the turn
# did not end with `end_turn`.
EXIT_DIFFERS = 1
# A schema that cannot be used, or a command-line value that cannot work (never a traceback).
EXIT_USAGE = 2
# Ctrl-C: the shell's convention, 128 + SIGINT.
EXIT_INTERRUPTED = 130

# The table `acp-codegen --help` ends with (the README has the same table).
EXIT_HELP = f"""exit status:
  {EXIT_OK}  done: written, up to date, valid, no breaking change
  {EXIT_DIFFERS}  out of date (check, vendor --check), refused to overwrite your files,
     a breaking change (diff), a turn that did not end with end_turn (chat --prompt)
  {EXIT_USAGE}  a schema that cannot be used, a bad option or argument, a failed write
  {EXIT_INTERRUPTED}  interrupted (Ctrl-C); nothing half-written is left behind"""
