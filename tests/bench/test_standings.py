"""Standings and qualifiers over 5 years of a 4-venue league (target: a month's table in <= 50 ms on SQLite).

Each round starts a fresh session, as a request would, so nothing is served from the identity map.
"""
from league.standings import StandingRow
from services import finals, leagues, settling, standings
from services.models import Event, League, Ticket
from wiring.extensions import db


def fresh(league_id: int) -> League:
    db.session.remove()
    return db.session.get(League, league_id)


def check_ranked(table: list[StandingRow]) -> None:
    """R-STD-1: points descending, equal points share a rank, the next rank skips."""
    assert table and table[0].rank == 1
    for index, (before, row) in enumerate(zip(table, table[1:]), start=1):
        assert row.points <= before.points
        assert row.rank == (before.rank if row.points == before.points else index + 1)


def test_month_standings(benchmark, history_app):
    _, built = history_app
    table = benchmark(lambda: standings.month_standings(fresh(built.league_id), built.month))
    check_ranked(table)
    assert sum(row.events for row in table) == built.month_counted


def test_year_standings(benchmark, history_app):
    _, built = history_app
    table = benchmark(lambda: standings.year_standings(fresh(built.league_id), built.year))
    check_ranked(table)
    assert sum(row.events for row in table) > built.month_counted


def test_qualifiers(benchmark, history_app):
    _, built = history_app
    found = benchmark(lambda: finals.qualifiers(fresh(built.league_id), built.month))
    tickets = found["monthly_final"]
    assert tickets and len({t["player"] for t in tickets}) == len(tickets)
    assert [(t["date"], t["venue"]) for t in tickets] == sorted(
        [(t["date"], t["venue"]) for t in tickets], key=lambda dv: dv[0])
    assert len(found["top10_shootout"]) >= 10
    assert found["highroller_final"]


def test_the_bulk_built_history_agrees_with_records(history_app):
    """The fast builder decides points and tickets as records does: re-settle MONTH the slow way and compare."""
    _, built = history_app
    league = fresh(built.league_id)
    before = {(t.member_id, t.event_id, t.position) for t in db.session.scalars(
        db.select(Ticket).where(Ticket.league_id == league.id, Ticket.month == built.month))}
    first, following = leagues.parse_month(built.month)
    events = db.session.scalars(db.select(Event).where(
        Event.league_id == league.id, Event.date >= first, Event.date < following)).all()
    stored = {e.id: e.points for ev in events for e in ev.entries}
    for event in events:
        settling.award_event_points(event)
    assert {e.id: e.points for ev in events for e in ev.entries} == stored
    after = {(t.member_id, t.event_id, t.position) for t in standings.settle_tickets(league, built.month)}
    assert after == before and len(before) >= 5
    db.session.rollback()


def test_public_standings_page(benchmark, history_app):
    """Issue 5: the month standings page anyone can open, through the whole request path."""
    app, built = history_app
    slug = fresh(built.league_id).slug
    client = app.test_client()
    page = benchmark(lambda: client.get(f"/leagues/{slug}/months/{built.month}"))
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and 'id="member-' in html
    assert html.count('id="member-') == len(standings.month_standings(fresh(built.league_id), built.month))
