"""Typed text (league/text.py) and members' names (R-MEM-1): what may be stored, and how two
spellings are matched."""
import pytest

from league.members import MAX_NAME_LENGTH, clean_name, name_key, name_problem
from league.text import as_sentence, clean_text, text_problem, visible


@pytest.mark.parametrize(("text", "reason"), [
    ("Ann\x00", "a NUL character"),
    ("\x00", "a NUL character"),
    ("Ann\x07", "control characters"),  # Cc: bell
    ("Ann\x1b[31m", "control characters"),  # Cc: an escape sequence
    ("Ann\x7f", "control characters"),  # Cc: delete
    ("Ann\x85", "control characters"),  # Cc: next line (C1)
    ("Jack Burke\u200b", "invisible characters"),  # Cf: zero-width space
    ("Jo\u200dhn", "invisible characters"),  # Cf: zero-width joiner
    ("\ufeffAnn", "invisible characters"),  # Cf: byte-order mark
    ("Ann\u00ad", "invisible characters"),  # Cf: soft hyphen
    ("\u202eevaD htimS", "invisible characters"),  # Cf: right-to-left override
    ("\u2066Ann\u2069", "invisible characters"),  # Cf: bidi isolates
    ("Ann\u061c", "invisible characters"),  # Cf: Arabic letter mark
    ("\u3164", "invisible characters"),  # a Hangul filler: a letter that draws nothing
    ("Ann\ud800", "invisible characters"),  # Cs: a lone surrogate
])
def test_hidden_characters_are_refused_by_class(text, reason):
    assert text_problem(text, 80, "the name").startswith(f"the name contains {reason}")


@pytest.mark.parametrize("text", ["Dave O'Brien", "Zoë Ngữ", "李小龍", "محمد", "Ann\tLee", "Ann\nLee", "Ann\r\nLee",
                                  "Ann 🂡", ""])
def test_ordinary_text_passes(text):
    assert text_problem(text, 80, "the name") is None


def test_required_and_lengths_are_counted_once_cleaned():
    assert text_problem("   ", 80, "the name", required=True) == "the name is empty"
    assert text_problem("   ", 80, "the name") is None
    assert text_problem("a" * 80, 80, "the name") is None
    assert text_problem("a" * 81, 80, "the name") == "the name is longer than 80 characters"
    assert text_problem("  " + "a" * 80 + "  ", 80, "the name") is None  # the ends are trimmed before counting
    assert text_problem("a  b" * 20, 60, "the name") is None  # 80 typed, 60 stored: runs of spaces fold
    assert text_problem("\ufdfa", 10, "the name") == "the name is longer than 10 characters"  # NFKC: 18 letters


def test_clean_text_and_visible():
    assert clean_text("  Dave \t O'Brien\n") == "Dave O'Brien"
    assert clean_text("ＡＮＮ") == "ANN"  # full-width letters fold (NFKC)
    assert visible("Jack\u200b Burke\u202e\x00") == "Jack Burke"
    assert as_sentence("the name is empty") == "The name is empty."


def test_r_mem_1_the_zero_width_duplicate_has_the_same_key_and_is_refused():
    assert name_key("Jack Burke\u200b") == name_key("Jack Burke") == name_key(" jack  BURKE ")
    assert name_key("\u202eJack Burke") == "jack burke"
    assert name_problem("Jack Burke\u200b") == \
        "the player's name contains invisible characters (zero-width or right-to-left marks)"
    assert name_problem("Jack Burke") is None


def test_r_mem_1_names_refuse_nul_control_rtl_blank_and_long():
    assert name_problem("Jack\x00Burke") == "the player's name contains a NUL character"
    assert name_problem("Jack\x01") == "the player's name contains control characters"
    assert "invisible" in name_problem("\u202eevaD htimS")
    assert name_problem("\u200b") is not None and name_problem(" ") == "the player's name is empty"
    assert name_problem("J" * MAX_NAME_LENGTH) is None
    assert name_problem("J" * (MAX_NAME_LENGTH + 1)) == "the player's name is longer than 80 characters"
    # casefold lengthens "ß" to "ss": the matching key must fit its column too
    assert name_problem("ß" * MAX_NAME_LENGTH) == "the player's name is longer than 80 characters"
    assert clean_name("  dave  o'brien ") == "dave o'brien"
