"""The league pages anyone can open, no login: a league's home, month and season standings
with the name search (R-STD-1/2), qualifiers (R-QUAL-1..5, R-FIN), each night's results (R-PTS,
R-QUAL-1/2) and the coming nights; each as a full page and, where htmx swaps it, as a fragment.

Expected numbers are worked out from RULES.md by hand, not by calling league/.
"""
import datetime as dt
import re

import pytest

from services import leagues
from services.models import Event, Member, Venue
from tests.conftest import login
from tests.fixtures.results import five_player_night, seed_results
from wiring.extensions import db

SLUG = "harbour-league"
BASE = f"/leagues/{SLUG}"
HX = {"HX-Request": "true"}
SEARCH = {**HX, "HX-Target": "standings-table"}

# 6 Oct, 5 players (R-PTS-2): 250 225 200 175 150. 13 Oct, 7 players: places shift by three,
# 300 275 250 225 200 175 150, the disqualified 7th earns 0 (R-PTS-5); a no-show is not in the field.
# 15 Sep, 3 players: 200 175 150.
OCTOBER_6 = five_player_night("2026-10-06", "The Anchor", ["Alice", "Bob", "O'Brien <b>", "Dana", "Eve"])
OCTOBER_13 = [("2026-10-13", "Crown Hotel", p, n) for p, n in
              enumerate(["Bob", "Alice", "Frank", "Gina", "Hal", "Ivy"], 1)] + [
    ("2026-10-13", "Crown Hotel", 7, "Kim", "dq"), ("2026-10-13", "Crown Hotel", None, "Nobody", "no_show")]
SEPTEMBER_15 = five_player_night("2026-09-15", "Crown Hotel", ["Zoe", "Alice", "Bob"])
# R-STD-1: Alice 250 + 275 and Bob 225 + 300 share 1st; Kim is listed with the 0 of a disqualification.
OCTOBER = [
    (1, "Alice", 525, 2), (1, "Bob", 525, 2), (3, "Frank", 250, 1), (4, "Gina", 225, 1),
    (5, "Hal", 200, 1), (5, "O&#39;Brien &lt;b&gt;", 200, 1), (7, "Dana", 175, 1), (7, "Ivy", 175, 1),
    (9, "Eve", 150, 1), (10, "Kim", 0, 1),
]
ROW = re.compile(r'<tr id="member-(\d+)"><td class="num">(\d+)</td><td>([^<]*)</td><td class="num">(\d+)</td>'
                 r'<td class="num">(\d+)</td></tr>')


def rows(html):
    """(rank, player, points, nights) of every standings row, names as escaped in the HTML."""
    return [(int(rank), name, int(points), int(nights)) for _, rank, name, points, nights in ROW.findall(html)]


@pytest.fixture
def seeded(league):
    seed_results(league, SEPTEMBER_15 + OCTOBER_6 + OCTOBER_13)
    return league


def event_id(date):
    return db.session.scalar(db.select(Event.id).where(Event.date == dt.date.fromisoformat(date)))


def member_id(name):
    return db.session.scalar(db.select(Member.id).where(Member.name == name))


def test_home_links_each_league_page(client, seeded):
    leagues.create_league("Cash & <Carry> League", "cash")
    db.session.commit()
    html = client.get("/").get_data(as_text=True)
    assert f'href="{BASE}"' in html
    assert 'href="/leagues/cash-carry-league"' in html and "Cash &amp; &lt;Carry&gt; League" in html


def test_r_std_1_league_home_shows_the_top_of_the_latest_month(client, seeded):
    response = client.get(BASE)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "October 2026: top of the table" in html  # this month has no results yet: the latest month
    assert rows(html) == OCTOBER  # ten players: all of them (the top 10 with ties)
    for link in (f"{BASE}/months/2026-10", f"{BASE}/months/2026-10/qualifiers", f"{BASE}/seasons/2026",
                 f"{BASE}/nights", f"/events/{event_id('2026-10-13')}/results"):
        assert f'href="{link}"' in html, link
    assert "<b>" not in html


def test_league_home_without_results(client, league):
    html = client.get(BASE).get_data(as_text=True)
    assert "No results yet: the table fills as nights are settled." in html
    assert "No results yet: they show here once a night is settled." in html and f'href="{BASE}/nights"' in html


