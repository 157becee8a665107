"""The demo league `make run` loads into an empty database, and the results generator the benchmarks reuse.

On an empty database, load_if_empty() writes "Harbour City Poker League" (free-to-play, pass-down on):
four pubs, ~120 members, an organiser and a host login, the previous calendar month and this month
up to yesterday of settled nights (relative to the league's today, so the demo always looks current), and
tonight's game in progress with its clock running, plus tomorrow's game scheduled.

The past nights go through results.import_results, so points (R-PTS) and Monthly Final tickets
(R-QUAL) are computed by the real rules. Everything is drawn from a seeded random.Random: the same
day gives the same demo.
"""
from __future__ import annotations

import csv
import datetime as dt
import io
import random
import time
from collections.abc import Mapping, Sequence

from league.results_file import EventResults, ResultRow
from league.statuses import EntryStatus, EventStatus, LeagueKind, Role
from services import leagues, results

SEED = 20260101
LEAGUE_NAME = "Harbour City Poker League"
ORGANISER = ("organiser", "organiser-demo", "Olivia Harding")
HOST = ("host", "host-demo", "Harry Tran")
NIGHTLY_START = dt.time(19, 0)
HIGHROLLER_START = dt.time(14, 0)
STARTING_STACK = 10_000
TONIGHT_PLAYERS = 24
TONIGHT_MINUTES_IN = 35

# Pub, address, nights it runs (Monday = 0), the usual field there.
VENUES: tuple[tuple[str, str, tuple[int, ...], tuple[int, int]], ...] = (
    ("The Rusty Anchor Hotel", "12 Wharf Street, Pyrmont", (2,), (30, 48)),
    ("The Commercial Hotel", "88 Parramatta Road, Annandale", (1, 3), (14, 30)),
    ("Grand Junction Tavern", "201 Victoria Road, Gladesville", (5,), (18, 36)),
    ("Royal Oak Hotel", "4 Military Road, Neutral Bay", (0,), (4, 12)),
)
HIGHROLLER_VENUE = "The Rusty Anchor Hotel"
TONIGHT_VENUE = "The Rusty Anchor Hotel"
TOMORROW_VENUE = "The Commercial Hotel"

# The first two prove that names are escaped and that accents survive the round trip.
SPECIAL_MEMBERS = ("O'Brien <b>", "Zoë Papadopoulos")
FIRST_NAMES = (
    "Jack", "Liam", "Noah", "Ethan", "Mason", "Cooper", "Lachlan", "Riley", "Jayden", "Brodie",
    "Shane", "Darren", "Wayne", "Craig", "Glenn", "Brett", "Troy", "Dean", "Matt", "Steve",
    "Mick", "Gazza", "Robbo", "Tommo", "Dave", "Luke", "Ben", "Sam", "Josh", "Nathan",
    "Chloe", "Olivia", "Mia", "Sophie", "Emily", "Jess", "Kylie", "Tash", "Shaz", "Bec",
    "Kate", "Sarah", "Leah", "Tegan", "Kirsty", "Mel", "Narelle", "Deb", "Bianca", "Ash",
    "Minh", "Anh", "Wei", "Priya", "Raj", "Karim", "Nadia", "Giorgos", "Marco", "Aroha",
)
SURNAMES = (
    "Smith", "Jones", "Williams", "Brown", "Wilson", "Taylor", "Johnson", "White", "Martin",
    "Anderson", "Thompson", "Nguyen", "Tran", "Walker", "Harris", "Lee", "Ryan", "Robinson",
    "Kelly", "King", "Murphy", "Walsh", "Doyle", "McCarthy", "Fitzgerald", "Kowalski",
    "Rossi", "Romano", "Costa", "Nikolaidis", "Haddad", "Khoury", "Singh", "Patel", "Chen",
    "Wong", "Le", "Pham", "Campbell", "Stewart", "Mitchell", "Hughes", "Baker", "Cooper",
    "Bennett", "Gallagher", "Sullivan", "Burke", "Quinn", "Nolan", "Hayes", "Fraser",
    "Henderson", "Cameron", "Ellis", "Morgan", "Foster", "Reid", "Jansen", "Ngata",
)


