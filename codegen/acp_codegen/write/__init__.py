"""Writing: a rendered tree onto disk, safely (stage then swap, a lock per folder, owned files
only, by the manifest), the input fingerprint that skips a no-op run, and diffs for `check`.
May import `emit`, `load` and `model`."""
