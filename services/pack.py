"""The organiser's month-end pack and season from the database (R-STD, R-QUAL, R-FIN, R-PAY-3):
standings, ticket holders with pass-downs, the Top-10 Shoot-out with ties on 10th, the High-roller
Final's entrants and stacks, each venue's nights and money, the prize-pool ledger, the points race
and attendance for the pictures, and each table as CSV. league/ decides; this module reads."""
from __future__ import annotations

import csv
import datetime as dt
import io
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from league import pools
from league.qualify import SHOOTOUT_PLACES, TICKET_PLACES, shootout_qualifiers
from league.standings import StandingRow, top_with_ties
from league.statuses import PARTICIPANT_STATUSES, DealStatus, EntryStatus, EventStatus
from services import finals, leagues, pool_shares
from services.leagues import settle_order
from services.models import Entry, Event, League, Member
from services.standings import POINT_TYPES, month_standings, ticket_holders, year_standings
from wiring.extensions import db

RACE_LEADERS = 5  # the points race draws the month's top five (and anyone tied with 5th, up to 8)
RACE_MOST = 8


@dataclass(frozen=True)
class TicketLine:
    """R-QUAL-1/2: a Monthly Final ticket, the night it came from, and whether it passed down (a
    place below the top five, given because a finisher above already held one)."""

    player: str
    date: dt.date
    venue: str
    position: int
    passed_down: bool
    event_id: int | None = None
    start_time: dt.time | None = None  # two nights at one venue on one day are told apart by it


@dataclass(frozen=True)
class TicketNight:
    """R-QUAL-1/2: one night's Monthly Final tickets in place order (the printed pack lists a night a
    line: every holder, their place and the pass-down marks, in a fifth of the rows)."""

    date: dt.date
    venue: str
    tickets: tuple[TicketLine, ...]
    start_time: dt.time | None = None


@dataclass(frozen=True)
class ShootoutLine:
    """R-QUAL-4: a Top-10 Shoot-out qualifier; `tied_on_10th` marks everyone level with 10th when
    more than one player holds 10th's points."""

    rank: int
    player: str
    points: int
    tied_on_10th: bool


# R-FIN: the High-roller Final's entrants and stacks, as the public pages, the API and the CLI read them.
HighrollerLine = finals.HighrollerEntrant


@dataclass(frozen=True)
class NightLine:
    """One settled event of the month at a venue: players (took a seat, R-PTS-5), new members (their
    first night in the league), entries (every buy-in: re-entries and rebuys, R-ENTRY-2, and forfeited
    no-shows, R-LATE-3), and its money (R-PAY-3)."""

    event_id: int
    date: dt.date
    start_time: dt.time | None
    venue: str
    event_type: str
    players: int
    new_members: int
    entries: int
    taken_in: int
    paid_out: int
    deal: bool
    ledger: pools.EventLine
    sponsor: str | None = None  # who put the sponsor's money in (R-PAY-3)


@dataclass(frozen=True)
class VenueLine:
    """A venue's month: its nights added up."""

    venue: str
    nights: int
    players: int
    new_members: int
    entries: int
    taken_in: int
    paid_out: int


@dataclass
class MonthPack:
    """Everything the month-end pack shows (R-STD-1, R-QUAL-1..5, R-FIN, R-PAY-3)."""

    league: League
    month: str
    label: str
    table: list[StandingRow]
    tickets: list[TicketLine]
    shootout: list[ShootoutLine]
    highroller: list[HighrollerLine]
    nights: list[NightLine]
    venues: list[VenueLine]
    ledger: pools.Ledger
    race: dict[str, list[tuple[dt.date, int]]] = field(default_factory=dict)  # player → (night, points so far)
    attendance: dict[str, list[tuple[dt.date, int]]] = field(default_factory=dict)  # venue → (night, players)
    left_out: dict[str, int] = field(default_factory=dict)  # the printed pack: rows only in the CSV, by table
    ticket_nights: list[TicketNight] = field(default_factory=list)  # the printed pack: the tickets night by night


# The printed pack (A4 page and PDF) lists the leaders, not a big league's every player: 741 players a
# month would be 20 pages nobody reads and half a minute of WeasyPrint. The screen and the CSVs keep
# every row; the page says how many are left out and where they are.
PRINT_ROWS = 50


