"""R-SEAT-2: the empty seats a host may move a player to (a player's sheet offers them): every seat of
every table in play that nobody holds, table by table, and a move to any of them is accepted."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league.seating import Seat, apply_move, empty_seats, table_sizes
from tests.unit.test_seating import assert_sound, seating_of


def test_r_seat_2_empty_seats_table_by_table():
    seating = {"a": Seat(1, 1), "b": Seat(1, 3), "c": Seat(2, 2)}
    assert empty_seats(seating, 3) == [Seat(1, 2), Seat(2, 1), Seat(2, 3)]
    assert empty_seats({}, 10) == []   # no table in play: nowhere to move
    assert empty_seats({"a": Seat(3, 1), "b": Seat(3, 2)}, 2) == []   # a full table
    with pytest.raises(ValueError, match="at least 2 seats"):
        empty_seats(seating, 1)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 10), min_size=1, max_size=12), st.integers(6, 10))
def test_r_seat_2_property_every_empty_seat_takes_a_move(sizes, max_seats):
    seating = seating_of(*[min(size, max_seats) for size in sizes], max_seats=max_seats)
    free = empty_seats(seating, max_seats)
    taken = set(seating.values())
    assert len(free) == len(set(free)) and not taken & set(free)
    assert len(free) + len(seating) == max_seats * len(table_sizes(seating))   # every seat, held or free
    assert free == sorted(free)
    mover = next(iter(seating))
    for seat in free:
        moved = apply_move(seating, mover, seat.table, seat.seat, max_seats)
        assert_sound(moved, max_seats)
        assert moved[mover] == seat
