"""Property tests over random finishing orders, months, deals and tables (R-PTS, R-QUAL, R-PAY, R-STD)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from league.icm import icm
from league.payouts import payouts
from league.points import Finish, award_points
from league.qualify import EventResult, monthly_tickets
from league.standings import rank_table

QUICK = settings(max_examples=150, deadline=None)
MONTHS = settings(max_examples=100, deadline=None)


def _mask(draw, width, factors):
    """A random bit mask whose bits are each set with probability 1 / 2**factors.

    One draw per factor instead of one per player keeps generation fast for big fields.
    """
    mask = (1 << width) - 1
    for _ in range(factors):
        mask &= draw(st.integers(0, (1 << width) - 1))
    return mask


@st.composite
def finishing_orders(draw, keys=None, min_field=1, max_field=52):
    """A valid event: shared positions (1, 2, 2, 4), some DQs, some no-shows.

    About one player in four ties with the one above, one in eight is disqualified, and
    up to three entries never arrive. `keys`, when given, is a pool of players to draw
    the entries from.
    """
    no_shows = draw(st.integers(0, 3))
    if keys is not None:
        max_field = min(max_field, len(keys) - no_shows)
    field = draw(st.integers(min_field, max_field))
    ties = _mask(draw, field, 2)
    disqualified = _mask(draw, field, 3)
    if keys is None:
        entrants = list(range(field + no_shows))
    else:
        entrants = random.Random(draw(st.integers(0, 2**32 - 1))).sample(keys, field + no_shows)
    finishes = []
    position = 0
    for place in range(1, field + 1):
        if place == 1 or not ties >> (place - 1) & 1:
            position = place
        status = "dq" if disqualified >> (place - 1) & 1 else "played"
        finishes.append(Finish(entrants[place - 1], position, status))
    finishes += [Finish(key, None, "no_show") for key in entrants[field:]]
    return finishes


PLAYERS = [f"player{i:02d}" for i in range(30)]


@st.composite
def months(draw):
    """One month's nightly events, drawn from a pool of regulars so repeat finishers happen."""
    days = draw(st.lists(st.integers(1, 30), min_size=1, max_size=5, unique=True))
    events = []
    for number, day in enumerate(days):
        finishes = draw(finishing_orders(keys=PLAYERS, max_field=25))
        order = (f"2026-11-{day:02d}", "19:00", "The Local")
        events.append(EventResult(f"event{number}", order, tuple(finishes)))
    return events


def settled(events):
    return sorted(events, key=lambda event: event.order)


def tickets_of(tickets, event):
    return [ticket for ticket in tickets if ticket.event == event.key]


# R-PTS


@QUICK
@given(finishing_orders(), st.booleans())
def test_r_pts_1_to_6_points_never_increase_as_position_worsens(finishes, high_roller):
    points = award_points(finishes, high_roller=high_roller)
    assert set(points) == {finish.key for finish in finishes}
    ranked = sorted((f for f in finishes if f.status == "played"), key=lambda f: f.position)
    values = [points[f.key] for f in ranked]
    assert all(better >= worse for better, worse in zip(values, values[1:]))
    assert all(points[f.key] == 0 for f in finishes if f.status != "played")
    assert all(value >= 75 for value in values)


@QUICK
@given(st.data())
def test_r_pts_6_shuffling_finishes_changes_no_points(data):
    finishes = data.draw(finishing_orders())
    shuffled = random.Random(data.draw(st.integers(0, 2**32 - 1))).sample(finishes, len(finishes))
    high_roller = data.draw(st.booleans())
    assert award_points(shuffled, high_roller=high_roller) == award_points(finishes, high_roller=high_roller)


# R-QUAL


@MONTHS
@given(months(), st.booleans())
def test_r_qual_1_a_months_tickets_go_to_distinct_players(events, pass_down):
    tickets = monthly_tickets(events, pass_down=pass_down)
    players = [ticket.player for ticket in tickets]
    assert len(players) == len(set(players))
    for event in events:
        statuses = {f.key: f.status for f in event.finishes}
        assert all(statuses[t.player] == "played" for t in tickets_of(tickets, event))