def for_print(pack: MonthPack, rows: int | None = None) -> MonthPack:
    """R-STD-1, R-QUAL-1/2, R-FIN: the pack as printed: the standings' top `rows` with everyone tied on
    the last (league.standings.top_with_ties), and the High-roller Final's entrants among them; the
    count of the rest in `left_out`; every ticket, a night a line (`ticket_nights`)."""
    table = top_with_ties(pack.table, PRINT_ROWS if rows is None else rows)
    shown = {row.player for row in table}
    highroller = [line for line in pack.highroller if line.player in shown]
    left_out = {name: count for name, count in (("standings", len(pack.table) - len(table)),
                                                ("highroller", len(pack.highroller) - len(highroller))) if count}
    return replace(pack, table=table, highroller=highroller, left_out=left_out,
                   ticket_nights=tickets_by_night(pack.tickets))


def tickets_by_night(tickets: Sequence[TicketLine]) -> list[TicketNight]:
    """R-QUAL-1/2: the tickets (in settle order) grouped by the night each came from, in the same order."""
    nights: list[TicketNight] = []
    for ticket in tickets:
        if nights and nights[-1].tickets[-1].event_id == ticket.event_id:
            nights[-1] = replace(nights[-1], tickets=(*nights[-1].tickets, ticket))
        else:
            nights.append(TicketNight(ticket.date, ticket.venue, (ticket,), ticket.start_time))
    return nights


@dataclass
class SeasonPack:
    """R-STD-2 and R-PAY-3: the season's Top 50 with ties, each player's points month by month, and
    the season's books with its Top-50 pool."""

    league: League
    year: int
    table: list[StandingRow]
    total: int
    months: list[str]
    by_month: dict[int, dict[str, int]]
    ledger: pools.Ledger


# --- reading -------------------------------------------------------------------------------------

def _month_events(league: League, first: dt.date, following: dt.date) -> list[Event]:
    events = leagues.settled_nights(league, first, following)
    return sorted(events, key=settle_order)


def _books(league: League, events: list[Event], counts, first: dt.date) -> pools.Ledger:
    """R-PAY-3: the period's ledger, with the Monthly Final pools its finals draw from months before it
    (services.pool_shares: the same figure the final's prize table paid out)."""
    money = [pool_shares.event_money(event, counts.get(event.id, {})) for event in events]
    inside = {event.month for event in events}
    brought = {}
    for item in money:
        if item.draws and item.draws not in inside and item.draws < first.strftime("%Y-%m"):
            brought[item.draws] = pool_shares.month_final_pool(league, item.draws)
    return pools.ledger(money, brought)


def _tickets(league: League, month: str) -> list[TicketLine]:
    return [TicketLine(t.member.name, t.event.date, t.event.venue.name, t.position, t.position > TICKET_PLACES,
                       t.event_id, t.event.start_time) for t in ticket_holders(league, month)]


def _shootout(table: list[StandingRow]) -> list[ShootoutLine]:
    qualified = shootout_qualifiers(table)
    tenth = qualified[SHOOTOUT_PLACES - 1].points if len(qualified) >= SHOOTOUT_PLACES else None
    level = sum(1 for row in qualified if row.points == tenth)
    return [ShootoutLine(row.rank, row.player, row.points, tenth is not None and level > 1 and row.points == tenth)
            for row in qualified]


