"""CSV of the month-end pack's tables: a cell a spreadsheet would run as a formula is escaped (cells
starting = + - @, a tab or a carriage return get a leading apostrophe); numbers stay numbers."""
import csv
import io

from hypothesis import given
from hypothesis import strategies as st

from services.pack import FORMULA_STARTS, csv_cell, csv_text


def test_formula_cells_are_escaped():
    assert csv_cell("=HYPERLINK(\"http://x\")") == "'=HYPERLINK(\"http://x\")"
    assert csv_cell("+61 400") == "'+61 400"
    assert csv_cell("-2+3") == "'-2+3"
    assert csv_cell("@SUM(A1)") == "'@SUM(A1)"
    assert csv_cell("\t=1") == "'\t=1"
    assert csv_cell("\r=1") == "'\r=1"
    assert csv_cell("O'Brien") == "O'Brien" and csv_cell("Ann = 1") == "Ann = 1"


def test_numbers_flags_and_empty_cells():
    assert csv_cell(-25) == "-25" and csv_cell(1_105) == "1105"
    assert csv_cell(True) == "yes" and csv_cell(False) == ""
    assert csv_cell(None) == ""


@given(st.lists(st.lists(st.one_of(st.text(max_size=12), st.integers(-1000, 1000)), min_size=2, max_size=2),
                max_size=6))
def test_every_cell_reads_back_and_none_starts_a_formula(rows):
    text = csv_text(["a", "b"], rows)
    assert text.startswith("\ufeff")  # for Excel on Windows, which reads UTF-8 only after the mark
    back = list(csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline="")))
    assert back[0] == ["a", "b"] and len(back) == len(rows) + 1
    for written, read in zip(rows, back[1:]):
        for value, cell in zip(written, read):
            if isinstance(value, str):
                assert not cell.startswith(FORMULA_STARTS)
                assert cell == ("'" + value if value.startswith(FORMULA_STARTS) else value)
            else:
                assert cell == str(value)
