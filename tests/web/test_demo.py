"""The demo league `make run` loads (demo.py) and its results generator."""
import datetime as dt
import random
import time
from collections import Counter

import pytest

from league import clock, structures
from league.points import check_finishing_order, rank_by_chips
from league.results_file import parse_results
from services import demo, finals, leagues, standings
from services.models import Entry, Event, League, Member, Ticket, User, Venue
from tests.conftest import close, login, make_app
from wiring.extensions import db


@pytest.fixture(scope="module")
def demo_file(databases, migrated_db, tmp_path_factory):
    """The demo loaded once per module into a migrated database; tests that only read it use a copy."""
    database = databases.copy(migrated_db, tmp_path_factory.mktemp("demo"))
    app = make_app(database)
    with app.app_context():
        assert demo.load_if_empty() is True
    close(app)
    yield database
    databases.drop(database)


@pytest.fixture
def loaded(databases, demo_file, tmp_path):
    """An app on a fresh copy of the loaded demo."""
    database = databases.copy(demo_file, tmp_path)
    app = make_app(database)
    with app.app_context():
        yield app
    close(app)
    databases.drop(database)


def counts():
    return {model.__name__: db.session.scalar(db.select(db.func.count()).select_from(model))
            for model in (League, Venue, Member, User, Event, Entry, Ticket)}


def check_ranks(table):
    """R-STD-1: points descending; equal points share a rank; the next rank skips (1, 2, 2, 4)."""
    assert table
    assert table[0].rank == 1
    for index, (before, row) in enumerate(zip(table, table[1:]), start=1):
        assert row.points <= before.points
        assert row.rank == (before.rank if row.points == before.points else index + 1)
        assert row.events >= 1


def test_demo_loads_into_an_empty_database(app):
    assert demo.load_if_empty() is True
    league = db.session.scalar(db.select(League))
    assert (league.name, league.kind, league.pass_down) == ("Harbour City Poker League", "free", True)
    assert len(league.venues) == 4
    names = set(db.session.scalars(db.select(Member.name)))
    assert 100 <= len(names) <= 140
    assert "O'Brien <b>" in names and "Zoë Papadopoulos" in names
    users = {u.username: u for u in db.session.scalars(db.select(User))}
    assert users["organiser"].role == "organiser" and users["organiser"].check_password("organiser-demo")
    assert users["host"].role == "host" and users["host"].check_password("host-demo")
    assert all(u.display_name and u.display_name != u.username for u in users.values())

    today = league.today()  # the demo is dated at its venues
    settled = db.session.scalars(db.select(Event).where(Event.status == "settled")).all()
    previous_month = (today.replace(day=1) - dt.timedelta(days=1)).strftime("%Y-%m")
    assert {e.month for e in settled} >= {previous_month}
    assert all(e.date < today for e in settled)
    if today.day > 4:  # a night or two may be called off
        assert today.strftime("%Y-%m") in {e.month for e in settled}
    assert {e.venue.name for e in settled} == {v.name for v in league.venues}
    fields = [sum(x.status in ("played", "dq") for x in e.entries) for e in settled]
    assert min(fields) == 4 and max(fields) >= 50
    assert any(e.event_type == "highroller" for e in settled)
    statuses = Counter(x.status for e in settled for x in e.entries)
    assert statuses["no_show"] >= 1 and statuses["dq"] >= 1
    assert any(c > 1 for e in settled for c in Counter(x.position for x in e.entries if x.position).values())
    assert sum(x.points for e in settled for x in e.entries) > 0
    assert db.session.scalar(db.select(db.func.count()).select_from(Ticket)) > 0

    # R-PTS-7: the deal night's chip counts fix the deal players' positions.
    dealt = [x for e in settled for x in e.entries if x.chips_at_deal is not None]
    assert len(dealt) == 4 and len({x.event_id for x in dealt}) == 1
    assert rank_by_chips({x.id: x.chips_at_deal for x in dealt}) == {x.id: x.position for x in dealt}

    running = db.session.scalars(db.select(Event).where(Event.status == "running")).all()
    assert len(running) == 1
    tonight = running[0]
    assert (tonight.date, tonight.start_time, tonight.host.username) == (today, dt.time(19, 0), "host")
    assert len(tonight.entries) == 24
    assert all(x.status == "playing" and x.position is None for x in tonight.entries)
    state = clock.ClockState(tonight.clock_index, tonight.clock_item_elapsed_ms,
                             tonight.clock_running_since_ms, tonight.clock_started, tonight.clock_version)
    view = clock.view(structures.from_json(tonight.structure), state, int(time.time() * 1000))
    assert view.running and view.started and view.version == 1
    assert 34 * 60_000 <= view.play_elapsed_ms <= 37 * 60_000
    assert view.level_number == 3
    scheduled = db.session.scalars(db.select(Event).where(Event.status == "scheduled")).all()
    assert [(e.date, e.venue_id != tonight.venue_id) for e in scheduled] == [(today + dt.timedelta(days=1), True)]