def month_pack(league: League, month: str) -> MonthPack:
    """R-STD-1, R-QUAL-1..5, R-FIN, R-PAY-3: the month-end pack (ValueError for a bad month)."""
    first, following = leagues.parse_month(month)
    table = month_standings(league, month)
    events = _month_events(league, first, following)
    ids = [e.id for e in events]
    counts = pool_shares.entry_counts(ids)
    books = _books(league, events, counts, first)
    lines = {line.key: line for line in books.lines}

    # Who played where (R-PTS-5), in settle order, for new members, the race and attendance.
    played: dict[int, list[tuple[int, int]]] = defaultdict(list)  # member → [(event, points)]
    if ids:
        for event_id, member_id, points in db.session.execute(
                db.select(Entry.event_id, Entry.member_id, Entry.points)
                .where(Entry.event_id.in_(ids), Entry.status.in_(PARTICIPANT_STATUSES))):
            played[member_id].append((event_id, points))
    veterans: set[int] = set()
    if played:
        # One probe per member down their own entries (ix_entries_member) that stops at their first
        # earlier night, not a scan of every earlier entry: years of history are hundreds of thousands
        # of rows. (`event_id + 0`: left to itself SQLite drove the probe from the league's earlier
        # nights, one lookup per night of the five years for a member with none, a new one: 7 ms each.)
        earlier_nights = db.select(Event.id).where(Event.league_id == league.id, Event.date < first)
        earlier = db.select(Entry.id).where(
            Entry.member_id == Member.id, Entry.status.in_(PARTICIPANT_STATUSES),
            (Entry.event_id + 0).in_(earlier_nights)).exists()
        veterans = set(db.session.scalars(db.select(Member.id).where(Member.id.in_(list(played)), earlier)))
    order = {event_id: index for index, event_id in enumerate(ids)}
    new_at: dict[int, int] = defaultdict(int)
    for member_id, nights in played.items():
        if member_id not in veterans:
            new_at[min(nights, key=lambda n: order[n[0]])[0]] += 1

    nights = []
    for event in events:
        c = counts.get(event.id, {})
        players = pool_shares.field_of(c)
        nights.append(NightLine(
            event.id, event.date, event.start_time, event.venue.name, event.event_type, players, new_at[event.id],
            pool_shares.buy_ins_of(c) + c.get(EntryStatus.NO_SHOW, pool_shares.NONE).entries,
            lines[event.id].taken_in, lines[event.id].paid_out,
            event.deal_status == DealStatus.AGREED, lines[event.id], event.sponsor))
    by_venue: dict[str, list[NightLine]] = defaultdict(list)
    for night in nights:
        by_venue[night.venue].append(night)
    venues = [VenueLine(name, len(ns), sum(n.players for n in ns), sum(n.new_members for n in ns),
                        sum(n.entries for n in ns), sum(n.taken_in for n in ns), sum(n.paid_out for n in ns))
              for name, ns in sorted(by_venue.items(), key=lambda item: item[0].casefold())]

    attendance = {name: [(n.date, n.players) for n in ns] for name, ns in by_venue.items()}
    point_events = {e.id for e in events if e.event_type in POINT_TYPES}
    leaders = [row for row in top_with_ties(table, RACE_LEADERS) if row.points > 0][:RACE_MOST]
    race = {}
    dates = sorted({e.date for e in events if e.id in point_events})
    for row in leaders:
        scored: dict[dt.date, int] = defaultdict(int)
        for event_id, points in played.get(row.key, []):
            if event_id in point_events:
                scored[events[order[event_id]].date] += points
        total, series = 0, []
        for day in dates:
            total += scored.get(day, 0)
            series.append((day, total))
        race[row.player] = series

    return MonthPack(league, month, first.strftime("%B %Y"), table, _tickets(league, month), _shootout(table),
                     finals.highroller_entrants(league, month, table), nights, venues, books, race, attendance)


def season_pack(league: League, year: int) -> SeasonPack:
    """R-STD-2, R-PAY-3: the season's Top 50 with ties, their points per month, and its books (the
    Top-50 pool). ValueError for a bad year."""
    first, following = leagues.parse_year(year)
    whole = year_standings(league, year)
    table = top_with_ties(whole, 50)
    keys = [row.key for row in table]
    by_month: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    months: set[str] = set()
    if keys:
        for member_id, date, points in db.session.execute(
                db.select(Entry.member_id, Event.date, Entry.points).join(Event).where(
                    Event.league_id == league.id, Event.date >= first, Event.date < following,
                    Event.event_type.in_(POINT_TYPES), Event.status == EventStatus.SETTLED,
                    Entry.status.in_(PARTICIPANT_STATUSES), Entry.member_id.in_(keys))):
            month = date.strftime("%Y-%m")
            by_month[member_id][month] += points
            months.add(month)
    # Every settled event, free ones too: a free league's finals pay prizes the league funds (R-FIN).
    events = sorted(leagues.settled_nights(league, first, following), key=settle_order)
    counts = pool_shares.entry_counts([e.id for e in events])
    return SeasonPack(league, int(year), table, len(whole), sorted(months),
                      {k: dict(v) for k, v in by_month.items()}, _books(league, events, counts, first))