def test_r_std_1_month_page_fragment_and_table(client, seeded):
    page = client.get(f"{BASE}/months/2026-10")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and html.startswith("<!doctype html>")
    assert "HX-Request" in page.headers["Vary"] and "HX-Target" in page.headers["Vary"]
    assert rows(html) == OCTOBER
    assert "<title>October 2026 standings · Harbour League</title>" in html
    # The hook for "jump to me": each row is the member's own anchor.
    assert f'<tr id="member-{member_id("Kim")}">' in html
    # The month's nights, each to its results; the pager goes back to September (none after October).
    assert f'href="/events/{event_id("2026-10-06")}/results"' in html
    assert f'hx-get="{BASE}/months/2026-09"' in html and "Next month" not in html
    assert "<b>" not in html and "O&#39;Brien &lt;b&gt;" in html

    # The pager's htmx request: the whole section, with its title for the tab, and no page around it.
    fragment = client.get(f"{BASE}/months/2026-09", headers=HX)
    text = fragment.get_data(as_text=True)
    assert "<html" not in text and '<section id="standings"' in text
    assert "<title>September 2026 standings · Harbour League</title>" in text
    assert rows(text) == [(1, "Zoe", 200, 1), (2, "Alice", 175, 1), (3, "Bob", 150, 1)]
    assert "HX-Request" in fragment.headers["Vary"]
    # A history restore asks for the whole page.
    restore = client.get(f"{BASE}/months/2026-09", headers={**HX, "HX-History-Restore-Request": "true"})
    assert restore.get_data(as_text=True).startswith("<!doctype html>")


def test_r_std_1_search_filters_by_name_and_keeps_ranks(client, seeded):
    # As you type (htmx aimed at the table): the table alone.
    fragment = client.get(f"{BASE}/months/2026-10?q=bri", headers=SEARCH)
    text = fragment.get_data(as_text=True)
    assert text.lstrip().startswith('<div id="standings-table"') and "<section" not in text
    assert rows(text) == [(5, "O&#39;Brien &lt;b&gt;", 200, 1)]  # the full table's rank
    assert "1 of 10 players match “bri”" in text
    assert {"HX-Request", "HX-Target"} <= set(fragment.headers["Vary"].replace(" ", "").split(","))
    # Matching ignores case, runs of spaces and blanks around the name, as member names do (R-MEM-1).
    assert [r[1] for r in rows(client.get(f"{BASE}/months/2026-10?q=%20%20ALI%20", headers=SEARCH)
                               .get_data(as_text=True))] == ["Alice"]
    # A name is searched as text: markup in the query is escaped, never run.
    text = client.get(f"{BASE}/months/2026-10?q=<b>", headers=SEARCH).get_data(as_text=True)
    assert rows(text) == [(5, "O&#39;Brien &lt;b&gt;", 200, 1)] and "“&lt;b&gt;”" in text
    nobody = client.get(f"{BASE}/months/2026-10?q=zzz", headers=SEARCH).get_data(as_text=True)
    assert rows(nobody) == [] and "0 of 10 players match “zzz”" in nobody
    # Without script: the same URL as a plain GET form, the whole page with the filtered table.
    page = client.get(f"{BASE}/months/2026-10?q=bri").get_data(as_text=True)
    assert page.startswith("<!doctype html>") and rows(page) == [(5, "O&#39;Brien &lt;b&gt;", 200, 1)]
    assert 'name="q" type="search" value="bri"' in page
    assert f'action="{BASE}/months/2026-10"' in page and f'hx-get="{BASE}/months/2026-10"' in page


def test_a_month_without_results(client, seeded):
    html = client.get(f"{BASE}/months/2025-01").get_data(as_text=True)
    assert "No results yet: the table fills as nights are settled." in html
    assert f'No nights settled this month: see <a href="{BASE}/nights">the coming nights</a>.' in html
    assert f'hx-get="{BASE}/months/2026-09"' in html  # the pager still leads to the months with results


