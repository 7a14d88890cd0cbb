"""`visible` and `visible_line` over the whole string space: whatever an agent sends, what
comes out steers no terminal (no C0 but newline and tab, resp. none; no C1; no direction
controls; no lone surrogate, so it is UTF-8) and says what was there."""

from __future__ import annotations

import unicodedata

from acp_codegen.commands.chat.visible import visible, visible_line
from hypothesis import given, settings
from hypothesis import strategies as st

# Every code point, the surrogates included (hypothesis leaves them out unless told).
ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=60)
# Agent text is mostly printable: mixing in the characters that matter makes them meet.
STEERING = st.sampled_from(list("\x1b\r\n\t\x9b\x07\x08\u202e\u061c\ud800"))
MIXED = st.lists(st.one_of(ANY_TEXT, STEERING), max_size=12).map("".join)
BIDI_CONTROLS = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def steers(char: str, kept: str) -> bool:
    code = ord(char)
    if char in kept:
        return False
    return (
        code < 0x20
        or 0x7F <= code <= 0x9F
        or char in BIDI_CONTROLS
        or char in "\u2028\u2029"
        or unicodedata.category(char) == "Cs"
    )


@settings(max_examples=400)
@given(st.one_of(ANY_TEXT, MIXED))
def test_visible_leaves_only_newline_and_tab(text: str) -> None:
    shown = visible(text)
    assert not [char for char in shown if steers(char, "\n\t")]
    shown.encode("utf-8")  # a lone surrogate would raise here
    # Every newline is the agent's own (a CR before it read as part of the line end).
    assert shown.count("\n") == text.count("\n")


@settings(max_examples=400)
@given(st.one_of(ANY_TEXT, MIXED))
def test_visible_line_is_one_line_of_visible_text(text: str) -> None:
    shown = visible_line(text)
    assert not [char for char in shown if steers(char, "")]
    shown.encode("utf-8")


@given(MIXED)
def test_plain_text_is_left_as_it_is(text: str) -> None:
    plain = "".join(char for char in text if not steers(char, ""))
    assert visible(plain) == plain
    assert visible_line(plain) == plain


def test_each_steering_character_is_named_or_given_its_code() -> None:
    hostile = "\x1b]52;c;ZXZpbA==\x07\r\x1b[2K\x9b2K\x08\u202e\ud800\t"
    expected = "\\e]52;c;ZXZpbA==\\x07\\r\\e[2K\\x9b2K\\x08\\u202e\\ud800"
    assert visible(hostile) == expected + "\t"
    assert visible_line(hostile) == expected + "\\t"


def test_a_windows_line_end_is_a_newline_and_any_other_cr_is_shown() -> None:
    """CR LF cannot overwrite anything (the cursor leaves the line at once): it reads as the
    newline. A CR elsewhere would let what follows overwrite the line: it is escaped."""
    assert visible("one\r\ntwo\r\n") == "one\ntwo\n"
    assert visible("50%\r60%\r\r\n") == "50%\\r60%\\r\n"
    assert visible_line("one\r\ntwo") == "one\\r\\ntwo"