# --- CSV -----------------------------------------------------------------------------------------

# A cell a spreadsheet would read as a formula (or that a tab or carriage return could turn into one).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value) -> str:
    """A value as a CSV cell that no spreadsheet runs as a formula: text starting with = + - @ (or a
    tab or carriage return) gets a leading apostrophe. Whole numbers stay numbers (a negative one,
    say a balance, is a number, not a formula)."""
    if isinstance(value, bool):
        return "yes" if value else ""
    if isinstance(value, int):
        return str(value)
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


# A UTF-8 byte-order mark first: Excel on Windows reads a CSV without one in the PC's code page, and
# "Zoë Nguyễn" comes out garbled; with it, every spreadsheet reads UTF-8.
BOM = "\ufeff"


def csv_text(header: Sequence[str], rows: Iterable[Sequence]) -> str:
    """A table as CSV text for a spreadsheet: a byte-order mark, then every cell escaped by csv_cell."""
    out = io.StringIO()
    out.write(BOM)
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([csv_cell(h) for h in header])
    for row in rows:
        writer.writerow([csv_cell(v) for v in row])
    return out.getvalue()


def _time(start: dt.time | None) -> str:
    return start.strftime("%H:%M") if start else ""


def _night_name(n: NightLine) -> str:
    return n.date.isoformat() + (f" {_time(n.start_time)}" if n.start_time else "")


def month_tables(pack: MonthPack) -> dict[str, tuple[list[str], list[list]]]:
    """Each of the pack's tables as (header, rows) for CSV: standings, tickets, shootout, highroller,
    nights, venues, ledger."""
    ledger_rows = [[_night_name(n), n.venue, n.event_type, n.ledger.taken_in, n.ledger.guarantee, n.sponsor or "",
                    n.ledger.sponsor, n.ledger.drawn, n.ledger.funded, n.ledger.pool, n.ledger.paid_out,
                    n.ledger.left, n.ledger.short, n.ledger.to_final, n.ledger.to_top50, n.ledger.fee]
                   for n in pack.nights]
    books = pack.ledger
    ledger_rows.append(["Total", "", "", books.taken_in, books.guarantees, "", books.sponsors, books.brought_forward,
                        books.funded, "", books.paid_out, books.left_in_pools, books.short,
                        sum(books.final_pools.values()), books.top50_pool, books.fees])
    return {
        "standings": (["rank", "player", "points", "nights"],
                      [[r.rank, r.player, r.points, r.events] for r in pack.table]),
        "tickets": (["player", "date", "start_time", "venue", "position", "passed_down"],
                    [[t.player, t.date.isoformat(), _time(t.start_time), t.venue, t.position, t.passed_down]
                     for t in pack.tickets]),
        "shootout": (["rank", "player", "points", "tied_on_10th"],
                     [[s.rank, s.player, s.points, s.tied_on_10th] for s in pack.shootout]),
        "highroller": (["player", "nights", "starting_stack", "registered_24h_ahead"],
                       [[h.player, h.nights, h.stack, h.early] for h in pack.highroller]),
        "nights": (["night", "venue", "event_type", "players", "new_members", "entries", "taken_in", "paid_out",
                    "deal"],
                   [[_night_name(n), n.venue, n.event_type, n.players, n.new_members, n.entries, n.taken_in,
                     n.paid_out, n.deal] for n in pack.nights]),
        "venues": (["venue", "nights", "players", "new_members", "entries", "taken_in", "paid_out"],
                   [[v.venue, v.nights, v.players, v.new_members, v.entries, v.taken_in, v.paid_out]
                    for v in pack.venues]),
        "ledger": (["night", "venue", "event_type", "taken_in", "guarantee", "sponsor", "sponsor_money",
                    "drawn_from_final_pool", "league_funded", "pool", "paid_out", "left_in_pool", "short",
                    "to_monthly_final", "to_top50", "fee"], ledger_rows),
    }


def season_table(pack: SeasonPack) -> tuple[list[str], list[list]]:
    """The season's Top 50 with ties and their points per month, for CSV."""
    return (["rank", "player", "points", "nights", *pack.months],
            [[r.rank, r.player, r.points, r.events, *(pack.by_month.get(r.key, {}).get(m, 0) for m in pack.months)]
             for r in pack.table])
