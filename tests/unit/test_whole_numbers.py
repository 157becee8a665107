"""The one parser of whole-number form fields (ids, chips, versions): blueprints.forms."""
import pytest

from blueprints.forms import (
    CHIPS_MAX,
    ID_MAX,
    blank_or_whole_number,
    read_whole_number,
    row_id,
    whole_number,
)
from services import Refused

MESSAGE = "Give the chips as a whole number."


@pytest.mark.parametrize(("raw", "number"), [
    ("3,000", 3000), (" 5000 ", 5000), ("0", 0), ("007", 7), ("12,500", 12_500),
    (str(CHIPS_MAX), CHIPS_MAX), ("0" * 5000 + "5", 5),
])
def test_plain_digits_with_thousands_commas_are_read(raw, number):
    assert whole_number(raw, MESSAGE) == number == read_whole_number(raw)


@pytest.mark.parametrize("raw", [
    "²", "٣", "５", "1e3", "-5", "+5", "5.0", "3 000", "", "   ", ",", None, "lots", "0x10",
    "9" * 5000, str(CHIPS_MAX + 1),
])
def test_anything_else_is_refused_with_the_message(raw):
    with pytest.raises(Refused) as refused:
        whole_number(raw, MESSAGE)
    assert str(refused.value) == MESSAGE
    assert read_whole_number(raw) is None


def test_the_bounds_are_the_callers():
    assert whole_number("12", MESSAGE, low=1, high=12) == 12
    for raw in ("0", "13"):
        with pytest.raises(Refused, match=MESSAGE):
            whole_number(raw, MESSAGE, low=1, high=12)
    assert whole_number(str(10**12), MESSAGE, high=10**12) == 10**12


def test_blank_is_not_counted_but_garbled_is_refused():
    assert blank_or_whole_number("", MESSAGE) is None
    assert blank_or_whole_number("  ", MESSAGE) is None
    assert blank_or_whole_number(None, MESSAGE) is None
    assert blank_or_whole_number("2,000", MESSAGE) == 2000
    with pytest.raises(Refused, match=MESSAGE):
        blank_or_whole_number("²", MESSAGE)


def test_a_row_id_is_positive_and_fits_an_integer_column():
    assert row_id("42") == 42 and row_id(str(ID_MAX)) == ID_MAX
    assert [row_id(raw) for raw in ("0", str(ID_MAX + 1), "²", "", None, "4 2")] == [None] * 6
