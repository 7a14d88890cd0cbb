"""LineReader: lines split across reads, over-long lines skipped, end of stream."""

from __future__ import annotations

import asyncio

import pytest
from acp_codegen.runtime.wire.line_framing import (
    LineReader,
    LineTooLong,
    decode_line,
    encode_json,
    encoded_size,
)
from hypothesis import example, given
from hypothesis import strategies as st

from .streams import run


def feed(*pieces: bytes) -> asyncio.StreamReader:
    reader = asyncio.StreamReader()
    for piece in pieces:
        reader.feed_data(piece)
    reader.feed_eof()
    return reader


def test_lines_split_across_reads_and_a_final_unterminated_line() -> None:
    async def scenario() -> list[bytes | None]:
        lines = LineReader(feed(b"ab", b"c\nd", b"e\n\nf"))
        return [await lines.read_line() for _ in range(5)]

    assert run(scenario()) == [b"abc", b"de", b"", b"f", None]


def test_an_over_long_line_is_skipped_once_even_across_reads() -> None:
    async def scenario() -> list[object]:
        lines = LineReader(feed(b"x" * 30, b"y" * 30, b"z\nok\n", b"w" * 40), max_line_bytes=16)
        seen: list[object] = []
        for _ in range(4):
            try:
                seen.append(await lines.read_line())
            except LineTooLong:
                seen.append("too long")
        return seen

    assert run(scenario()) == ["too long", b"ok", "too long", None]


def test_buffered_lines_are_handed_over_without_reading() -> None:
    """`buffered_line` gives what the buffer already holds, whole lines only, and leaves the
    rest (a partial line, an over-long one) to `read_line`, which goes on where it stopped."""

    async def scenario() -> list[object]:
        stream = asyncio.StreamReader()
        lines = LineReader(stream, max_line_bytes=16)
        stream.feed_data(b"a\n\nbb\nc")
        seen: list[object] = [lines.buffered_line()]  # nothing read from the stream yet
        seen.append(await lines.read_line())
        seen += [lines.buffered_line(), lines.buffered_line(), lines.buffered_line()]
        stream.feed_data(b"c\n" + b"x" * 20 + b"\nok\n")
        stream.feed_eof()
        seen.append(await lines.read_line())  # "cc" spans both pieces
        try:
            lines.buffered_line()
        except LineTooLong:
            seen.append("too long")
        seen += [lines.buffered_line(), lines.buffered_line(), await lines.read_line()]
        return seen

    assert run(scenario()) == [None, b"a", b"", b"bb", None, b"cc", "too long", b"ok", None, None]


def test_encoding_never_embeds_a_newline_and_round_trips() -> None:
    message = {"text": "a\nb\u2028c\r", "n": [1, 2.5, None, True]}
    encoded = encode_json(message)
    assert b"\n" not in encoded
    assert decode_line(encoded) == message


@pytest.mark.parametrize("line", [b"{", b'{"a": Infinity}', b"\xc3\x28"])
def test_decode_rejects_what_is_not_json(line: bytes) -> None:
    with pytest.raises(ValueError):
        decode_line(line)


# Any text: control characters, quotes, backslashes, non-ASCII, lone surrogates.
ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()))


@given(ANY_TEXT)
@example("lone \ud800 surrogate")
@example('quote " backslash \\ newline \n nul \x00 é 漢')
def test_a_text_blocks_size_is_its_encoded_length(text: str) -> None:
    block = {"type": "text", "text": text}
    assert encoded_size(block) == len(encode_json(block))


@given(ANY_TEXT, st.sampled_from(["text", "image", "Text"]))
def test_other_shapes_are_counted_by_encoding(text: str, kind: str) -> None:
    for value in (
        {"text": text, "type": kind},  # the other key order
        {"type": kind, "text": text, "annotations": None},
        {"type": kind, "text": [text]},
        {"type": kind, "text": text},
    ):
        assert encoded_size(value) == len(encode_json(value))


def test_the_encoder_refuses_what_json_cannot_carry_and_fails_on_a_cycle() -> None:
    """The encoder is built once and keeps no circular-reference bookkeeping: a cycle (never
    sent by the runtime, whose messages are trees) must still fail, not loop or write."""
    for bad in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(ValueError, match="not JSON compliant"):
            encode_json({"x": [bad]})
    looped: dict[str, object] = {}
    looped["self"] = looped
    with pytest.raises(RecursionError):
        encode_json({"params": looped})
    assert encode_json({"after": "the failure"}) == b'{"after":"the failure"}'  # still usable


@pytest.mark.parametrize("ensure_ascii", [False, True])
def test_without_the_c_accelerator_the_encoder_writes_the_same_bytes(
    monkeypatch: pytest.MonkeyPatch, ensure_ascii: bool
) -> None:
    """Missing, or with a signature other than the one it is built with, json's C encoder is
    replaced by `JSONEncoder.encode`: the same compact text, NaN still refused."""
    import json

    from acp_codegen.runtime.wire import line_framing as framing

    message = {"text": 'naïve \u2028 "q" \\', "n": [1, 2.5, None, True], "e": {}}
    expected = framing._compact_encoder(ensure_ascii)(message)

    original = json.encoder.c_make_encoder  # type: ignore[attr-defined]

    def changed_signature(markers: object, *args: object) -> object:
        # As if CPython changed it: our call fails; json's own (updated with it) still works.
        if markers is None:
            raise TypeError("takes a different argument list")
        return original(markers, *args)

    for replacement in (None, changed_signature):
        monkeypatch.setattr(json.encoder, "c_make_encoder", replacement)
        encode = framing._compact_encoder(ensure_ascii)
        assert getattr(encode, "__self__", None).__class__ is json.JSONEncoder  # the fallback
        assert encode(message) == expected
        with pytest.raises(ValueError, match="not JSON compliant"):
            encode({"x": float("nan")})
