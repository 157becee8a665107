"""Generated leagues checked against a plain, separate reading of RULES.md.

Dozens of events, fields of 1 to 52, ties, no-shows, disqualifications, both league kinds, nights
and high-roller games and finals: imported through the real command, then every month's
standings and qualifiers compared with the oracle below, which shares no code with league/.
"""
import datetime as dt
import json
import random
from collections import defaultdict

import pytest

pytestmark = pytest.mark.both_databases(
    "standings and tickets come from SQL sums and orderings, where NULLs and ties sort by each database's rules")

BASE = [750, 550, 400, 300, 275, 250, 225, 200, 175, 150]
TYPES = ["nightly"] * 8 + ["highroller"] * 2 + ["monthly_final", "top10_shootout"]


def oracle_points(position, field, high_roller):
    if field < 10:
        base = BASE[position + 10 - field - 1]
    else:
        base = BASE[position - 1] if position <= 10 else 75
    if position > 10:
        return base
    if high_roller:
        return base + 450
    for floor, bonus in ((45, 450), (35, 350), (25, 250), (15, 150)):
        if field >= floor:
            return base + bonus
    return base


def generate(rng, kind):
    names = [f"Player {i:02d}" for i in range(70)] + ["O'Brien <b>", "Zoë Ng"]
    venues = ["The Rose", "Crown & Anchor", "Harbour View", "Ship Inn"]
    rows, used, busy = [], set(), defaultdict(set)
    for _ in range(rng.randint(24, 40)):
        date = dt.date(2026, rng.choice([9, 10]), rng.randint(1, 28))
        start = rng.choice(["19:00", "19:30", ""])
        venue = rng.choice(venues)
        if (date, start, venue) in used:  # one (date, start, venue) is one event
            continue
        used.add((date, start, venue))
        event_type = rng.choice(TYPES)
        field = rng.choice([1, 2, 4, 5, 9, 10, 11, 14, 15, 24, 25, 34, 35, 44, 45, 52, rng.randint(1, 52)])
        # R-LATE-4: a player still in one game cannot enter another, so no one plays two games that
        # start at the same date and time.
        free = [name for name in names if name not in busy[(date, start)]]
        players = rng.sample(free, min(len(free), field + rng.choice([0, 0, 1, 2])))
        field = min(field, len(players))
        busy[(date, start)].update(players[:field])
        no_shows = players[field:]
        position, finishers = 1, players[:field]
        i = 0
        while i < len(finishers):
            group = min(rng.choice([1, 1, 1, 1, 2, 3]), len(finishers) - i)
            for name in finishers[i:i + group]:
                status = "dq" if rng.random() < 0.03 else "played"
                rows.append((date, start, venue, event_type, str(position), name, status))
            position += group
            i += group
        rows += [(date, start, venue, event_type, "", name, "no_show") for name in no_shows]
    return rows


def oracle(rows, kind, month):
    events = defaultdict(list)
    for row in rows:
        events[row[:4]].append(row)
    points, played = defaultdict(int), defaultdict(int)
    for (date, _start, _venue, event_type), entries in events.items():
        if date.strftime("%Y-%m") != month or event_type not in ("nightly", "highroller"):
            continue
        counted = [e for e in entries if e[6] != "no_show"]
        field = len(counted)
        for e in counted:
            position = int(e[4])
            group = sum(1 for o in counted if o[4] == e[4])
            if e[6] == "dq":
                got = 0
            else:
                total = sum(oracle_points(p, field, event_type == "highroller") for p in range(position, position + group))
                got = (2 * total + group) // (2 * group)  # the mean, rounded half up
            points[e[5]] += got
            played[e[5]] += 1
    order = sorted(points, key=lambda n: (-points[n], n.casefold(), n))
    table = []
    for i, name in enumerate(order):
        rank = table[-1]["rank"] if table and table[-1]["points"] == points[name] else i + 1
        table.append({"rank": rank, "player": name, "points": points[name], "events": played[name]})

    holders, tickets = set(), []
    nights = sorted((k for k in events if k[3] == "nightly" and k[0].strftime("%Y-%m") == month),
                    key=lambda k: (k[0], k[1] or "00:00", k[2].casefold()))
    for key in nights:
        counted = [e for e in events[key] if e[6] != "no_show"]
        final_table = min(10, len(counted))
        given = 0
        for position in sorted({int(e[4]) for e in counted}):
            if kind == "free":
                if given >= 5 or position > final_table:
                    break
            elif position > 5:
                break
            for e in sorted((e for e in counted if int(e[4]) == position), key=lambda e: e[5]):
                if e[6] == "dq" or e[5] in holders:
                    continue
                holders.add(e[5])
                tickets.append((e[5], key[0].isoformat(), key[2], position))
                given += 1
    scorers = [row for row in table if row["points"] > 0]
    cut = scorers[9]["points"] if len(scorers) > 10 else 0
    shootout = [{"player": r["player"], "points": r["points"]} for r in scorers if r["points"] >= cut]
    highroller = [{"player": r["player"], "events": r["events"], "starting_stack": 25000 if r["events"] >= 2 else 20000}
                  for r in table]
    return table, sorted(tickets), shootout, highroller


@pytest.mark.parametrize("seed", range(6))
def test_generated_league_matches_the_rules(runner, tmp_path, seed):
    rng = random.Random(seed)
    kind = "free" if seed % 2 == 0 else "cash"
    rows = generate(rng, kind)
    rng.shuffle(rows)
    lines = ["date,start_time,venue,event_type,position,player,status"]
    lines += [",".join([r[0].isoformat(), r[1], r[2], r[3], r[4], '"' + r[5] + '"', r[6]]) for r in rows]
    path = tmp_path / "league.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = runner.invoke(args=["league", "import-results", str(path), "--league", "Gen", "--create", "--kind", kind])
    assert result.exit_code == 0, result.output
    for month in ("2026-09", "2026-10"):
        table, tickets, shootout, highroller = oracle(rows, kind, month)
        got = json.loads(runner.invoke(args=["league", "standings", "--league", "Gen", "--month", month,
                                             "--json"]).output)["standings"]
        assert got == table
        found = json.loads(runner.invoke(args=["league", "qualifiers", "--league", "Gen", "--month", month,
                                               "--json"]).output)
        assert sorted((t["player"], t["date"], t["venue"], t["position"]) for t in found["monthly_final"]) == tickets
        assert found["top10_shootout"] == shootout
        assert found["highroller_final"] == highroller
