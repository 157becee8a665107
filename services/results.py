"""Results in the database: importing past nights (and previewing an import), a night's finishers, and one
member's own records."""
from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, insert
from sqlalchemy.orm import joinedload, selectinload

from league.events import EVENT_TYPES
from league.members import name_key
from league.payouts import default_money
from league.points import Finish, award_points
from league.results_file import EventResults, ResultsFileError
from league.statuses import FIELD, ON_THEIR_PHONE, PARTICIPANT_STATUSES, EntryStatus, EventStatus, LeagueKind
from services.members import drop_unused
from services.models import Entry, Event, League, Member, Ticket, Venue, utcnow
from services.standings import settle_tickets
from wiring.extensions import db

if TYPE_CHECKING:
    from services.night_snapshot import NightSnapshot


@dataclass(frozen=True)
class ImportSummary:
    events: int
    results: int
    new_members: int
    new_venues: int
    months: tuple[str, ...]


def import_results(league: League, events: list[EventResults], *, replace: bool = False) -> ImportSummary:
    """Write a parsed results file (R-PTS for each event, then R-QUAL for each month it touches).

    An event that already has results is an error unless `replace` is set, so importing the same
    file twice cannot double anyone's points. Points are decided before writing, and entries and
    new members go in as bulk inserts (one INSERT per row is what makes a 10,000-row file slow on
    SQLite). Nothing is committed here: the caller commits once.
    """
    venues = {name_key(v.name): v for v in db.session.scalars(db.select(Venue).where(Venue.league_id == league.id))}
    members = dict(db.session.execute(db.select(Member.name_key, Member.id).where(Member.league_id == league.id)).all())
    existing = {(e.venue_id, e.date, e.start_time): e for e in db.session.scalars(
        db.select(Event).where(Event.league_id == league.id, Event.date.in_({f.date for f in events})))}
    new_venues = 0
    errors, months, targets = _money_problems(league, events), set(), []
    replaced: set[int] = set()  # the players of results replaced, some perhaps under a name now corrected
    for found in events:
        venue = venues.get(name_key(found.venue))
        if venue is None:
            venue = venues[name_key(found.venue)] = Venue(league_id=league.id, name=found.venue)
            db.session.add(venue)
            db.session.flush()
            new_venues += 1
        event = existing.get((venue.id, found.date, found.start_time))
        if event is not None and db.session.scalar(db.select(Entry.id).where(Entry.event_id == event.id).limit(1)):
            if not replace:
                errors.append(f"line {found.first_line}: {found.describe()} already has results "
                              "(import with --replace to overwrite them)")
                continue
            months.add(event.month)
            replaced |= set(db.session.scalars(db.select(Entry.member_id).where(Entry.event_id == event.id)))
            db.session.execute(delete(Entry).where(Entry.event_id == event.id))
        if event is None:
            event = Event(league_id=league.id, venue=venue, date=found.date, start_time=found.start_time,
                          event_type=found.event_type)
            db.session.add(event)
        event.event_type, event.status, event.settled_at = found.event_type, EventStatus.SETTLED, utcnow()
        _set_money(league, event, found)
        targets.append((event, found))
        months.add(event.month)
    errors += _in_another_game(league, [(event.id, found) for event, found in targets])
    if errors:
        raise ResultsFileError(errors)
    new = {}
    for _, found in targets:
        for row in found.rows:
            key = name_key(row.player)
            if key not in members and key not in new:
                new[key] = row.player
    if new:
        db.session.execute(insert(Member), [
            {"league_id": league.id, "name": name, "name_key": key, "card_code": secrets.token_urlsafe(24)}
            for key, name in new.items()])
        members.update(db.session.execute(db.select(Member.name_key, Member.id).where(
            Member.league_id == league.id, Member.name_key.in_(list(new)))).all())
    db.session.flush()  # the new events get their ids
    rows, now = [], utcnow()
    for event, found in targets:
        kind = EVENT_TYPES[found.event_type]
        finishes = [Finish(i, r.position, r.status) for i, r in enumerate(found.rows)]
        points = award_points(finishes, high_roller=kind.high_roller, awards_points=kind.awards_points)
        rows += [{"event_id": event.id, "member_id": members[name_key(r.player)], "status": r.status,
                  "position": r.position, "points": points[i], "prize": r.prize, "created_at": now}
                 for i, r in enumerate(found.rows)]
    db.session.execute(insert(Entry), rows)
    for event, _ in targets:
        db.session.expire(event, ["entries"])
    for month in sorted(months):
        settle_tickets(league, month)
    drop_unused(replaced)  # R-MEM-1: a name the file corrected leaves no empty member behind
    return ImportSummary(len(events), len(rows), len(new), new_venues, tuple(sorted(months)))


