"""An independent reading of RULES.md for one month, written from the rules' text alone: it imports
nothing from league/ or services/. Given a month's results (as a results CSV would give them), it works
out what the organiser's month-end pack must show: each night's points (R-PTS-1..6), the monthly table
(R-STD-1), the Monthly Final tickets with pass-down (R-QUAL-1/2), the Top-10 Shoot-out (R-QUAL-4), the
High-roller Final's stacks (R-FIN, R-QUAL-5) and the prize-pool ledger (R-PAY-3). The tests compare its
answers with the app's CSVs (tests/web/test_independent_month.py); the money split is the league's
settings, given here as figures (RULES.md leaves the shares to settings).

Run alone it reads a results CSV (with buy_in and prize columns for a cash league) and prints the month:
    python -m tests.independent.month_by_the_rules results.csv [--cash]
"""
from __future__ import annotations

import csv
import datetime as dt
import io
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

# R-PTS-1: places 1-10, every other place 75.
BASE = (750, 550, 400, 300, 275, 250, 225, 200, 175, 150)
OTHER = 75
HIGH_ROLLER_BONUS = 450  # R-PTS-4
TICKETS_PER_NIGHT = 5  # R-QUAL-1
FINAL_TABLE = 10  # R-QUAL-2: the last 10 players
SHOOTOUT = 10  # R-QUAL-4


@dataclass(frozen=True)
class Money:
    """A game's buy-in and where each dollar of it goes (R-PAY-3: settings; the rest is the fee)."""

    buy_in: int
    night: int
    final: int
    top50: int


# The league's settings as the app's house defaults set them (RULES.md: "shares are settings").
CASH_GAMES = {"nightly": Money(30, 20, 5, 3), "highroller": Money(60, 45, 5, 5)}


@dataclass
class Row:
    player: str
    position: int | None
    status: str  # played, dq, no_show
    prize: int = 0


@dataclass
class Night:
    date: dt.date
    start: str
    venue: str
    kind: str  # nightly or highroller
    rows: list[Row] = field(default_factory=list)
    buy_in: int = 0

    @property
    def order(self) -> tuple:
        # R-QUAL-2: "Events are settled in date order (then start time, then venue name)".
        return self.date, self.start or "00:00", self.venue.casefold()

    @property
    def field(self) -> list[Row]:
        # R-PTS-5: participants took a seat and played; a disqualified player counts; a no-show does not.
        return [r for r in self.rows if r.status in ("played", "dq")]