def test_r_std_2_season_is_the_top_50_with_ties(client, league):
    # Night 1, 60 players: places 1-10 earn their points plus the 45+ bonus (R-PTS-3), 11-60 earn 75.
    # Night 2, players 1-52: the same again for them. So players 11-52 have 150 each (shared 11th),
    # and 53-60 have 75: the table is cut after the 52nd, the last one tied with the 50th (R-STD-2).
    names = [f"Player {n:02d}" for n in range(1, 61)]
    seed_results(league, [("2026-03-04", "The Anchor", p, name) for p, name in enumerate(names, 1)]
                 + [("2026-03-11", "The Anchor", p, name) for p, name in enumerate(names[:52], 1)])
    html = client.get(f"{BASE}/seasons/2026").get_data(as_text=True)
    table = rows(html)
    assert len(table) == 52 and "52 of 60 players" in html
    assert table[0] == (1, "Player 01", 2 * (750 + 450), 2)
    assert table[10:] == [(11, name, 150, 2) for name in names[10:52]]
    assert "Player 53" not in html
    # The search looks in the published table: the 53rd is not in it.
    found = rows(client.get(f"{BASE}/seasons/2026?q=player%205", headers=SEARCH).get_data(as_text=True))
    assert found == [(11, "Player 50", 150, 2), (11, "Player 51", 150, 2), (11, "Player 52", 150, 2)]
    # The season fragment for the pager.
    text = client.get(f"{BASE}/seasons/2026", headers=HX).get_data(as_text=True)
    assert "<html" not in text and '<section id="standings"' in text and "<title>2026 season · Harbour League</title>" in text


def test_r_std_2_season_pager(client, seeded):
    seed_results(seeded, [("2025-06-01", "The Anchor", 1, "Alice")])
    html = client.get(f"{BASE}/seasons/2026").get_data(as_text=True)
    assert f'hx-get="{BASE}/seasons/2025"' in html and "All 11 players." in html
    # R-STD-2: September and October together; the 2025 night is not in 2026's table.
    assert rows(html)[:3] == [(1, "Alice", 700, 3), (2, "Bob", 675, 3), (3, "Frank", 250, 1)]
    older = client.get(f"{BASE}/seasons/2025").get_data(as_text=True)
    assert rows(older) == [(1, "Alice", 150, 1)] and f'hx-get="{BASE}/seasons/2026"' in older


def test_r_qual_qualifiers_page(client, seeded):
    response = client.get(f"{BASE}/months/2026-10/qualifiers")
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "HX-Request" in response.headers["Vary"]
    # R-QUAL-1/2 with pass-down: 6 Oct gives places 1-5; on 13 Oct Bob and Alice hold one already, so
    # the tickets pass to places 3-6 and then the final table (7 players) is exhausted: Kim was
    # disqualified and the no-show never played.
    tickets = re.findall(r"<tr><td>([^<]*)</td><td><a href=\"/events/(\d+)/results\">.*?</a></td>"
                         r"<td class=\"num\">(\d+)</td></tr>", html)
    oct6, oct13 = str(event_id("2026-10-06")), str(event_id("2026-10-13"))
    assert tickets == [("Alice", oct6, "1"), ("Bob", oct6, "2"), ("O&#39;Brien &lt;b&gt;", oct6, "3"),
                       ("Dana", oct6, "4"), ("Eve", oct6, "5"), ("Frank", oct13, "3"), ("Gina", oct13, "4"),
                       ("Hal", oct13, "5"), ("Ivy", oct13, "6")]
    # R-QUAL-4: fewer than ten scorers, so all of them; Kim's 0 is no score.
    shootout = re.findall(r"<li><span>([^<]*)</span> <span class=\"num\">(\d+) pts</span></li>", html)
    assert shootout == [(name, str(points)) for _, name, points, _ in OCTOBER if name != "Kim"]
    # R-QUAL-5, R-FIN: every player may enter the High-roller Final; 25,000 for two nights or more.
    highroller = re.findall(r"<tr><td>([^<]*)</td><td class=\"num\">(\d+)</td><td class=\"num\">([\d,]+)</td></tr>", html)
    assert highroller == [(name, str(n), "25,000" if n >= 2 else "20,000") for _, name, _, n in OCTOBER]
    assert "<b>" not in html
    fragment = client.get(f"{BASE}/months/2026-09/qualifiers", headers=HX).get_data(as_text=True)
    assert "<html" not in fragment and '<section id="qualifiers"' in fragment
    assert "<title>September 2026 finals · Harbour League</title>" in fragment


def test_r_pts_results_of_a_settled_night(client, seeded):
    html = client.get(f"/events/{event_id('2026-10-13')}/results").get_data(as_text=True)
    results = re.findall(r"<tr><td class=\"num\">(\d+)</td>\s*<td>([^<]*)(.*?)</td>\s*<td class=\"num\">(\d+)</td></tr>",
                         html, re.S)
    got = [(int(place), name.strip(), "Final ticket" in tags, "Disqualified" in tags, int(points))
           for place, name, tags, points in results]
    assert got == [(1, "Bob", False, False, 300), (2, "Alice", False, False, 275), (3, "Frank", True, False, 250),
                   (4, "Gina", True, False, 225), (5, "Hal", True, False, 200), (6, "Ivy", True, False, 175),
                   (7, "Kim", False, True, 0)]
    assert "Nobody" not in html  # a no-show is not a participant (R-PTS-5)
    assert "7 players" in html and "4 Monthly Final tickets" in html
    assert f'href="{BASE}/months/2026-10"' in html and f'href="{BASE}/months/2026-10/qualifiers"' in html
    escaped = client.get(f"/events/{event_id('2026-10-06')}/results").get_data(as_text=True)
    assert "O&#39;Brien &lt;b&gt;" in escaped and "<b>" not in escaped


