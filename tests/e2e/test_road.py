"""The road to the finals on a phone at 390×844 (R-STD-1/2, R-QUAL-1/2/4): a player checks in tonight,
and after an earlier game tonight at the Anchor her Me shows what she needs: her shared 11th place, the
75 points from the Top-10 Shoot-out, how a Monthly Final ticket can still be hers, the night left at
her venue and her form as a chart with its table. Both themes pass axe-core and fit the screen."""
from __future__ import annotations

import datetime as dt

import pytest
from playwright.sync_api import expect

from league.results_file import parse_results
from services import leagues, results
from services.models import Event, Venue
from tests.e2e.conftest import axe, check_fits, check_taps, join_and_check_in
from wiring.extensions import db

NAME = "Ann O'Brien <b>"
# --accent and --fg of each theme (static/css/app.css)
THEME_COLOURS = {"dark": ("rgb(255, 194, 75)", "rgb(242, 244, 246)"), "light": ("rgb(138, 90, 0)", "rgb(21, 25, 29)")}


def earlier_tonight(live_server) -> None:
    """An earlier game tonight at the Anchor, twelve players, Ann 12th level with the 11th (R-PTS-1:
    the 10th 150, the 11th and 12th 75 each), and a night booked at the Anchor later tonight."""
    with live_server.app.app_context():
        league = leagues.find_league("Harbour League")
        today = league.today()
        names = [f"Player {n:02d}" for n in range(1, 12)] + [NAME]
        rows = [f'{today},17:00,The Anchor,nightly,{p},"{n}",' for p, n in enumerate(names, 1)]
        results.import_results(league, parse_results(
            "date,start_time,venue,event_type,position,player,status\n" + "\n".join(rows) + "\n"))
        anchor = db.session.scalar(db.select(Venue).where(Venue.name == "The Anchor"))
        db.session.add(Event(league_id=league.id, venue_id=anchor.id, event_type="nightly", date=today,
                             start_time=dt.time(21, 30), status="scheduled"))
        db.session.commit()
        db.session.remove()


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_r_qual_4_me_shows_the_road_to_the_finals_at_390(tonight, live_server, phone, screenshot, theme):
    base, _, code = tonight
    page = phone()
    page.add_init_script(f"localStorage.setItem('shuffleup-theme', '{theme}')")
    join_and_check_in(page, base, code, NAME)
    earlier_tonight(live_server)
    page.goto(f"{base}/me")
    assert page.evaluate("document.documentElement.dataset.theme") == theme

    road = page.locator("#road-shootout")
    expect(road).to_contain_text("75 points to go: the 10th has 150 points, you have 75.")
    expect(page.locator(".stat").first).to_contain_text("11th")
    expect(page.locator(".stat").first).to_contain_text("Shared on equal points")
    expect(page.locator("#road-ticket")).to_contain_text("Finish in the top 5 of a nightly game this month")
    expect(page.get_by_role("link", name="Pre-register for The Anchor")).to_be_visible()

    chart = page.get_by_role("img", name="Points in my last 1 result, oldest first")
    chart.scroll_into_view_if_needed()
    expect(chart).to_be_visible()
    # drawn in the theme's colours (app.css): the bar in the accent, the labels in the text colour
    bar = page.locator(".form-chart rect").evaluate("el => getComputedStyle(el).fill")
    label = page.locator(".form-chart text").first.evaluate("el => getComputedStyle(el).fill")
    assert (bar, label) == THEME_COLOURS[theme]
    page.get_by_text("The chart as a table").click()
    expect(page.locator(".form-table tbody tr")).to_have_count(1)
    expect(page.locator(".form-table tbody")).to_contain_text("75")
    # the name is text, never markup
    expect(page.get_by_role("heading", level=1)).to_contain_text(NAME)
    assert page.locator("main b").count() == 0

    check_fits(page, 390)
    check_taps(page)  # the chart's table open: its links too
    axe(page, f"me with the road ({theme})")
    screenshot(page, f"me-road-{theme}")

    # the league's home shows the same road to the phone holding her card
    page.goto(f"{base}/leagues/harbour-league")
    expect(page.locator("#my-road #road-shootout")).to_contain_text("75 points to go")
    check_fits(page, 390)
    check_taps(page)
    axe(page, f"the league's home with the road ({theme})")
