"""The commands on top: the CLI and its settings, `generate`/`check`/`vendor`, `diff`, `new
agent` and `chat`, with the console they report through. May import every stage below."""
