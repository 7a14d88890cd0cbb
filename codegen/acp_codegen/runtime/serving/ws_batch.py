"""Several of the agent's messages as WebSocket text frames in one write (ws_server.py's pump).

aiohttp writes each frame it sends to the socket on its own: a system call per message, and a
read per message for the client. What queued while the last write went out is framed here and
written in one go instead. A fast path (docs/design.md, "Performance-sensitive paths"): its
reference is aiohttp's own `send_frame`, one message at a time, and the bytes must be the same
(tests/runtime/test_fast_paths_ws.py). What it assumes: a server's frames (unmasked), with no
extension negotiated (no compression: the pump sends one frame at a time otherwise), written
whole while nothing else is queued on the socket (so no frame of aiohttp's, a ping or a close,
can sit between two of these).
"""

from __future__ import annotations

import struct
from typing import Final

_TEXT_FINAL: Final = 0x81  # FIN, opcode 1 (text)
_SHORT: Final = struct.Struct("!BB").pack
_MEDIUM: Final = struct.Struct("!BBH").pack
_LONG: Final = struct.Struct("!BBQ").pack


def text_frames(messages: list[bytes]) -> bytes:
    """The bytes of one unmasked, uncompressed, final text frame per message, in order."""
    parts: list[bytes] = []
    for message in messages:
        size = len(message)
        if size < 126:
            parts.append(_SHORT(_TEXT_FINAL, size))
        elif size < 65536:
            parts.append(_MEDIUM(_TEXT_FINAL, 126, size))
        else:
            parts.append(_LONG(_TEXT_FINAL, 127, size))
        parts.append(message)
    return b"".join(parts)