def test_a_second_load_changes_nothing(loaded):
    before = counts()
    assert demo.load_if_empty() is False
    assert counts() == before


def test_demo_does_not_load_over_an_existing_league(app, league):
    assert demo.load_if_empty() is False
    assert counts()["Event"] == 0


def test_organiser_logs_in_with_the_demo_password_and_names_are_escaped(loaded):
    client = loaded.test_client()
    response = login(client, "organiser", "organiser-demo")
    assert response.status_code == 302 and response.headers["Location"].startswith("/organiser")
    assert client.get(response.headers["Location"], follow_redirects=True).status_code == 200
    today = db.session.scalar(db.select(League)).today()
    previous_month = (today.replace(day=1) - dt.timedelta(days=1)).strftime("%Y-%m")
    page = client.get(f"/organiser/harbour-city-poker-league/months/{previous_month}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "O&#39;Brien &lt;b&gt;" in html
    assert "O'Brien <b>" not in html
    assert "Zoë Papadopoulos" in html


def test_host_logs_in_with_the_demo_password(loaded):
    client = loaded.test_client()
    assert login(client, "host", "host-demo").status_code == 302
    assert login(client, "host", "wrong").status_code == 401


def test_demo_standings_are_ranked(loaded):
    league = db.session.scalar(db.select(League))
    months = leagues.league_months(league)
    assert months
    for month in months:
        check_ranks(standings.month_standings(league, month))
        found = finals.qualifiers(league, month)
        assert found["monthly_final"] and len(found["top10_shootout"]) >= 10
    check_ranks(standings.year_standings(league, league.today().year))


def test_demo_on_the_first_of_a_month(app):
    """Loaded on the 1st, the current month has no past nights yet: the previous month carries the demo."""
    assert demo.load_if_empty(today=dt.date(2027, 3, 1)) is True
    league = db.session.scalar(db.select(League))
    assert leagues.league_months(league) == ["2027-02"]
    assert db.session.scalar(db.select(Event).where(Event.status == "running")).date == dt.date(2027, 3, 1)
    assert db.session.scalar(db.select(db.func.count()).select_from(Entry).where(Entry.chips_at_deal.is_not(None))) == 4


def test_generated_nights_are_valid_results():
    rng = random.Random(7)
    members = demo.member_names(rng, 200)
    events = demo.generate_nights(rng, members, ["Pub A", "Pub B", "Pub C"], dt.date(2026, 1, 1),
                                  dt.date(2026, 3, 31), 5, (4, 50), highroller_venue="Pub A")
    assert events == sorted(events, key=lambda e: e.date)
    assert {e.event_type for e in events} == {"nightly", "highroller"}
    per_day = Counter()
    for event in events:
        check_finishing_order([r.position for r in event.rows if r.position is not None])
        assert 4 <= demo.field_of(event) <= 50 or event.event_type == "highroller"
        assert all((r.position is None) == (r.status == "no_show") for r in event.rows)
        for row in event.rows:
            per_day[(event.date, row.player)] += 1
    assert max(per_day.values()) == 1  # R-LATE-4: one game a day
    parsed = parse_results(demo.results_csv(events))
    assert sum(len(e.rows) for e in parsed) == sum(len(e.rows) for e in events)
    rng2 = random.Random(7)
    same = demo.generate_nights(rng2, demo.member_names(rng2, 200), ["Pub A", "Pub B", "Pub C"],
                                dt.date(2026, 1, 1), dt.date(2026, 3, 31), 5, (4, 50), highroller_venue="Pub A")
    assert same == events  # deterministic: the same seed gives the same nights


def test_the_demo_command(runner):
    result = runner.invoke(args=["league", "demo"])
    assert result.exit_code == 0 and "Loaded the demo league" in result.output
    result = runner.invoke(args=["league", "demo"])
    assert result.exit_code == 0 and "demo not loaded" in result.output


def test_the_home_page_shows_tonights_game(loaded):
    html = loaded.test_client().get("/").get_data(as_text=True)
    assert demo.TONIGHT_VENUE in html and demo.LEAGUE_NAME in html
