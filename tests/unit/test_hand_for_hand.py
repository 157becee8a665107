"""Hand-for-hand at the money bubble (R-HFH-1..3): the suggestion, the end at the bubble, the clock's
time per hand and the places shared by everyone out in one hand, with RULES.md's own examples."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from league import hand_for_hand as hfh
from league.clock import ClockState, start, view
from league.finishing import Hand, finishing_positions
from league.payouts import prizes_for
from league.points import Finish, award_points, check_finishing_order, position_points
from league.structures import Break, Level

MIN = 60_000
T0 = 1_764_000_000_000
STRUCTURE = (Level(20, 100, 200), Level(20, 200, 400), Break(15), Level(20, 300, 600))


# --- R-HFH-1: when the app suggests it, when it ends by itself -----------------------------------

@pytest.mark.parametrize(("left", "paid", "tables", "suggested"), [
    (20, 10, 2, False),  # more than paid + tables
    (12, 10, 2, True),   # paid + tables
    (11, 10, 2, True),
    (10, 10, 2, False),  # the bubble has burst
    (4, 3, 1, True),     # one table: the last player off the money
    (3, 3, 1, False),
])
def test_r_hfh_1_suggested_when_players_left_are_no_more_than_paid_places_plus_tables(left, paid, tables, suggested):
    assert hfh.suggested(left, paid, tables) is suggested


@pytest.mark.parametrize(("left", "paid", "burst"), [(11, 10, False), (10, 10, True), (9, 10, True)])
def test_r_hfh_1_ends_by_itself_once_the_players_left_are_the_paid_places(left, paid, burst):
    assert hfh.bubble_burst(left, paid) is burst


def test_r_hfh_1_impossible_counts_are_refused():
    with pytest.raises(ValueError, match="players left"):
        hfh.suggested(-1, 3, 1)
    with pytest.raises(ValueError, match="paid places"):
        hfh.bubble_burst(4, 1.5)


def test_r_hfh_1_switching_on_and_off_is_checked():
    hfh.check_on(False, True, 12)
    with pytest.raises(ValueError, match="already on"):
        hfh.check_on(True, True, 12)
    with pytest.raises(ValueError, match="hasn't started"):
        hfh.check_on(False, False, 12)
    with pytest.raises(ValueError, match="one player is left"):
        hfh.check_on(False, True, 1)
    hfh.check_off(True)
    with pytest.raises(ValueError, match="not on"):
        hfh.check_off(False)


# --- R-HFH-2: the clock stands still, each hand takes its time off ---------------------------------

def test_r_hfh_2_next_hand_only_while_on_and_the_clock_never_runs_meanwhile():
    hfh.check_next_hand(True)
    with pytest.raises(ValueError, match="switch hand-for-hand on first"):
        hfh.check_next_hand(False)
    hfh.check_clock_runs(False)
    with pytest.raises(ValueError, match="stands still during hand-for-hand"):
        hfh.check_clock_runs(True)


def test_r_hfh_2_switching_on_stops_the_clock_where_it_stands():
    running = start(STRUCTURE, ClockState(), T0)
    stopped = hfh.stop(STRUCTURE, running, T0 + 15 * MIN)
    assert stopped.running_since_ms is None and stopped.version == running.version + 1
    assert view(STRUCTURE, stopped, T0 + 60 * MIN).remaining_ms == 5 * MIN  # it no longer counts
    again = hfh.stop(STRUCTURE, stopped, T0 + 70 * MIN)
    assert again.running_since_ms is None and view(STRUCTURE, again, T0).remaining_ms == 5 * MIN


def test_r_hfh_2_each_hand_takes_two_minutes_off_the_level():
    """RP4-C: 5 minutes left, a hand: 3 left; RP4-D: with 1 left the level advances, 1 minute gone."""
    five_left = ClockState(index=0, item_elapsed_ms=15 * MIN, started=True, version=4)
    after = hfh.deal(STRUCTURE, five_left, T0, 2)
    shown = view(STRUCTURE, after, T0)
    assert (shown.index, shown.remaining_ms, shown.running) == (0, 3 * MIN, False)
    one_left = ClockState(index=0, item_elapsed_ms=19 * MIN, started=True, version=4)
    shown = view(STRUCTURE, hfh.deal(STRUCTURE, one_left, T0, 2), T0)
    assert (shown.level_number, shown.remaining_ms) == (2, 19 * MIN)


def test_r_hfh_2_a_running_clock_stops_at_the_hand():
    running = start(STRUCTURE, ClockState(), T0)
    after = hfh.deal(STRUCTURE, running, T0 + 10 * MIN, 2)
    assert after.running_since_ms is None
    assert view(STRUCTURE, after, T0 + 30 * MIN).remaining_ms == 8 * MIN


@pytest.mark.parametrize(("setting", "minutes"), [(None, 2), (3, 3), (1, 1), (0, 2), (11, 2), ("3", 2), (True, 2)])
def test_r_hfh_2_minutes_per_hand_are_the_setting_default_two(setting, minutes):
    assert hfh.minutes_per_hand(setting) == minutes


def test_r_hfh_2_hands_are_numbered_through_the_night():
    assert [hfh.next_hand_number(dealt) for dealt in (0, 1, 7)] == [1, 2, 8]


@given(st.integers(0, 3 * 20 * MIN), st.integers(1, 10), st.integers(1, 30))
def test_r_hfh_2_hands_take_exactly_their_minutes_off_the_play_timeline(elapsed, minutes, hands):
    """However many hands, the clock never runs, and the time taken off is minutes × hands (within
    the structure), crossing levels and breaks as removed time does (RP4-D)."""
    state = ClockState(index=0, item_elapsed_ms=elapsed, started=True)
    before = view(STRUCTURE, state, T0)
    for hand in range(hands):
        state = hfh.deal(STRUCTURE, state, T0 + hand, minutes)
    after = view(STRUCTURE, state, T0 + 10 * MIN)
    assert not after.running
    position = (sum(item.minutes for item in STRUCTURE[:before.index]) * MIN
                + before.item_duration_ms - before.remaining_ms + before.overtime_ms)
    now = (sum(item.minutes for item in STRUCTURE[:after.index]) * MIN
           + after.item_duration_ms - after.remaining_ms + after.overtime_ms)
    assert now == position + minutes * hands * MIN


# --- R-HFH-3: everyone out in one hand shares --------------------------------------------------------

def test_r_hfh_3_two_out_at_different_tables_share_the_places_they_cover():
    """12 left, one out at table 1 and one at table 2 in the same hand: both 11th, covering 11th and
    12th, whatever their stacks."""
    assert hfh.hand_positions(12, ["Ann", "Bob"]) == {"Ann": 11, "Bob": 11}


def test_r_hfh_3_even_two_at_one_table_share_instead_of_the_order_by_stacks():
    """R-PTS-6 would put the larger stack higher (TDA 22); during hand-for-hand they share (RP4-F)."""
    field = [f"P{n}" for n in range(12)]
    by_stacks = finishing_positions(field, [Hand({"P0": 5000, "P1": 3000})])
    assert (by_stacks.positions["P0"], by_stacks.positions["P1"]) == (11, 12)
    shared = finishing_positions(field, [hfh.shared_hand(["P0", "P1"])])
    assert (shared.positions["P0"], shared.positions["P1"]) == (11, 11)


def test_r_hfh_3_points_are_the_mean_rounded_half_up_and_prizes_an_even_share():
    """A field of 30 (3 paid: $500/$300/$200), 4 left; two out in the bubble hand at two tables share
    3rd: points (400+250 + 300+250) / 2 = 600 each; the $200 of 3rd (4th pays nothing) $100 each."""
    field = [f"P{n}" for n in range(30)]
    record = [Hand.alone(f"P{n}") for n in range(29, 3, -1)] + [hfh.shared_hand(["P3", "P2"])]
    finishing = finishing_positions(field, record)
    assert finishing.positions["P3"] == finishing.positions["P2"] == 3
    finishes = [Finish(p, pos) for p, pos in finishing.positions.items()] + [Finish(p, 1) for p in finishing.still_in[:1]]
    finishes += [Finish(p, 2) for p in finishing.still_in[1:]]
    points = award_points(finishes)
    assert points["P3"] == points["P2"] == 600
    prizes = prizes_for({f.key: f.position for f in finishes}, {}, [500, 300, 200])
    assert prizes["P3"] == prizes["P2"] == 100
    assert hfh.shares(3, 2, {3: 650, 4: 550}, [500, 300, 200]) == (600, [100, 100])


def test_r_hfh_3_a_half_point_rounds_up_and_odd_dollars_go_one_each():
    """9th and 10th of a field of 10 (175 and 150): 162.5 rounds to 163; $25 shared by two: $13 and $12."""
    points = {p: position_points(p, 10) for p in (9, 10)}
    assert hfh.shares(9, 2, points, [0] * 8 + [25]) == (163, [13, 12])


def test_r_hfh_3_nobody_or_everyone_out_is_refused():
    with pytest.raises(ValueError, match="Tap the players who are out"):
        hfh.hand_positions(5, [])
    with pytest.raises(ValueError, match="Someone has to win"):
        hfh.hand_positions(2, ["Ann", "Bob"])


@given(st.integers(2, 60), st.data())
def test_r_hfh_3_shared_hands_always_give_a_valid_finishing_order(left, data):
    """Whatever the players left and how many go out together, they share one position, the places
    they cover are the worst still open, and the order stays valid (1, 2, 2, 4)."""
    out = data.draw(st.integers(1, left - 1))
    players = [f"P{n}" for n in range(left)]
    busted = data.draw(st.permutations(players))[:out]
    positions = hfh.hand_positions(left, busted)
    assert set(positions.values()) == {left - out + 1}
    finishing = finishing_positions(players, [hfh.shared_hand(busted)])
    assert {p: finishing.positions[p] for p in busted} == positions
    check_finishing_order([*positions.values(), *range(1, left - out + 1)])


@given(st.integers(1, 40), st.integers(1, 8),
       st.lists(st.integers(0, 2000), min_size=0, max_size=50))
def test_r_hfh_3_shares_keep_the_covered_points_and_prizes(position, sharing, ladder):
    """Each share of points lies between the covered positions' least and most, within half a point
    of the mean; the prizes paid add up to the covered prizes exactly, no two a dollar apart more."""
    points = {p: position_points(min(p, 50), 50) for p in range(1, 60)}
    each, prizes = hfh.shares(position, sharing, points, ladder)
    covered = [points[p] for p in hfh.covered(position, sharing)]
    assert min(covered) <= each <= max(covered)
    assert abs(each * sharing - sum(covered)) * 2 <= sharing
    assert sum(prizes) == sum(ladder[p - 1] for p in hfh.covered(position, sharing) if p <= len(ladder))
    assert max(prizes) - min(prizes) <= 1