@pytest.mark.parametrize("status", ["scheduled", "running"])
def test_results_of_a_night_not_settled_are_not_found(client, seeded, status):
    venue = db.session.scalar(db.select(Venue))
    event = Event(league_id=seeded.id, venue_id=venue.id, event_type="nightly", date=dt.date(2026, 10, 20),
                  status=status)
    db.session.add(event)
    db.session.commit()
    assert client.get(f"/events/{event.id}/results").status_code == 404
    assert client.get("/events/9999/results").status_code == 404


def test_coming_nights_by_venue(client, league):
    today = league.today()
    rose, anchor = Venue(league_id=league.id, name="The <Rose>"), Venue(league_id=league.id, name="Anchor")
    other = leagues.create_league("Other League", "free")
    elsewhere = Venue(league_id=other.id, name="Elsewhere")
    db.session.add_all([rose, anchor, elsewhere])
    db.session.flush()

    def night(venue, days, status="scheduled", league_id=league.id, start=dt.time(19, 0)):
        event = Event(league_id=league_id, venue_id=venue.id, event_type="nightly",
                      date=today + dt.timedelta(days=days), start_time=start, status=status)
        db.session.add(event)
        return event

    shown = [night(rose, 0, "running"), night(rose, 7), night(anchor, 1, start=dt.time(18, 30)),
             night(anchor, -1, "running")]  # a night that ran past midnight is still on
    hidden = [night(rose, -1), night(anchor, -3, "settled"), night(anchor, 0, "settled"),
              night(elsewhere, 1, league_id=other.id)]
    db.session.commit()
    html = client.get(f"{BASE}/nights").get_data(as_text=True)
    for event in shown:
        assert f'href="/events/{event.id}"' in html
    for event in hidden:
        assert f'href="/events/{event.id}"' not in html
    # By venue (by name), each venue's nights in date order.
    assert html.index("<h2>Anchor</h2>") < html.index("<h2>The &lt;Rose&gt;</h2>")
    assert html.index(f'/events/{shown[3].id}"') < html.index(f'/events/{shown[2].id}"')
    assert html.index(f'/events/{shown[0].id}"') < html.index(f'/events/{shown[1].id}"')
    assert html.count("Playing now") == 2 and "18:30" in html
    # The league's home leads to the clocks of what is playing now.
    home = client.get(BASE).get_data(as_text=True)
    assert f'href="/events/{shown[0].id}"' in home and f'href="/events/{shown[1].id}"' not in home


def test_no_nights(client, league):
    assert f'No nights on the calendar yet: they show here as soon as the organiser books them. Meanwhile, <a href="{BASE}">' in client.get(f"{BASE}/nights").get_data(as_text=True)


@pytest.mark.parametrize("path", [
    "/leagues/nope", "/leagues/nope/months/2026-10", "/leagues/nope/seasons/2026",
    "/leagues/nope/months/2026-10/qualifiers", "/leagues/nope/nights",
    "/leagues/Harbour%20League",  # the name is not an address: the slug is
    f"{BASE}/months/2026-13", f"{BASE}/months/2026-1", f"{BASE}/months/october", f"{BASE}/months/2026-10-01",
    f"{BASE}/months/9999-12", f"{BASE}/months/2026-00/qualifiers", f"{BASE}/months/26-10/qualifiers",
    f"{BASE}/seasons/20x6", f"{BASE}/seasons/999", f"{BASE}/seasons/0999", f"{BASE}/seasons/12026",
])
def test_bad_addresses_are_not_found(client, seeded, path):
    assert client.get(path).status_code == 404
    assert client.get(path, headers=SEARCH).status_code == 404


def test_public_pages_need_no_login_and_look_the_same_logged_in(client, seeded, organiser):
    anonymous = rows(client.get(f"{BASE}/months/2026-10").get_data(as_text=True))
    login(client, "organiser", "pw-organiser")
    assert rows(client.get(f"{BASE}/months/2026-10").get_data(as_text=True)) == anonymous
