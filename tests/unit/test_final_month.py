"""R-QUAL-1..5: the month a final is for, as the night form takes it (league.finals.final_month_problem)."""
import datetime as dt

import pytest

from league.finals import final_month_problem, qualifying_month


def test_r_qual_3_a_final_is_for_the_month_before_its_date_unless_one_is_given():
    assert qualifying_month(dt.date(2026, 12, 5)) == "2026-11"
    assert qualifying_month(dt.date(2026, 1, 5)) == "2025-12"
    assert qualifying_month(dt.date(2026, 12, 5), "2026-10") == "2026-10"


@pytest.mark.parametrize("month", ["2026-11", "2026-12", "2025-12", "2026-01"])
def test_r_qual_3_a_month_begun_by_the_finals_date_is_taken(month):
    assert final_month_problem(dt.date(2026, 12, 5), month) is None


@pytest.mark.parametrize(("month", "said"), [
    ("2026-13", "is not a month"), ("2026-1", "is not a month"), ("November", "is not a month"),
    ("2026-11-01", "is not a month"), ("", "is not a month"), ("२०२६-११", "is not a month"),
    ("2027-01", "not played yet"), ("2024-11", "more than a year before"),
])
def test_r_qual_3_a_bad_month_is_refused_with_the_reason(month, said):
    assert said in final_month_problem(dt.date(2026, 12, 5), month)