def _in_another_game(league: League, nights: list[tuple[int | None, EventResults]]) -> list[str]:
    """R-LATE-4 against the league's own nights: a file's player who is already in the field of another
    night of the league starting at the same date and time (not the file's own nights, given with their
    event ids where they exist already) is named at their line. The file against itself:
    league.results_file.one_game_at_a_time."""
    written = {event_id for event_id, _ in nights if event_id is not None}
    # A night with no start time could be an afternoon's or an evening's: only a known time is a clash.
    starts = {(found.date, found.start_time) for _, found in nights if found.start_time is not None}
    if not starts:
        return []
    taken: dict[tuple, Event] = {}
    for member_key, event in db.session.execute(
            db.select(Member.name_key, Event).join(Entry, Entry.member_id == Member.id)
            .join(Event, Entry.event_id == Event.id)
            .options(joinedload(Event.venue))
            .where(Event.league_id == league.id, Event.date.in_({date for date, _ in starts}),
                   Entry.status.in_(FIELD), Event.id.not_in(written or {0}))).all():
        if (event.date, event.start_time) in starts:
            taken.setdefault((event.date, event.start_time, member_key), event)
    problems = []
    for _, found in nights:
        for row in found.rows:
            other = taken.get((found.date, found.start_time, name_key(row.player)))  # a None time finds none
            if other is not None and row.status != EntryStatus.NO_SHOW:
                problems.append(f"line {row.line}: {row.player} is already in the {other.venue.name} night of "
                                f"{other.date.isoformat()} at {other.start_time:%H:%M}: one player cannot be in two "
                                "games at once (R-LATE-4)")
    return problems


def _money_problems(league: League, events: list[EventResults]) -> list[str]:
    """R-PAY-3: a free-to-play league's nights take no buy-in: a file giving one is refused at its line."""
    if league.kind == LeagueKind.CASH:
        return []
    return [f"line {found.first_line}: {found.describe()} has a ${found.buy_in} buy-in, but {league.name} is a "
            "free-to-play league" for found in events if found.buy_in]


def _set_money(league: League, event: Event, found: EventResults) -> None:
    """R-PAY-3: an imported cash night's money, so its buy-ins feed the pools and the ledger: the file's
    buy-in, and the league's pool share (never more than the buy-in) and guarantee for the type.
    A night without a buy-in in the file keeps what it was booked with (a free night: nothing)."""
    if not found.buy_in:
        return
    money = default_money(found.event_type, league.kind, league.settings)
    event.buy_in, event.pool_share = found.buy_in, min(money.pool_share, found.buy_in)
    if event.id is None:  # a booked night keeps the guarantee it was booked with
        event.guarantee = money.guarantee


@dataclass(frozen=True)
class NightPreview:
    """One night of a results file as it would land: new, replacing results, or filling a booked night."""
    night: EventResults
    change: str  # "new" | "replaces" | "fills"
    players: int


@dataclass(frozen=True)
class ImportPreview:
    """What importing a results file would change, before anything is written (R-PTS, R-QUAL)."""
    nights: tuple[NightPreview, ...]
    new_members: tuple[str, ...]
    new_venues: tuple[str, ...]
    results: int
    months: tuple[str, ...]
    problems: tuple[str, ...]  # line-numbered, as import_results would refuse them

    def fingerprint(self) -> str:
        """A digest of everything the preview shows: a confirm whose file would now change something
        else (the league moved on since the preview) is refused as stale."""
        shown = [(n.night.describe(), n.night.event_type, n.change, n.players) for n in self.nights]
        text = repr((shown, self.new_members, self.new_venues, self.results, self.months, self.problems))
        return hashlib.sha256(text.encode()).hexdigest()


