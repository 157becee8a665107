"""What each player needs, on /me, on the league's home for the card's phone and under /api/ (R-STD-1/2,
R-QUAL-1/2/4): points and rank, the points from the Top-10 Shoot-out and the season's Top 50, the Monthly
Final ticket or how to earn one, the nights left at their venues and their form.

Tonight (the league's own date) twelve players finished a settled night at the Anchor, no field bonus
under 15 (R-PTS-1): 750 550 400 300 275 250 225 200 175 150, then 75 for the 11th and the 12th. The
10th has 150, so the Shoot-out's cut is 150 (R-QUAL-4); the top 5 hold tickets (R-QUAL-1). Still to play
this month: the Anchor again at 21:00 tonight and the Mill tonight; next month the Monthly Final."""
import datetime as dt
import re

import pytest

from services.models import Event, Member, Venue, utcnow
from tests.fixtures.pages import html
from tests.fixtures.phones import phone_of
from tests.fixtures.results import seed_results
from tests.fixtures.rows import member
from tests.web.test_night_reads import statements
from wiring.extensions import db

NAMES = ["Ann", "Bob", "Cy", "Dot", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kit", "O'Brien <b>"]
ESCAPED = "O&#39;Brien &lt;b&gt;"


def book(league, venue: str, date: dt.date, start: dt.time, event_type: str = "nightly", **extra) -> Event:
    """A night booked (scheduled) at `venue`, made if new; committed."""
    place = db.session.scalar(db.select(Venue).where(Venue.league_id == league.id, Venue.name == venue))
    if place is None:
        place = Venue(league_id=league.id, name=venue)
        db.session.add(place)
        db.session.flush()
    event = Event(league_id=league.id, venue_id=place.id, event_type=event_type, date=date, start_time=start,
                  status="scheduled", **extra)
    db.session.add(event)
    db.session.commit()
    return event


@pytest.fixture
def month(app, league, organiser):
    """Tonight's settled twelve at the Anchor, two nights still to play this month, a Monthly Final booked
    next month, and Nia, a member who has played nowhere yet. → {"final", "later", "mill", "next"}"""
    today = league.today()
    seed_results(league, [(today.isoformat(), "The Anchor", p, n) for p, n in enumerate(NAMES, 1)])
    following = (today.replace(day=1) + dt.timedelta(days=32)).replace(day=1)
    nia = Member.named(league.id, "Nia New")
    nia.adult_confirmed_at = utcnow()
    db.session.add(nia)
    return {"later": book(league, "The Anchor", today, dt.time(21, 0)),
            "mill": book(league, "The Mill", today, dt.time(20, 0)),
            "next": book(league, "The Anchor", following, dt.time(19, 0)),
            "final": book(league, "The Anchor", following + dt.timedelta(days=4), dt.time(18, 30),
                          "monthly_final", final_month=today.strftime("%Y-%m"))}


def section(page: str, anchor: str) -> str:
    """The part of the page from the element with id=`anchor` to the end of its list item."""
    return page.split(f'id="{anchor}"')[1].split("</li>")[0]


def nights_listed(page: str) -> list[str]:
    part = page.split('id="nights-left-title"')[1].split('id="form-title"')[0]
    return re.findall(r'href="/events/(\d+)/prereg"', part)


# ---- /me ----

def test_r_qual_4_me_a_player_already_qualified_with_a_ticket_and_the_final_booked(app, month):
    page = html(phone_of(app, member("Ann")).get("/me"))
    assert re.search(r'<span class="stat-rank">1st</span>\s*<span class="stat-of">of 12</span>\s*'
                     r'<span class="stat-points">750 points · 1 night', page)
    assert "You're in: top 10 on points" in section(page, "road-shootout")
    assert "You're in the season's Top 50 (1st)" in section(page, "road-top50")
    ticket = section(page, "road-ticket")  # R-QUAL-1: which night earned it, the final's date and venue
    final = month["final"]
    assert "In hand: 1st at The Anchor" in ticket and "Show it at the Final's check-in" in ticket
    assert f"The Monthly Final: {final.date.strftime('%a %d %b')} · 18:30 at The Anchor" in ticket
    # R-QUAL-1: the nights left this month at her venue, soonest first, each with its pre-registration;
    # not the Mill (she has never played there), not next month's
    assert nights_listed(page) == [str(month["later"].id)]
    # her form: one bar, its text alternative and its table
    chart = page.split('class="form-chart"')[1].split("</figure>")[0]
    assert chart.count("<rect ") == 1 and 'role="img"' in chart and "750 points" in chart


def test_r_qual_4_me_points_needed_with_a_tie_below_the_10th(app, month):
    page = html(phone_of(app, member("O'Brien <b>")).get("/me"))
    # R-STD-1: Kit and O'Brien share 11th on 75
    assert re.search(r'<span class="stat-rank">11th</span>\s*<span class="stat-of">of 12</span>', page)
    assert "Shared on equal points" in page
    # R-QUAL-4: the 10th has 150: 75 more reach it, and level with the 10th is in
    shootout = section(page, "road-shootout")
    assert '<strong class="needed">75 points</strong> to go: the 10th has 150 points, you have 75.' in shootout
    # R-QUAL-1/2: no ticket; two nightly games left this month in the league; pass-down explained
    ticket = section(page, "road-ticket")
    assert "Finish in the top 5 of a nightly game this month: 2 nights left in the league." in ticket
    assert "passes down the final table to the next finisher without one" in ticket


def test_r_qual_2_without_pass_down_only_a_top_5_finish_earns_a_ticket(app, league, month):
    league.pass_down = False  # a cash league's default (R-QUAL-2)
    db.session.commit()
    ticket = section(html(phone_of(app, member("Kit")).get("/me")), "road-ticket")
    assert "Finish in the top 5 of a nightly game this month: 2 nights left in the league." in ticket
    assert "passes down" not in ticket


def test_r_qual_1_a_night_under_way_at_their_venue_links_to_its_clock(app, league, month):
    month["later"].status = "running"
    db.session.commit()
    page = html(phone_of(app, member("Kit")).get("/me"))
    part = page.split('id="nights-left-title"')[1].split('id="form-title"')[0]
    assert f'href="/events/{month["later"].id}">Playing now: the clock' in part and nights_listed(page) == []


def test_me_for_a_member_with_no_results(app, month):
    page = html(phone_of(app, member("Nia New")).get("/me"))
    assert page.count("No points yet") == 2
    assert '<strong class="needed">150 points</strong> to go: the 10th has 150 points, you have 0.' in page
    assert "Play a night this season to be in it" in section(page, "road-top50")
    # played nowhere yet: every venue's nights left this month, soonest first (the Mill 20:00, the Anchor 21:00)
    assert "You haven't played a night yet" in page
    assert nights_listed(page) == [str(month["mill"].id), str(month["later"].id)]
    assert "No results yet: your form shows here" in page and 'class="form-chart"' not in page


def test_r_qual_1_a_month_with_no_nights_left(app, month):
    for key in ("later", "mill"):
        month[key].status = "cancelled"
    db.session.commit()
    page = html(phone_of(app, member("Kit")).get("/me"))
    assert "No nights are left this month at the venues you play." in page and nights_listed(page) == []
    assert "Not this month: no nightly games are left in" in section(page, "road-ticket")


def test_names_and_venues_are_escaped_on_the_road(app, league, month):
    book(league, "O'Brien <b> Arms", league.today(), dt.time(22, 0))
    page = html(phone_of(app, member("Nia New")).get("/me"))
    assert "O'Brien <b>" not in page and "<b> Arms" not in page
    assert f"{ESCAPED} Arms" in page  # the night left there
    mine = html(phone_of(app, member("O'Brien <b>")).get("/me"))
    assert "O'Brien <b>" not in mine and ESCAPED in mine


def test_me_reads_a_fixed_number_of_statements_however_many_nights_and_players(app, league, month):
    """Reuse, not a query per night or per player: more nights and more players, the same reads."""
    phone = phone_of(app, member("Ann"))
    phone.get("/me")
    with statements() as before:
        phone.get("/me")
    today = league.today()
    seed_results(league, [(today.isoformat(), "The Mill", p, f"Mill {p}") for p in range(1, 21)])
    for hour in (20, 22, 23):
        book(league, "The Anchor", today, dt.time(hour, 15))
    phone.get("/me")  # as before: the test's own session has the league loaded again
    with statements() as after:
        page = html(phone.get("/me"))
    assert len(nights_listed(page)) == 4
    assert len(after) == len(before)


# ---- the league's home ----

def test_the_league_home_shows_the_cards_own_road_and_is_then_private(app, client, league, month):
    url = f"/leagues/{league.slug}"
    mine = phone_of(app, member("O'Brien <b>")).get(url)
    page = html(mine)
    assert 'id="my-road"' in page and "75 points</strong> to go" in page
    assert mine.headers["Cache-Control"] == "private, no-store" and "Cookie" in mine.headers["Vary"]
    assert "O'Brien <b>" not in page  # (below the top of the table: "You: 11th", no name)
    anyone = client.get(url)
    assert 'id="my-road"' not in html(anyone) and "Cookie" in anyone.headers["Vary"]
    assert "private" not in anyone.headers.get("Cache-Control", "")


def test_the_league_home_shows_no_road_to_a_card_of_another_league(app, month):
    from services import leagues
    other = leagues.create_league("Other League", "cash")
    db.session.commit()
    page = html(phone_of(app, member("Ann")).get(f"/leagues/{other.slug}"))
    assert 'id="my-road"' not in page


# ---- /api/ ----

def road_json(client, league, who):
    response = client.get(f"/api/leagues/{league.slug}/members/{member(who).id}/road")
    assert response.status_code == 200 and response.headers["Cache-Control"] == "no-store"
    return response.get_json()


def test_r_qual_4_api_road_of_a_qualified_member(client, league, month):
    data = road_json(client, league, "Ann")
    today = league.today()
    assert data["player"] == "Ann" and data["month"] == today.strftime("%Y-%m")
    assert data["month_standing"] == {"rank": 1, "tied": False, "points": 750, "events": 1, "players": 12}
    assert data["top10_shootout"] == {"qualified": True, "cut": 150, "points_needed": 0, "open_places": 0}
    assert data["season_top50"] == {"qualified": True, "cut": 0, "points_needed": 0, "open_places": 38}
    assert data["monthly_final_ticket"]["position"] == 1 and data["monthly_final_ticket"]["night"]["venue"] == "The Anchor"
    assert data["monthly_finals"] == [{"id": month["final"].id, "date": month["final"].date.isoformat(),
                                       "start_time": "18:30", "venue": "The Anchor"}]
    assert data["ticket_chance"]["state"] == "held"
    assert [n["id"] for n in data["nights_left"]["nights"]] == [month["later"].id]
    assert [(f["position"], f["points"]) for f in data["form"]] == [(1, 750)]


def test_r_qual_4_api_road_points_needed_with_ties(client, league, month):
    data = road_json(client, league, "O'Brien <b>")
    assert data["player"] == "O'Brien <b>"  # JSON: the name as it is, for the website to escape
    assert data["month_standing"]["rank"] == 11 and data["month_standing"]["tied"] is True
    assert data["top10_shootout"] == {"qualified": False, "cut": 150, "points_needed": 75, "open_places": 0}
    assert data["ticket_chance"] == {"state": "nights_left", "nightly_games_left": 2, "places": 5, "pass_down": True}


def test_api_road_of_a_member_with_no_results(client, league, month):
    data = road_json(client, league, "Nia New")
    assert data["month_standing"] is None and data["season_standing"] is None
    assert data["top10_shootout"]["points_needed"] == 150 and data["form"] == []
    assert data["monthly_final_ticket"] is None
    assert data["nights_left"]["at_their_venues"] is False and len(data["nights_left"]["nights"]) == 2


def test_api_road_refuses_what_is_not_a_member_of_the_league(client, league, month):
    from services import leagues
    other = leagues.create_league("Other League", "cash")
    db.session.commit()
    ann = member("Ann")
    for url in (f"/api/leagues/{other.slug}/members/{ann.id}/road", f"/api/leagues/{league.slug}/members/0/road",
                f"/api/leagues/{league.slug}/members/999999/road", f"/api/leagues/{league.slug}/members/Ann/road"):
        response = client.get(url)
        assert response.status_code == 404 and "error" in response.get_json(), url
    bob = member("Bob")
    bob.merged_into_id = ann.id  # a merged record is gone from every public page
    db.session.commit()
    assert client.get(f"/api/leagues/{league.slug}/members/{bob.id}/road").status_code == 404


def test_api_road_shows_no_private_data(client, league, month):
    ann = member("Ann")
    ann.contact = "ann@example.org"
    db.session.commit()
    text = client.get(f"/api/leagues/{league.slug}/members/{ann.id}/road").get_data(as_text=True)
    assert ann.card_code not in text and ann.cookie_secret not in text and "ann@example.org" not in text
    codes = db.session.scalars(db.select(Event.check_in_code)).all()
    assert not any(code in text for code in codes if code)
