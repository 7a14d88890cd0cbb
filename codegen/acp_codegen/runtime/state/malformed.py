"""How a malformed update is described, and the base64 text the fold decodes (raising on bad)."""

from __future__ import annotations

import base64
import binascii

from pydantic import ValidationError

from ..wire.errors import MalformedUpdateError


def describe(error: Exception) -> str:
    """One line naming each place a validator found wrong."""
    if isinstance(error, ValidationError):
        return "; ".join(
            f"{'/'.join(str(part) for part in item['loc']) or '<root>'}: {item['msg']}"
            for item in error.errors(include_url=False)
        )
    return str(error) or type(error).__name__


def decode_base64(tag: str, what: str, text: object) -> bytes:
    """The bytes of base64 `text`; `MalformedUpdateError` naming `what` when it is not."""
    if not isinstance(text, str):
        found = type(text).__name__
        raise MalformedUpdateError(tag, f"{what} must be a base64 string, found {found}")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as error:
        raise MalformedUpdateError(tag, f"{what} is not valid base64 ({error})") from None