def half_up(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def place_value(place: int, size: int, high_roller: bool) -> int:
    """R-PTS-1..4: what place `place` of a field of `size` earns before ties are shared."""
    shifted = place + 10 - size if size < 10 else place  # R-PTS-2
    base = BASE[shifted - 1] if shifted <= 10 else OTHER
    if place > 10:
        return base
    if high_roller:
        return base + HIGH_ROLLER_BONUS  # R-PTS-4: the top bonus whatever the field
    bonus = 0  # R-PTS-3
    for least, extra in ((45, 450), (35, 350), (25, 250), (15, 150)):
        if size >= least:
            bonus = extra
            break
    return base + bonus


def night_points(night: Night) -> dict[str, int]:
    """R-PTS-1..6: each participant's points; tied players share the mean of the places they cover,
    rounded half up; a disqualified player earns 0."""
    players = night.field
    size = len(players)
    by_position: dict[int, list[Row]] = defaultdict(list)
    for row in players:
        by_position[row.position].append(row)
    points = {}
    for position, group in by_position.items():
        covered = range(position, position + len(group))
        share = half_up(Decimal(sum(place_value(p, size, night.kind == "highroller") for p in covered)) / len(group))
        for row in group:
            points[row.player] = 0 if row.status == "dq" else share
    return points


@dataclass(frozen=True)
class Standing:
    rank: int
    player: str
    points: int
    nights: int


def table(nights: list[Night]) -> list[Standing]:
    """R-STD-1: points summed over the month's point-awarding games; equal points share a rank
    (1, 2, 2, 4); everyone who played is in it, with the games each played."""
    points: dict[str, int] = defaultdict(int)
    played: dict[str, int] = defaultdict(int)
    for night in nights:
        for player, earned in night_points(night).items():
            points[player] += earned
            played[player] += 1
    ordered = sorted(points, key=lambda p: -points[p])
    rows = []
    for index, player in enumerate(ordered):
        rank = index + 1 if index == 0 or points[ordered[index - 1]] != points[player] else rows[-1].rank
        rows.append(Standing(rank, player, points[player], played[player]))
    return rows


@dataclass(frozen=True)
class TicketHolder:
    player: str
    night: Night
    position: int


def tickets(nights: list[Night], pass_down: bool) -> list[TicketHolder]:
    """R-QUAL-1/2: the month's Monthly Final tickets from its nightly games, in settle order. With
    pass-down, walk the finishers in tied groups, give a ticket to each who holds none, stop once 5 or
    more were given by the night or the final table is exhausted; without, only groups starting in the
    top 5 earn tickets and a repeat finisher's is not issued. A disqualified player earns none (he
    earns nothing, R-PTS-5)."""
    holders: set[str] = set()
    given_all = []
    for night in sorted((n for n in nights if n.kind == "nightly"), key=lambda n: n.order):
        players = night.field
        last = min(FINAL_TABLE, len(players)) if pass_down else TICKETS_PER_NIGHT
        given = 0
        for position in sorted({r.position for r in players}):
            if position > last or (pass_down and given >= TICKETS_PER_NIGHT):
                break
            for row in (r for r in players if r.position == position):
                if row.status == "dq" or row.player.casefold() in holders:
                    continue
                holders.add(row.player.casefold())
                given_all.append(TicketHolder(row.player, night, position))
                given += 1
    return given_all


def shootout(standings: list[Standing]) -> list[Standing]:
    """R-QUAL-4: the ten highest scorers and anyone tied on points with 10th; all when fewer than ten."""
    scorers = [row for row in standings if row.points > 0]
    if len(scorers) <= SHOOTOUT:
        return scorers
    tenth = scorers[SHOOTOUT - 1].points
    return [row for row in scorers if row.points >= tenth]


def highroller_stacks(standings: list[Standing]) -> dict[str, int]:
    """R-FIN, R-QUAL-5: everyone who played that month may enter; 25,000 with 2+ games, else 20,000
    (no early registrations in these months)."""
    return {row.player: 25_000 if row.nights >= 2 else 20_000 for row in standings if row.nights >= 1}


@dataclass(frozen=True)
class Books:
    taken_in: int
    paid_out: int
    to_final: int
    to_top50: int
    fees: int
    left_in_pools: int
    short: int

    @property
    def balances(self) -> bool:
        # R-PAY-3: taken in = paid out + fees + carried (the final's and Top-50 pools, what is left).
        return self.taken_in == self.paid_out + self.fees + self.to_final + self.to_top50 + self.left_in_pools


def books(nights: list[Night]) -> Books:
    """R-PAY-3 (and R-LATE-3: a no-show forfeits the buy-in to the league): each buy-in split between
    the night's pool, the month's Monthly Final pool, the season's Top-50 pool and the fee; a pool's
    prizes paid from it, the rest left in it, anything paid beyond it short."""
    totals = defaultdict(int)
    for night in nights:
        if not night.buy_in:
            totals["paid"] += sum(r.prize for r in night.rows)
            continue
        money = CASH_GAMES[night.kind]
        seated, forfeited = len(night.field), len(night.rows) - len(night.field)
        pool = seated * money.night
        paid = sum(r.prize for r in night.rows)
        totals["taken"] += (seated + forfeited) * night.buy_in
        totals["paid"] += paid
        totals["final"] += seated * money.final
        totals["top50"] += seated * money.top50
        totals["fees"] += seated * (night.buy_in - money.night - money.final - money.top50) + forfeited * night.buy_in
        totals["left"] += max(pool - paid, 0)
        totals["short"] += max(paid - pool, 0)
    return Books(totals["taken"], totals["paid"], totals["final"], totals["top50"], totals["fees"], totals["left"],
                 totals["short"])


def read_csv(text: str) -> list[Night]:
    """A results file's nights (the columns DESIGN.md gives, buy_in and prize optional)."""
    nights: dict[tuple, Night] = {}
    for record in csv.DictReader(io.StringIO(text.lstrip("\ufeff"))):
        key = (record["date"], record.get("start_time", ""), record["venue"].casefold())
        night = nights.setdefault(key, Night(dt.date.fromisoformat(record["date"]), record.get("start_time", ""),
                                             record["venue"], record["event_type"]))
        night.buy_in = int(record.get("buy_in") or night.buy_in or 0)
        night.rows.append(Row(record["player"], int(record["position"]) if record["position"] else None,
                              record.get("status") or "played", int(record.get("prize") or 0)))
    return list(nights.values())


def main(argv: list[str]) -> None:
    with open(argv[0], encoding="utf-8") as file:
        nights = read_csv(file.read())
    standings = table(nights)
    for row in standings:
        print(f"{row.rank:>4} {row.player:<30} {row.points:>6} {row.nights:>3}")
    for ticket in tickets(nights, pass_down="--cash" not in argv):
        print(f"ticket {ticket.player} {ticket.night.date} {ticket.night.venue} #{ticket.position}")
    print(books(nights))


if __name__ == "__main__":
    main(sys.argv[1:])
