"""Seating: draw, late entrants, balancing, breaking, final table (R-SEAT-1..4, R-LATE-2)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league.seating import (
    Move,
    Seat,
    apply_move,
    balance_proposals,
    break_table,
    draw_seats,
    final_table,
    final_table_due,
    late_entry,
    moves_between,
    open_table,
    seat_late_entrant,
    spread_seats,
    table_sizes,
    table_to_break,
    tables_needed,
)

PROPS = settings(max_examples=200, deadline=None)
players_and_seats = st.tuples(st.integers(1, 200), st.integers(6, 10), st.integers(0, 2**32))


def assert_sound(seating, max_seats):
    """No shared seat, every seat on its table (R-SEAT-1)."""
    seats = list(seating.values())
    assert len(set(seats)) == len(seats)
    assert all(1 <= s.seat <= max_seats and s.table >= 1 for s in seats)


def spread(seating):
    sizes = table_sizes(seating).values()
    return max(sizes) - min(sizes) if sizes else 0


def seating_of(*tables, max_seats=10):
    """A seating with the given number of players at tables 1, 2, ...; players are 'tN-k'."""
    seating = {}
    for number, size in enumerate(tables, start=1):
        for index, seat in enumerate(spread_seats(size, max_seats)):
            seating[f"t{number}-{index}"] = Seat(number, seat)
    return seating


# --- R-SEAT-1 the draw -----------------------------------------------------------------------


def test_r_seat_1_spread_seats():
    assert spread_seats(10) == list(range(1, 11))
    assert spread_seats(7) == [1, 2, 3, 5, 6, 8, 9]
    assert spread_seats(5) == [1, 3, 5, 7, 9]
    assert spread_seats(1) == [1]
    assert spread_seats(0) == []
    with pytest.raises(ValueError):
        spread_seats(11)


def test_r_seat_1_fewest_tables_sizes_within_one():
    seating = draw_seats(list(range(23)), random.Random(1))
    assert table_sizes(seating) == {1: 8, 2: 8, 3: 7}
    assert tables_needed(23) == 3
    assert tables_needed(20) == 2
    assert tables_needed(0) == 0


def test_r_seat_1_small_field_at_table_1():
    seating = draw_seats(["a", "b", "c"], random.Random(5), max_seats=9)
    assert {s.table for s in seating.values()} == {1}
    assert sorted(s.seat for s in seating.values()) == [1, 4, 7]


def test_r_seat_1_empty_and_duplicates():
    assert draw_seats([], random.Random(0)) == {}
    with pytest.raises(ValueError, match="twice"):
        draw_seats(["a", "b", "a"], random.Random(0))
    with pytest.raises(ValueError, match="at least 2 seats"):
        draw_seats(["a"], random.Random(0), max_seats=1)


def test_r_seat_1_deterministic_with_a_seed_and_independent_of_input_order():
    players = [f"p{i}" for i in range(57)]
    first = draw_seats(players, random.Random(42))
    assert draw_seats(players, random.Random(42)) == first
    assert draw_seats(list(reversed(players)), random.Random(42)) == first
    assert draw_seats(players, random.Random(43)) != first


def test_r_seat_1_draw_is_random():
    # Over many draws player 0 lands at every table of a 3-table field.
    tables = {draw_seats(list(range(25)), random.Random(seed))[0].table for seed in range(60)}
    assert tables == {1, 2, 3}


def test_r_seat_1_two_hundred_players():
    players = list(range(200))
    seating = draw_seats(players, random.Random(7))
    assert len(seating) == 200
    assert table_sizes(seating) == {table: 10 for table in range(1, 21)}
    assert_sound(seating, 10)


@PROPS
@given(players_and_seats)
def test_r_seat_1_property_draw(case):
    count, max_seats, seed = case
    seating = draw_seats(list(range(count)), random.Random(seed), max_seats)
    assert set(seating) == set(range(count))
    assert_sound(seating, max_seats)
    assert spread(seating) <= 1
    assert len(table_sizes(seating)) == tables_needed(count, max_seats)
    assert sorted(table_sizes(seating)) == list(range(1, tables_needed(count, max_seats) + 1))


# --- R-LATE-2 late entrants ---------------------------------------------------------------------


def test_r_late_2_late_entrant_goes_to_a_shortest_table():
    seating = seating_of(8, 7, 8)
    seat = seat_late_entrant(seating, "late", random.Random(3))
    assert seat.table == 2
    assert seat not in seating.values()


def test_r_late_2_late_entrant_draws_from_every_shortest_table():
    seating = seating_of(7, 8, 7)
    tables = {seat_late_entrant(seating, "late", random.Random(s)).table for s in range(40)}
    assert tables == {1, 3}


def test_r_late_2_all_full_opens_a_new_table_then_balancing_fills_it():
    seating = seating_of(10, 10)
    seat = seat_late_entrant(seating, "late", random.Random(0))
    assert seat.table == 3
    seating["late"] = seat
    moves = balance_proposals(seating)
    assert [(m.from_table, m.to_table) for m in moves] == [(1, 3), (2, 3), (1, 3), (2, 3), (1, 3), (2, 3)]
    assert all(m.player is None for m in moves)
    assert len({m.to_seat for m in moves} | {seat.seat}) == 7


def test_r_late_2_first_entrant_opens_table_1():
    assert seat_late_entrant({}, "a", random.Random(0)).table == 1


def test_r_late_2_reuses_a_broken_table_number():
    seating = {p: s for p, s in seating_of(6, 6, 6, max_seats=6).items() if s.table != 2}
    assert seat_late_entrant(seating, "late", random.Random(1), max_seats=6).table == 2


def test_r_late_2_refuses_a_seated_player():
    seating = seating_of(3)
    with pytest.raises(ValueError, match="already has a seat"):
        seat_late_entrant(seating, "t1-0", random.Random(0))


def test_r_seat_1_the_21st_entrant_opens_a_table_filled_by_a_draw_of_six():
    seating = seating_of(10, 10)
    after = open_table(seating, "late", random.Random(0))
    assert table_sizes(after) == {1: 7, 2: 7, 3: 7}
    assert after["late"].table == 3
    moved = [player for player, seat, _ in moves_between(seating, after) if seat is not None]
    assert len(moved) == 6 and sum(p.startswith("t1-") for p in moved) == 3
    assert sorted(seat.seat for seat in after.values() if seat.table == 3) == spread_seats(7)


def test_r_seat_1_an_uneven_split_leaves_the_extra_players_at_the_lowest_full_tables():
    after = open_table(seating_of(6, 6, 6, max_seats=6), "late", random.Random(2), max_seats=6)
    assert table_sizes(after) == {1: 5, 2: 5, 3: 5, 4: 4}


def test_r_seat_1_open_table_takes_a_broken_table_number_and_refuses_an_empty_seat():
    seating = {p: s for p, s in seating_of(6, 6, 6, max_seats=6).items() if s.table != 2}
    assert open_table(seating, "late", random.Random(1), max_seats=6)["late"].table == 2
    with pytest.raises(ValueError, match="empty seat"):
        open_table(seating_of(10, 9), "late", random.Random(0))
    with pytest.raises(ValueError, match="already has a seat"):
        open_table(seating_of(10, 10), "t1-0", random.Random(0))


def test_r_late_2_late_entry_takes_an_empty_seat_while_there_is_one():
    seating = seating_of(8, 7, 8)
    after = late_entry(seating, "late", random.Random(3))
    assert after["late"].table == 2 and {p: s for p, s in after.items() if p != "late"} == seating


@PROPS
@given(st.integers(1, 8), st.integers(2, 10), st.integers(0, 2**32))
def test_r_seat_1_property_open_table_least_moves_within_one_deterministic(full_tables, max_seats, seed):
    seating = seating_of(*[max_seats] * full_tables, max_seats=max_seats)
    after = open_table(seating, "late", random.Random(seed), max_seats)
    assert after == open_table(seating, "late", random.Random(seed), max_seats)
    assert_sound(after, max_seats)
    assert spread(after) <= 1
    # Every table ends with at least n // t players, and the new one starts with the entrant alone:
    # n // t - 1 moves is the fewest that can bring the tables within one.
    fewest = (len(seating) + 1) // (full_tables + 1) - 1
    moved = [player for player, seat, _ in moves_between(seating, after) if seat is not None]
    assert len(moved) == fewest
    assert all(after[player].table == after["late"].table for player in moved)


@PROPS
@given(players_and_seats, st.integers(1, 30))
def test_r_late_2_property_late_seats_keep_sizes_within_one(case, late):
    count, max_seats, seed = case
    rng = random.Random(seed)
    seating = draw_seats(list(range(count)), rng, max_seats)
    for entrant in range(count, count + late):
        seating = late_entry(seating, entrant, rng, max_seats)
        assert_sound(seating, max_seats)
        assert spread(seating) <= 1
        assert balance_proposals(seating, max_seats) == []


# --- R-SEAT-2 balancing ------------------------------------------------------------------------


def test_r_seat_2_no_proposal_within_one():
    assert balance_proposals(seating_of(9, 8, 8)) == []
    assert balance_proposals(seating_of(10, 9)) == []


def test_r_seat_2_proposal_when_two_short():
    seating = seating_of(9, 7, 8)
    moves = balance_proposals(seating)
    assert len(moves) == 1
    move = moves[0]
    assert (move.player, move.from_table, move.to_table) == (None, 1, 2)
    assert Seat(2, move.to_seat) not in seating.values()
    assert "big blind next at table 1" in move.reason
    assert "Table 2 has 7 players, table 1 has 9" in move.reason


def test_r_seat_2_several_moves_counted_in_turn():
    moves = balance_proposals(seating_of(10, 10, 5))
    assert [(m.from_table, m.to_table) for m in moves] == [(1, 3), (2, 3), (1, 3)]
    assert len({m.to_seat for m in moves}) == 3


def test_r_seat_2_not_while_a_break_is_due():
    # 17 players at 3 tables fit at 2: break first, balancing would be wasted moves.
    seating = seating_of(9, 6, 2)
    assert table_to_break(seating) == 3
    assert balance_proposals(seating) == []


def test_r_seat_2_apply_move():
    seating = seating_of(9, 7)
    move = balance_proposals(seating)[0]
    moved = apply_move(seating, "t1-0", move.to_table, move.to_seat)
    assert moved["t1-0"] == Seat(2, move.to_seat)
    assert seating["t1-0"] == Seat(1, 1)  # the input is not changed
    assert table_sizes(moved) == {1: 8, 2: 8}
    assert moves_between(seating, moved) == [("t1-0", Seat(1, 1), Seat(2, move.to_seat))]


def test_r_seat_2_apply_move_refusals():
    seating = seating_of(9, 7)
    with pytest.raises(ValueError, match="is taken"):
        apply_move(seating, "t1-0", 2, 1)
    with pytest.raises(ValueError, match="no seat"):
        apply_move(seating, "nobody", 2, 2)
    with pytest.raises(ValueError, match="seats 1 to 10"):
        apply_move(seating, "t1-0", 2, 11)
    with pytest.raises(ValueError, match="already in"):
        apply_move(seating, "t1-0", 1, 1)
    with pytest.raises(ValueError, match="no table"):
        apply_move(seating, "t1-0", 0, 1)


def test_r_seat_1_broken_seatings_refused():
    with pytest.raises(ValueError, match="Two players"):
        balance_proposals({"a": Seat(1, 1), "b": Seat(1, 1)})
    with pytest.raises(ValueError, match="seats 1 to 9"):
        balance_proposals({"a": Seat(1, 10)}, max_seats=9)


@PROPS
@given(st.lists(st.integers(1, 10), min_size=1, max_size=12), st.integers(6, 10))
def test_r_seat_2_property_proposals_exactly_when_two_short(sizes, max_seats):
    sizes = [min(size, max_seats) for size in sizes]
    seating = seating_of(*sizes, max_seats=max_seats)
    moves = balance_proposals(seating, max_seats)
    reseat_due = table_to_break(seating, max_seats) is not None or final_table_due(seating, max_seats)
    assert bool(moves) == (max(sizes) - min(sizes) >= 2 and not reseat_due)
    for move in moves:
        mover = next(p for p, s in seating.items() if s.table == move.from_table)
        seating = apply_move(seating, mover, move.to_table, move.to_seat, max_seats)
    assert_sound(seating, max_seats)
    if not reseat_due:
        assert spread(seating) <= 1


# --- R-SEAT-3 breaking tables ------------------------------------------------------------------


def test_r_seat_3_break_when_they_fit_at_one_fewer():
    assert table_to_break(seating_of(8, 8, 5)) is None  # 21 need 3 tables
    assert table_to_break(seating_of(7, 7, 6)) == 3  # 20 fit at 2
    assert table_to_break(seating_of(6, 7, 6)) == 3  # fewest, ties to the highest number
    assert table_to_break(seating_of(5, 7, 6)) == 1


def test_r_seat_3_no_break_at_one_table_or_when_the_final_table_is_due():
    assert table_to_break(seating_of(9)) is None
    assert table_to_break(seating_of(5, 5)) is None  # the final-table redraw instead


def test_r_seat_3_break_reseats_by_two_step_draw():
    seating = seating_of(7, 7, 6)
    broken = break_table(seating, 3, random.Random(9))
    assert table_sizes(broken) == {1: 10, 2: 10}
    assert_sound(broken, 10)
    assert all(broken[p] == s for p, s in seating.items() if s.table != 3)
    moved = moves_between(seating, broken)
    assert {p for p, _, _ in moved} == {p for p, s in seating.items() if s.table == 3}


def test_r_seat_3_break_fills_the_shortest_tables_first():
    seating = seating_of(8, 7, 7, 3)  # 25 players fit at 3 tables
    broken = break_table(seating, 4, random.Random(2))
    assert table_sizes(broken) == {1: 8, 2: 9, 3: 8} or table_sizes(broken) == {1: 8, 2: 8, 3: 9}


def test_r_seat_3_break_refusals():
    with pytest.raises(ValueError, match="don't fit"):
        break_table(seating_of(9, 9), 2, random.Random(0))
    with pytest.raises(ValueError, match="no players"):
        break_table(seating_of(5, 5), 3, random.Random(0))


def test_r_seat_3_break_deterministic():
    seating = seating_of(8, 8, 4)
    assert break_table(seating, 3, random.Random(5)) == break_table(seating, 3, random.Random(5))


@PROPS
@given(players_and_seats, st.lists(st.integers(0, 10**6), max_size=40))
def test_r_seat_3_property_busting_down_breaks_keep_sizes_within_one(case, busts):
    count, max_seats, seed = case
    rng = random.Random(seed)
    seating = draw_seats(list(range(count)), rng, max_seats)
    for pick in busts:
        if len(seating) <= 1:
            break
        # Someone busts; the host balances, breaks or redraws as proposed.
        del seating[sorted(seating)[pick % len(seating)]]
        table = table_to_break(seating, max_seats)
        fits_fewer = len(seating) <= (len(table_sizes(seating)) - 1) * max_seats
        assert (table is not None) == (fits_fewer and len(seating) > max_seats)
        while table is not None:
            seating = break_table(seating, table, rng, max_seats)
            assert_sound(seating, max_seats)
            assert spread(seating) <= 1
            table = table_to_break(seating, max_seats)
        if final_table_due(seating, max_seats):
            seating = final_table(seating, rng, max_seats)
        for move in balance_proposals(seating, max_seats):
            mover = next(p for p, s in seating.items() if s.table == move.from_table)
            seating = apply_move(seating, mover, move.to_table, move.to_seat, max_seats)
        assert_sound(seating, max_seats)
        assert spread(seating) <= 1
        assert len(table_sizes(seating)) == tables_needed(len(seating), max_seats)


# --- R-SEAT-4 final table ----------------------------------------------------------------------


def test_r_seat_4_final_table_due():
    assert final_table_due(seating_of(5, 5))
    assert final_table_due(seating_of(6, 5)) is False
    assert final_table_due(seating_of(9)) is False  # already one table, table 1
    assert final_table_due({"a": Seat(3, 1), "b": Seat(3, 5)})  # a lone table 3: redraw to 1
    assert final_table_due({"a": Seat(2, 1)}) is False  # the game is over
    assert final_table_due(seating_of(4, 4, max_seats=8), max_seats=8)
    assert final_table_due(seating_of(5, 4, max_seats=8), max_seats=8) is False


def test_r_seat_4_final_table_redraw():
    seating = seating_of(5, 4)
    final = final_table(seating, random.Random(11))
    assert set(final) == set(seating)
    assert {s.table for s in final.values()} == {1}
    assert sorted(s.seat for s in final.values()) == spread_seats(9)
    assert final == final_table(list(seating), random.Random(11))
    assert final_table_due(final) is False
    with pytest.raises(ValueError, match="not the final table yet"):
        final_table(range(11), random.Random(0))


def test_moves_between_lists_new_and_moved_players_by_new_seat():
    old = {"a": Seat(1, 1), "b": Seat(1, 2), "c": Seat(2, 1)}
    new = {"a": Seat(1, 1), "b": Seat(2, 5), "d": Seat(1, 4)}
    assert moves_between(old, new) == [("d", None, Seat(1, 4)), ("b", Seat(1, 2), Seat(2, 5))]


def test_move_is_frozen():
    move = Move(None, 1, 2, 3, "why")
    with pytest.raises(AttributeError):
        move.to_seat = 4
