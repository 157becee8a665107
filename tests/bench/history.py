"""A league with years of settled nights, written fast with bulk inserts, for the benchmarks.

Results come from demo.generate_nights; points and Monthly Final tickets are decided by the real
rules (league.points.award_points, league.qualify.monthly_tickets), then written with SQLAlchemy
Core bulk inserts rather than one ORM object per row. tests/bench/test_standings.py checks a
month of it against records' own settle_tickets / award_event_points.
"""
from __future__ import annotations

import datetime as dt
import os
import random
from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import insert

from league.events import EVENT_TYPES
from league.members import name_key
from league.points import Finish, award_points
from league.qualify import EventResult, monthly_tickets
from services import demo, leagues
from services.models import Entry, Event, Member, Ticket, Venue
from wiring.extensions import db

FULL = os.environ.get("SHUFFLEUP_BENCH_SCALE", "").lower() == "full"
LEAGUE = "Benchmark League"
VENUES = ("The Rusty Anchor Hotel", "The Commercial Hotel", "Grand Junction Tavern", "Royal Oak Hotel")
END = dt.date(2025, 12, 31)
MONTH = "2025-06"  # the month the benchmarks query
YEAR = 2025


@dataclass(frozen=True)
class Scale:
    years: float
    members: int
    import_rows: int


# Full: 5 years x 4 venues x 5 nights a week x ~40 players = ~208,000 results.
# Small (plain `make test`, benchmarks disabled): 7 months, so that MONTH still has a full table.
SCALE = Scale(years=5, members=800, import_rows=10_000) if FULL else Scale(years=7 / 12, members=300, import_rows=1_000)


@dataclass(frozen=True)
class History:
    league_id: int
    events: int
    results: int
    tickets: int
    month: str
    year: int
    month_counted: int  # entries of MONTH that count in the table (played or dq)


def build(scale: Scale = SCALE, seed: int = 1) -> History:
    """Write the league inside the current app context and commit; about 1 s per 10,000 results."""
    rng = random.Random(seed)
    start = dt.date(END.year - int(scale.years) + 1, 1, 1) if scale.years >= 1 else \
        dt.date(END.year, 12 - round(scale.years * 12) + 1, 1)
    league = leagues.create_league(LEAGUE, "free")
    venues = [Venue(league_id=league.id, name=name) for name in VENUES]
    db.session.add_all(venues)
    db.session.flush()
    venue_ids = {v.name: v.id for v in venues}

    names = demo.member_names(rng, scale.members)
    db.session.execute(insert(Member), [
        {"league_id": league.id, "name": n, "name_key": name_key(n), "card_code": f"bench-{i}"}
        for i, n in enumerate(names)])
    member_ids = dict(db.session.execute(db.select(Member.name, Member.id).where(Member.league_id == league.id)).all())

    nights = demo.generate_nights(rng, names, VENUES, start, END, 5, (35, 45), highroller_venue=VENUES[0])
    next_id = (db.session.scalar(db.select(db.func.max(Event.id))) or 0) + 1
    settled = dt.datetime(2026, 1, 1)
    event_rows, entry_rows, month_results = [], [], defaultdict(list)
    month_counted = 0
    for event_id, night in enumerate(nights, start=next_id):
        kind = EVENT_TYPES[night.event_type]
        event_rows.append({"id": event_id, "league_id": league.id, "venue_id": venue_ids[night.venue],
                           "event_type": night.event_type, "date": night.date, "start_time": night.start_time,
                           "status": "settled", "settled_at": settled, "created_at": settled})
        finishes = [Finish(member_ids[row.player], row.position, row.status) for row in night.rows]
        points = award_points(finishes, high_roller=kind.high_roller, awards_points=kind.awards_points)
        for finish in finishes:
            entry_rows.append({"event_id": event_id, "member_id": finish.key, "status": finish.status,
                               "position": finish.position, "points": points[finish.key], "created_at": settled})
        month = night.date.strftime("%Y-%m")
        if month == MONTH and kind.awards_points:
            month_counted += sum(f.status in ("played", "dq") for f in finishes)
        if kind.awards_tickets:
            # The same settle order as settling.settle_order: date, start time, venue name, id.
            order = (night.date, night.start_time or dt.time(0, 0), night.venue.casefold(), event_id)
            month_results[month].append(EventResult(event_id, order, tuple(finishes)))
    db.session.execute(insert(Event), event_rows)
    for chunk in range(0, len(entry_rows), 50_000):
        db.session.execute(insert(Entry), entry_rows[chunk:chunk + 50_000])
    ticket_rows = [{"league_id": league.id, "month": month, "member_id": t.player, "event_id": t.event,
                    "position": t.position}
                   for month, results in month_results.items()
                   for t in monthly_tickets(results, pass_down=league.pass_down)]
    db.session.execute(insert(Ticket), ticket_rows)
    db.session.commit()
    return History(league.id, len(event_rows), len(entry_rows), len(ticket_rows), MONTH, YEAR, month_counted)


def results_file(rows: int, seed: int = 2) -> str:
    """A results file (CSV text) of about `rows` rows: four pubs, five nights a week, ~40 a night."""
    rng = random.Random(seed)
    names = demo.member_names(rng, 600)
    days = max(7, round(rows / (4 * 40) * 7 / 5 * 1.3))  # a margin: the last night is trimmed
    start = dt.date(2025, 1, 1)
    nights = demo.generate_nights(rng, names, VENUES, start, start + dt.timedelta(days=days - 1), 5, (35, 45))
    out, total = [], 0
    for night in nights:
        if total + len(night.rows) > rows:
            # Trim the last night to land on `rows` exactly: keep its first finishers in order.
            keep = [r for r in night.rows if r.status != "no_show"][:rows - total]
            night = type(night)(night.date, night.start_time, night.venue, night.event_type, tuple(keep))
        out.append(night)
        total += len(night.rows)
        if total >= rows:
            break
    return demo.results_csv(out)