@MONTHS
@given(months())
def test_r_qual_2_pass_down_gives_5_whenever_5_ticketless_players_reached_the_final_table(events):
    tickets = monthly_tickets(events, pass_down=True)
    held = set()
    for event in settled(events):
        field = sum(1 for f in event.finishes if f.status != "no_show")
        final_table = min(10, field)
        ticketless = [
            f for f in event.finishes
            if f.status == "played" and f.position <= final_table and f.key not in held
        ]
        given_here = tickets_of(tickets, event)
        assert all(ticket.position <= final_table for ticket in given_here)
        if len(ticketless) >= 5:
            assert len(given_here) >= 5
        else:
            assert len(given_here) == len(ticketless)
        held.update(ticket.player for ticket in given_here)


@MONTHS
@given(months())
def test_r_qual_2_without_pass_down_only_groups_starting_in_the_top_5_earn(events):
    tickets = monthly_tickets(events, pass_down=False)
    for event in events:
        top_groups = sum(1 for f in event.finishes if f.status != "no_show" and f.position <= 5)
        given_here = tickets_of(tickets, event)
        assert len(given_here) <= top_groups
        assert all(ticket.position <= 5 for ticket in given_here)


@MONTHS
@given(months(), st.booleans(), st.integers(0, 2**32 - 1))
def test_r_qual_2_shuffling_events_and_finishes_changes_no_tickets(events, pass_down, seed):
    rng = random.Random(seed)
    shuffled = [
        EventResult(event.key, event.order, tuple(rng.sample(event.finishes, len(event.finishes))))
        for event in rng.sample(events, len(events))
    ]
    assert monthly_tickets(shuffled, pass_down=pass_down) == monthly_tickets(events, pass_down=pass_down)


# R-PAY-2 ICM


@QUICK
@given(
    st.lists(st.integers(0, 1_000_000), min_size=1, max_size=7),
    st.lists(st.integers(0, 5_000), max_size=8).map(lambda prizes: sorted(prizes, reverse=True)),
)
def test_r_pay_2_icm_equities_sum_to_prizes_bounded_and_monotone(stacks, prizes):
    equity = icm(stacks, prizes)
    paid = (prizes + [0] * len(stacks))[: len(stacks)]
    tolerance = 1e-9 * max(1, sum(paid))
    assert abs(sum(equity) - sum(paid)) <= tolerance
    assert all(min(paid) - tolerance <= value <= max(paid) + tolerance for value in equity)
    for a in range(len(stacks)):
        for b in range(len(stacks)):
            if stacks[a] > stacks[b]:
                assert equity[a] >= equity[b] - tolerance
            if stacks[a] == stacks[b]:
                assert abs(equity[a] - equity[b]) <= tolerance


# R-PAY-1 payouts


@QUICK
@given(st.integers(0, 1_000_000), st.integers(1, 60))
def test_r_pay_1_payouts_sum_to_the_pool_and_never_increase_with_position(pool, places):
    amounts = payouts(pool, places)
    assert len(amounts) == places
    assert sum(amounts) == pool
    assert all(better >= worse for better, worse in zip(amounts, amounts[1:]))


# R-STD-1


@QUICK
@given(st.lists(
    st.tuples(
        st.sampled_from(["Ann", "ann", "Bob", "Cy", "Dee"]),
        st.integers(0, 40).map(lambda n: n * 25),
        st.integers(1, 20),
    ),
    max_size=40,
))
def test_r_std_1_ranks_non_decreasing_and_equal_points_iff_equal_rank(rows):
    table = rank_table([(key, name, points, events) for key, (name, points, events) in enumerate(rows)])
    assert len(table) == len(rows)
    ranks = [row.rank for row in table]
    assert all(a <= b for a, b in zip(ranks, ranks[1:]))
    for row in table:
        assert row.rank == 1 + sum(1 for other in table if other.points > row.points)
    for a in table:
        for b in table:
            assert (a.points == b.points) == (a.rank == b.rank)
