"""Write the built-in ACP v2 overlay from the canonical schema.

    python scripts/update_overlay.py

`codegen/acp_codegen/load/overlays/acp-v2.json` holds the merge rules (`x-merge`, by update
tag) and patch fields (`x-tristate`, by type name) of `schema/acp.schema.json`, so inputs without
them (upstream's published files) get the same session-state behaviour. `tests/test_overlay.py`
fails when the two drift apart; run this after changing either annotation in the schema.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(REPO / "codegen"))

from acp_codegen.load.overlay import V2_OVERLAY, overlay_from_schema  # noqa: E402

SCHEMA = REPO / "schema" / "acp.schema.json"


def render() -> bytes:
    doc = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return (json.dumps(overlay_from_schema(doc), indent=2) + "\n").encode("utf-8")


def main() -> int:
    data = render()
    if V2_OVERLAY.is_file() and V2_OVERLAY.read_bytes() == data:
        print(f"{V2_OVERLAY.relative_to(REPO)}: up to date")
        return 0
    V2_OVERLAY.write_bytes(data)
    print(f"{V2_OVERLAY.relative_to(REPO)}: written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