def member_names(rng: random.Random, count: int = 120) -> list[str]:
    """`count` distinct pub-league names (the special ones first), drawn from the seeded rng."""
    names = list(SPECIAL_MEMBERS[:count])
    pairs = [(first, last) for first in FIRST_NAMES for last in SURNAMES]
    rng.shuffle(pairs)
    if count > len(pairs) + len(names):
        raise ValueError(f"at most {len(pairs) + len(names)} distinct names")
    per_first = max(3, -(-count // len(FIRST_NAMES)))  # spread the first names about
    used_first: dict[str, int] = {}
    for first, last in pairs:
        if len(names) >= count:
            break
        if used_first.get(first, 0) >= per_first:
            continue
        used_first[first] = used_first.get(first, 0) + 1
        names.append(f"{first} {last}")
    return names


# --------------------------------------------------------------------------- the results generator

def finishing_rows(rng: random.Random, players: Sequence[str], *, skill: Mapping[str, float] | None = None,
                   ties: int = 0, dq: bool = False, no_shows: Sequence[str] = (), keep_top: int = 1,
                   line: int = 2) -> tuple[ResultRow, ...]:
    """One event's rows: a valid finishing order (R-PTS-6) of `players`.

    Better players tend to finish higher (a Plackett-Luce draw on `skill`). `ties` groups of 2
    (now and then 3) players busted in the same hand with equal stacks share a position (1, 2, 2, 4);
    ties never touch the top `keep_top` places. `dq` disqualifies one player in the bottom half
    (they keep their position, R-PTS-5). `no_shows` are pre-registered players who never came
    (no position). Rows are numbered from `line`, as a results file would number them.
    """
    skill = skill or {}
    order = sorted(players, key=lambda name: rng.expovariate(1.0) / skill.get(name, 1.0))
    field = len(order)
    positions = list(range(1, field + 1))
    taken: set[int] = set()
    for _ in range(ties):
        size = 3 if rng.random() < 0.15 else 2
        first = max(keep_top, 1) + 1
        if field - size + 1 < first:
            break
        start = rng.randint(first, field - size + 1)  # a 1-based position
        span = range(start, start + size)
        if any(p in taken or p - 1 in taken or p + 1 in taken for p in span):
            continue  # keep tie groups apart so each is one hand
        taken.update(span)
        for p in span:
            positions[p - 1] = start
    statuses = [EntryStatus.PLAYED] * field
    if dq and field >= 4:
        candidates = [i for i in range(field // 2, field) if i + 1 not in taken]
        if candidates:
            statuses[rng.choice(candidates)] = EntryStatus.DQ
    rows = [ResultRow(line + i, name, positions[i], statuses[i]) for i, name in enumerate(order)]
    rows += [ResultRow(line + field + i, name, None, EntryStatus.NO_SHOW) for i, name in enumerate(no_shows)]
    return tuple(rows)


def _weekly(venues: Sequence[str], nights_per_week: int | Mapping[str, Sequence[int]]) -> dict[str, tuple[int, ...]]:
    if isinstance(nights_per_week, Mapping):
        return {venue: tuple(nights_per_week.get(venue, ())) for venue in venues}
    if not 0 <= nights_per_week <= 7:
        raise ValueError(f"a venue runs 0 to 7 nights a week, not {nights_per_week}")
    return {venue: tuple(sorted((i + j) % 7 for j in range(nights_per_week))) for i, venue in enumerate(venues)}


def generate_nights(rng: random.Random, members: Sequence[str], venues: Sequence[str], start_date: dt.date,
                    end_date: dt.date, nights_per_week: int | Mapping[str, Sequence[int]],
                    field: tuple[int, int] | Mapping[str, tuple[int, int]] = (4, 50), *,
                    attendance: Mapping[str, float] | None = None, skill: Mapping[str, float] | None = None,
                    start_time: dt.time = NIGHTLY_START, highroller_venue: str | None = None,
                    highroller_field: tuple[int, int] = (10, 18), tie_rate: float = 0.35,
                    dq_rate: float = 0.03, no_show_rate: float = 0.08, skip_rate: float = 0.0,
                    first_line: int = 2) -> list[EventResults]:
    """Settled nightly games from `start_date` to `end_date` inclusive, in date order.

    `nights_per_week`: each venue runs that many nights a week (spread over the week), or a
    mapping venue -> weekdays (Monday = 0). `field`: (lo, hi) players a night, or per venue.
    A player plays at most one game a day (R-LATE-4), so a day's fields are drawn from the
    members not yet playing that day, regulars (high `attendance`) more often. `skip_rate`:
    the chance a night is called off (a public holiday, the footy). `highroller_venue`: a
    high-roller game there on the 1st and 3rd Sunday of each month at 14:00. Each event may
    have ties, a disqualification and a no-show (rates per event). Defaults for `attendance`
    and `skill` are drawn from `rng`.
    """
    if start_date > end_date:
        return []
    if attendance is None:
        attendance = {name: rng.lognormvariate(0.0, 0.7) for name in members}
    if skill is None:
        skill = {name: rng.lognormvariate(0.0, 0.5) for name in members}
    weekly = _weekly(venues, nights_per_week)
    fields = field if isinstance(field, Mapping) else {venue: field for venue in venues}
    events: list[EventResults] = []
    line = first_line
    day = start_date
    while day <= end_date:
        slots: list[tuple[str, str, dt.time, tuple[int, int]]] = []
        if highroller_venue and day.weekday() == 6 and (day.day - 1) // 7 in (0, 2):
            slots.append((highroller_venue, "highroller", HIGHROLLER_START, highroller_field))
        for venue in venues:
            if day.weekday() in weekly[venue] and not (skip_rate and rng.random() < skip_rate):
                slots.append((venue, "nightly", start_time, fields[venue]))
        if slots:
            # One weighted draw (Efraimidis-Spirakis keys) orders the day's members; each game takes the next slice.
            pool = sorted(members, key=lambda name: -rng.random() ** (1.0 / attendance.get(name, 1.0)))
            for venue, event_type, start, (lo, hi) in slots:
                size = rng.randint(lo, hi)
                no_show = 1 if rng.random() < no_show_rate and size >= 6 else 0
                size = min(size, len(pool) - no_show)
                if size < 1:
                    continue
                players, absent, pool = pool[:size], pool[size:size + no_show], pool[size + no_show:]
                ties = sum(rng.random() < tie_rate for _ in range(1 + size // 25))
                rows = finishing_rows(rng, players, skill=skill, ties=ties, dq=rng.random() < dq_rate,
                                      no_shows=absent, line=line)
                line += len(rows)
                events.append(EventResults(day, start, venue, event_type, rows))
        day += dt.timedelta(days=1)
    return events


def results_csv(events: Sequence[EventResults]) -> str:
    """The events as a results file (league/results_file.py reads it back), header first."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["date", "start_time", "venue", "event_type", "position", "player", "status"])
    for event in events:
        start = event.start_time.strftime("%H:%M") if event.start_time else ""
        for row in event.rows:
            writer.writerow([event.date.isoformat(), start, event.venue, event.event_type,
                             "" if row.position is None else row.position, row.player, row.status])
    return out.getvalue()


def field_of(event: EventResults) -> int:
    """Participants of an event (R-PTS-5): everyone but the no-shows."""
    return sum(row.status != EntryStatus.NO_SHOW for row in event.rows)


# --------------------------------------------------------------------------- the demo itself

def _month_start(day: dt.date) -> dt.date:
    return day.replace(day=1)


def demo_nights(rng: random.Random, members: Sequence[str], today: dt.date,
                attendance: Mapping[str, float], skill: Mapping[str, float]) -> tuple[list[EventResults], dict]:
    """The past nights of the demo, with the showcase nights guaranteed whatever the date.

    Returns (events, deal) where deal = {"event": EventResults, "chips": {player: chips}}.
    """
    start = _month_start(_month_start(today) - dt.timedelta(days=1))
    end = today - dt.timedelta(days=1)
    venues = [name for name, _, _, _ in VENUES]
    events = generate_nights(
        rng, members, venues, start, end, {name: days for name, _, days, _ in VENUES},
        {name: span for name, _, _, span in VENUES}, attendance=attendance, skill=skill,
        highroller_venue=HIGHROLLER_VENUE, skip_rate=0.08)

    def playing_on(day: dt.date, but: EventResults | None = None) -> set[str]:
        return {row.player for e in events if e.date == day and e is not but for row in e.rows}

    def rebuild(index: int, players: Sequence[str], **options) -> EventResults:
        old = events[index]
        events[index] = EventResults(old.date, old.start_time, old.venue, old.event_type,
                                     finishing_rows(rng, players, skill=skill, line=old.first_line, **options))
        return events[index]

    nightly = [i for i, e in enumerate(events) if e.event_type == "nightly"]
    # A field of exactly 4 (R-PTS-2 at its shortest): the smallest night.
    small = min(nightly, key=lambda i: (field_of(events[i]), events[i].date))
    rebuild(small, [r.player for r in events[small].rows if r.status != EntryStatus.NO_SHOW][:4])
    # A packed night of 52 (the +450 band of R-PTS-3) with two ties, a DQ and a no-show.
    big = max((i for i in nightly if i != small), key=lambda i: (field_of(events[i]), events[i].date))
    taken = playing_on(events[big].date, but=events[big])
    regulars = sorted((m for m in members if m not in taken), key=lambda m: -attendance[m])
    rebuild(big, regulars[:52], ties=2, dq=True, no_shows=regulars[52:53])
    # A deal at the final table (R-PTS-7): the latest good-sized night; the last four chopped.
    deal_index = max((i for i in nightly if i not in (small, big) and field_of(events[i]) >= 16),
                     key=lambda i: events[i].date, default=None)
    deal: dict = {}
    if deal_index is not None:
        players = [r.player for r in events[deal_index].rows if r.status != EntryStatus.NO_SHOW]
        event = rebuild(deal_index, players, ties=1, keep_top=10)
        in_play = STARTING_STACK * len(players)
        stacks: list[int] = []
        while len(set(stacks)) != 4:  # distinct counts, so the chip count orders all four
            cuts = sorted(rng.sample(range(1, in_play // 100), 3))
            stacks = sorted(((b - a) * 100 for a, b in zip([0, *cuts], [*cuts, in_play // 100])), reverse=True)
        finalists = [r.player for r in sorted(event.rows, key=lambda r: r.position or 0)[:4]]
        # R-PTS-7: the chip count fixes the deal players' positions, most chips best: 1st has the most.
        chips = dict(zip(finalists, stacks))
        deal = {"event": event, "chips": chips}
    return events, deal


def load_if_empty(today: dt.date | None = None) -> bool:
    """Load the demo league unless the database already has a league; True when it loaded.

    Must run inside an app context; commits once at the end.
    """
    from services.models import Event, League, Member, User, Venue
    from wiring.extensions import db

    if db.session.scalar(db.select(League.id).limit(1)) is not None:
        return False
    rng = random.Random(SEED)

    league = leagues.create_league(LEAGUE_NAME, LeagueKind.FREE)
    today = today or league.today()
    venues = {}
    for name, address, _, _ in VENUES:
        venues[name] = Venue(league_id=league.id, name=name, address=address)
    db.session.add_all(venues.values())

    names = member_names(rng, 120)
    attendance = {name: rng.lognormvariate(0.0, 0.7) for name in names}
    skill = {name: rng.lognormvariate(0.0, 0.5) for name in names}
    for name in SPECIAL_MEMBERS:  # regulars, so they show in every table
        attendance[name] = 4.0
    members = {name: Member.named(league.id, name) for name in names}
    for member in members.values():
        member.adult_confirmed_at = dt.datetime(2025, 1, 1, 19, 0)
    db.session.add_all(members.values())

    users = {}
    for (username, password, display), role in ((ORGANISER, Role.ORGANISER), (HOST, Role.HOST)):
        user = User(username=username, display_name=display, role=role, league_id=league.id)
        user.set_password(password)
        users[role] = user
    db.session.add_all(users.values())
    db.session.flush()

    events, deal = demo_nights(rng, names, today, attendance, skill)
    if events:
        results.import_results(league, events)
    if deal:
        found = deal["event"]
        event = db.session.scalar(db.select(Event).where(
            Event.league_id == league.id, Event.venue_id == venues[found.venue].id,
            Event.date == found.date, Event.start_time == found.start_time))
        for entry in event.entries:
            entry.chips_at_deal = deal["chips"].get(entry.member.name)

    _tonight(rng, league, venues, members, users[Role.HOST], today, attendance)
    db.session.commit()
    return True


def _tonight(rng, league, venues, members, host, today, attendance) -> None:
    """Tonight's game, clock running ~35 minutes into play, and tomorrow's game scheduled."""
    from league import structures  # imported here: written alongside the demo
    from services.models import Entry, Event
    from wiring.extensions import db

    _, template = structures.TEMPLATES["thpa_nightly"]
    structure = structures.to_json(template)
    now_ms = int(time.time() * 1000)
    tonight = Event(league_id=league.id, venue=venues[TONIGHT_VENUE], event_type="nightly", date=today,
                    start_time=NIGHTLY_START, status=EventStatus.RUNNING, host=host, structure=structure,
                    clock_index=0, clock_item_elapsed_ms=0,
                    clock_running_since_ms=now_ms - TONIGHT_MINUTES_IN * 60_000,
                    clock_started=True, clock_version=1)
    names = list(members)
    pool = sorted(names, key=lambda name: -rng.random() ** (1.0 / attendance[name]))
    players = list(dict.fromkeys([*SPECIAL_MEMBERS, *pool]))[:TONIGHT_PLAYERS]
    tonight.entries = [Entry(member=members[name], status=EntryStatus.PLAYING, position=None) for name in players]
    tomorrow = Event(league_id=league.id, venue=venues[TOMORROW_VENUE], event_type="nightly",
                     date=today + dt.timedelta(days=1), start_time=NIGHTLY_START, status=EventStatus.SCHEDULED,
                     host=host, structure=structure)
    db.session.add_all([tonight, tomorrow])
