"""R-QUAL-1..5: the public league page knows the calendar. While last month's finals are still to be
played it leads with last month's table and who made its finals, with each final's date, time and
venue; once they are played it moves on to this month. A final's results say which month it was for."""
import datetime as dt

import pytest

from league.finals import month_label
from tests.fixtures.months import final_night, settled_month
from tests.fixtures.pages import text

LEAGUE = "/leagues/harbour-league"


@pytest.fixture
def last_month(app, league, organiser):
    """Last month (before the league's today) settled: Ann won both nights and holds its ticket."""
    today = league.today()
    month = (today.replace(day=1) - dt.timedelta(days=1)).strftime("%Y-%m")
    found = settled_month(league, month, {3: ("Ann", "Bob", "Cara"), 10: ("Ann", "Dan")},
                          points=lambda position: 400 - 100 * position, ticketed=("Ann",))
    return {"month": month, "label": month_label(month), "today": today, **found}


def test_r_qual_before_last_months_finals_the_league_page_leads_with_last_month(client, league, last_month):
    final = final_night(league, last_month["venue"], "monthly_final", date=last_month["today"], status="scheduled")
    page = text(client.get(LEAGUE))
    label = last_month["label"]
    assert f"{label}: top of the table" in page and f"{label}: all 4 players" in page
    assert f"Who made {label}'s finals" in page
    assert f"The finals for {label}" in page and "Monthly Final" in page and "Rose & Crown" in page
    assert final.date.strftime("%a %d %b") in page and "19:00" in page
    assert f'href="/leagues/harbour-league/months/{last_month["month"]}/qualifiers"' in page
    qualifiers = text(client.get(f"{LEAGUE}/months/{last_month['month']}/qualifiers"))
    assert f"The finals for {label}" in qualifiers and final.date.strftime("%a %d %b") in qualifiers


def test_r_qual_once_the_finals_are_played_the_page_moves_on_and_results_name_their_month(client, league,
                                                                                        last_month):
    final = final_night(league, last_month["venue"], "monthly_final", date=last_month["today"], status="settled")
    this = last_month["today"].strftime("%Y-%m")
    page = text(client.get(LEAGUE))
    assert f"{month_label(this)}: top of the table" in page and f"The finals for {last_month['label']}" not in page
    assert f"Monthly Final for {last_month['label']}" in page  # in the latest results
    results = text(client.get(f"/events/{final.id}/results"))
    assert f"Monthly Final for {last_month['label']}" in results


def test_r_qual_with_no_final_booked_the_page_leads_with_last_month_until_this_month_has_results(client, league,
                                                                                                last_month):
    page = text(client.get(LEAGUE))
    assert f"{last_month['label']}: top of the table" in page
    assert f"No finals booked yet for {last_month['label']}" in page
