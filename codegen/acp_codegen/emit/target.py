"""What a render is for: the package name and the command that regenerates it.

Apart from the renderer (black, jinja, datamodel-code-generator): a no-op `generate` or `check`
needs only this to compare a folder's fingerprint, and should not pay for importing the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

SUBPACKAGE_V1 = "v1"  # where a package carrying both protocols keeps v1's modules


@dataclass(frozen=True, slots=True)
class Target:
    package: str
    command: str  # the command that regenerates this tree, quoted in every header