def preview_import(league: League, events: list[EventResults], *, replace: bool = False) -> ImportPreview:
    """R-PTS, R-QUAL: what import_results would do with the same file, read only: each night new or
    replacing (or filling a booked night), the members and venues it would create, the months it
    would settle, and the line-numbered refusals it would give (a night with results, no `replace`)."""
    venues = {name_key(v.name): v for v in db.session.scalars(db.select(Venue).where(Venue.league_id == league.id))}
    members = set(db.session.scalars(db.select(Member.name_key).where(Member.league_id == league.id)))
    existing = {(e.venue_id, e.date, e.start_time): e for e in db.session.scalars(
        db.select(Event).where(Event.league_id == league.id, Event.date.in_({f.date for f in events})))}
    with_results = set(db.session.scalars(db.select(Entry.event_id).where(
        Entry.event_id.in_([e.id for e in existing.values()])).distinct())) if existing else set()
    nights, problems, months, new_venues, new_members = [], _money_problems(league, events), set(), {}, {}
    own: list[tuple[int | None, EventResults]] = []  # the file's nights, with their event ids where they exist
    for found in events:
        venue = venues.get(name_key(found.venue))
        if venue is None:
            new_venues.setdefault(name_key(found.venue), found.venue)
        event = existing.get((venue.id, found.date, found.start_time)) if venue is not None else None
        change = "new" if event is None else ("replaces" if event.id in with_results else "fills")
        own.append((event.id if event is not None else None, found))
        if change == "replaces" and not replace:
            problems.append(f"line {found.first_line}: {found.describe()} already has results "
                            "(tick “replace” to overwrite them)")
        months.add(found.date.strftime("%Y-%m"))
        for row in found.rows:
            if name_key(row.player) not in members:
                new_members.setdefault(name_key(row.player), row.player)
        # R-PTS-5: the players who took a seat; a no-show on the file is not one.
        nights.append(NightPreview(found, change, sum(row.status != EntryStatus.NO_SHOW for row in found.rows)))
    problems += _in_another_game(league, own)
    return ImportPreview(tuple(nights), tuple(new_members.values()), tuple(new_venues.values()),
                         sum(len(n.night.rows) for n in nights), tuple(sorted(months)), tuple(problems))


def finishers(event: Event) -> list[Entry]:
    """R-PTS-5: the participants (played or disqualified) in finishing order; no-shows are not."""
    entries = db.session.scalars(db.select(Entry).options(selectinload(Entry.member)).where(
        Entry.event_id == event.id, Entry.status.in_(PARTICIPANT_STATUSES))).all()
    return sorted(entries, key=lambda e: (e.position is None, e.position or 0, e.member.name.casefold()))


def ticketed(event: Event) -> set[int]:
    """R-QUAL-1/2: the members whose Monthly Final ticket came from this event."""
    return set(db.session.scalars(db.select(Ticket.member_id).where(Ticket.event_id == event.id)))


def result_row(entry: Entry, ticketed: set[int]) -> dict[str, Any]:
    """R-PTS, R-PAY-1/2, R-QUAL-1/2: one finisher of a settled night as the API and the live screens
    give it: place, name, status, points, prize as paid and whether it earned a Monthly Final ticket."""
    return {"position": entry.position, "player": entry.member.name, "status": entry.status, "points": entry.points,
            "prize": entry.prize, "monthly_final_ticket": entry.member_id in ticketed}


# The places a live screen's result shows however the night went (R-PTS-1's top 10: the final table).
BOARD_TOP = 10


def board(night: NightSnapshot) -> list[dict[str, Any]]:
    """R-PTS, R-PAY-1/2, R-QUAL-1/2: a settled night's result as the big screen and every phone show
    it once play is over: the top 10, and everyone else paid a prize or given a Monthly Final ticket,
    in finishing order (`result_row`s; the results page has the whole field)."""
    ticket_holders = ticketed(night.event)
    shown = [e for e in night.entries if e.status in PARTICIPANT_STATUSES and e.position is not None and (
        e.position <= BOARD_TOP or e.prize or e.member_id in ticket_holders)]
    shown.sort(key=lambda e: (e.position, e.member.name.casefold()))
    return [result_row(e, ticket_holders) for e in shown]


def member_live_entry(member: Member, since: dt.date) -> Entry | None:
    """The member's entry in a game not settled yet (dated `since` or later: a forgotten,
    never-settled night does not stay "tonight" for ever; a cancelled one is none), the latest first."""
    return db.session.scalar(db.select(Entry).join(Event).options(
        joinedload(Entry.event).joinedload(Event.venue)).where(
        Entry.member_id == member.id, Entry.status.in_(ON_THEIR_PHONE),
        Event.status.not_in((EventStatus.SETTLED, EventStatus.CANCELLED)), Event.date >= since)
        .order_by(Event.date.desc(), Event.start_time.desc(), Event.id.desc()).limit(1))


def member_results(member: Member, limit: int = 50) -> list[Entry]:
    """R-PTS-5: the member's settled games (played or disqualified), newest first."""
    return db.session.scalars(db.select(Entry).join(Event).options(
        joinedload(Entry.event).joinedload(Event.venue)).where(
        Entry.member_id == member.id, Entry.status.in_(PARTICIPANT_STATUSES), Event.status == EventStatus.SETTLED)
        .order_by(Event.date.desc(), Event.start_time.desc(), Event.id.desc()).limit(limit)).all()


def member_tickets(member: Member, limit: int = 6) -> list[Ticket]:
    """R-QUAL-1..3: the member's Monthly Final tickets, the latest months first."""
    return db.session.scalars(db.select(Ticket).options(
        joinedload(Ticket.event).joinedload(Event.venue)).where(Ticket.member_id == member.id)
        .order_by(Ticket.month.desc()).limit(limit)).all()

