"""R-PTS-1..6, R-STD-1, R-QUAL-1/2/4, R-FIN, R-PAY-3: the organiser's month checked against an
independent reading of RULES.md (tests/independent/month_by_the_rules.py, which imports nothing from
league/ or services/). Seeded random months (field sizes across every bonus band, ties, disqualified
players, no-shows, high-roller games, cash buy-ins with prizes paid short or left in the pool, names in
several scripts) go in through the results CSV; the standings, tickets, Shoot-out, High-roller stacks and
ledger the organiser downloads must be what the rules say."""
import csv
import datetime as dt
import io
import random

import pytest

from league.results_file import parse_results
from services import results
from tests.conftest import login
from tests.independent import month_by_the_rules as rules
from wiring.extensions import db

MONTH = "/organiser/harbour-league/months/2026-11"
NAMES = ["Ann", "Bob", "Cara", "Dan", "Eve", "Fin", "Gus", "Hal", "Ivy", "Jack", "Kim", "Lee", "Mia", "Ned",
         "Ola", "Pat", "Quin", "Rae", "Sam", "Tia", "Uma", "Vic", "Wes", "Xan", "Yui", "Zed", "O'Brien",
         "Anne-Marie", "Zoë Nguyễn", "李小龍", "Søren", "José", "Ngaio", "Aroha", "Mehmet", "Priya", "Olu", "Ines",
         "Dmitri", "Kofi", "Leilani", "Ravi", "Sione", "Tama", "Wiremu", "Yusuf", "Chen Wei", "Hana", "Ali",
         "Bea", "Cyd", "Dot", "Eli", "Flo", "Gil", "Hugh", "Ida", "Jo", "Kai", "Liv"]
VENUES = ["Rose & Crown", "Anchor", "Harbour View"]
SIZES = [1, 2, 3, 5, 8, 9, 10, 11, 14, 15, 16, 24, 25, 30, 34, 35, 44, 45, 50]


def finishing_order(rng: random.Random, players: list[str]) -> list[rules.Row]:
    """R-PTS-5/6: positions with some ties (the next position skips) and perhaps one disqualified player."""
    rows, place, left = [], 1, list(players)
    while left:
        group = min(len(left), rng.choice([2, 3]) if rng.random() < 0.12 else 1)
        for _ in range(group):
            rows.append(rules.Row(left.pop(), place, "played"))
        place += group
    singles = [r for r in rows if sum(o.position == r.position for o in rows) == 1]
    if singles and rng.random() < 0.2:
        rng.choice(singles).status = "dq"
    return rows


def pay(rng: random.Random, night: rules.Night) -> None:
    """Prizes as an organiser's history would hold them: most nights pay their pool, some leave money in
    it, a few pay beyond it (R-PAY-3 then says short)."""
    pool = len(night.field) * rules.CASH_GAMES[night.kind].night
    places = max(1, len(night.field) // 10)
    chance = rng.random()
    total = pool if chance < 0.8 else (pool - rng.randint(1, max(1, pool // 2)) if chance < 0.93 else pool + 50)
    payees = sorted((r for r in night.field if r.status == "played"), key=lambda r: r.position)[:places]
    for index, row in enumerate(payees):
        row.prize = total // (2 ** (index + 1)) if index < len(payees) - 1 else 0
    if payees:
        payees[0].prize += max(total, 0) - sum(r.prize for r in payees)


def generated_month(seed: int, cash: bool) -> list[rules.Night]:
    rng = random.Random(seed)
    nights, busy = [], {}
    for _ in range(rng.randint(8, 16)):
        date, start, venue = dt.date(2026, 11, rng.randint(1, 30)), rng.choice(["19:00", "19:30"]), rng.choice(VENUES)
        if any(n.date == date and n.start == start and n.venue == venue for n in nights):
            continue
        free = [n for n in NAMES if n not in busy.setdefault((date, start), set())]  # R-LATE-4: one game at once
        size = min(rng.choice(SIZES), len(free))
        players = rng.sample(free, size)
        busy[(date, start)].update(players)
        kind = "highroller" if rng.random() < 0.2 else "nightly"
        night = rules.Night(date, start, venue, kind, finishing_order(rng, players),
                            rules.CASH_GAMES[kind].buy_in if cash else 0)
        spare = [n for n in NAMES if n not in busy[(date, start)]]
        for name in rng.sample(spare, min(len(spare), rng.choice([0, 0, 0, 1, 2]))):
            night.rows.append(rules.Row(name, None, "no_show"))  # R-LATE-3: pre-registered, never came
            busy[(date, start)].add(name)
        if cash:
            pay(rng, night)
        nights.append(night)
    return nights


def as_csv(nights: list[rules.Night]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["date", "start_time", "venue", "event_type", "position", "player", "status", "buy_in", "prize"])
    for night in nights:
        for row in night.rows:
            writer.writerow([night.date.isoformat(), night.start, night.venue, night.kind, row.position or "",
                             row.player, row.status, night.buy_in or "", row.prize or ""])
    return out.getvalue()


def download(client, table: str) -> list[dict]:
    text = client.get(f"{MONTH}/{table}.csv").get_data(as_text=True).lstrip("\ufeff")
    return list(csv.DictReader(io.StringIO(text)))


@pytest.mark.parametrize("seed,cash", [(1, False), (2, True), (3, False), (4, True), (5, True), (6, False), (8, True)])
def test_the_organisers_month_is_what_rules_md_says(client, league, organiser, seed, cash):
    league.kind, league.pass_down = ("cash", False) if cash else ("free", True)
    db.session.commit()
    nights = generated_month(seed, cash)
    results.import_results(league, parse_results(as_csv(nights)))
    db.session.commit()
    login(client, "organiser", "pw-organiser")

    standings = rules.table(nights)
    assert {r["player"]: (int(r["rank"]), int(r["points"]), int(r["nights"])) for r in download(client, "standings")} \
        == {s.player: (s.rank, s.points, s.nights) for s in standings}

    expected = sorted((t.player, t.night.date.isoformat(), t.night.venue, t.position, t.position > 5)
                      for t in rules.tickets(nights, pass_down=not cash))
    shown = sorted((r["player"], r["date"], r["venue"], int(r["position"]), r["passed_down"] == "yes")
                   for r in download(client, "tickets"))
    assert shown == expected

    assert {(r["player"], int(r["points"])) for r in download(client, "shootout")} == {
        (s.player, s.points) for s in rules.shootout(standings)}
    assert {r["player"]: int(r["starting_stack"]) for r in download(client, "highroller")} == \
        rules.highroller_stacks(standings)

    books = rules.books(nights)
    total = download(client, "ledger")[-1]
    assert (int(total["taken_in"]), int(total["paid_out"]), int(total["to_monthly_final"]), int(total["to_top50"]),
            int(total["fee"]), int(total["left_in_pool"]), int(total["short"])) == (
        books.taken_in, books.paid_out, books.to_final, books.to_top50, books.fees, books.left_in_pools, books.short)
    page = client.get(MONTH).get_data(as_text=True)
    assert ("✓ Balances to the dollar" in page) == books.balances == (books.short == 0)
