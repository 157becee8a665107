"""Prize money (R-PAY-1, R-PAY-2, R-PTS-6)."""

from fractions import Fraction

import pytest

from league.payouts import (
    chip_chop,
    paid_places,
    payout_percentages,
    payouts,
    prize_pool,
    round_to_dollars,
    share_tied_prizes,
)

# R-PAY-1 paid places


@pytest.mark.parametrize(
    ("field", "places"),
    [(0, 0), (1, 1), (9, 1), (10, 1), (19, 1), (20, 2), (25, 2), (99, 9), (100, 10)],
)
def test_r_pay_1_paid_places_ten_percent_rounded_down_at_least_one(field, places):
    assert paid_places(field) == places


def test_r_pay_1_fifteen_percent_setting():
    assert paid_places(20, 15) == 3
    assert paid_places(25, 15) == 3
    assert paid_places(40, 15) == 6
    assert paid_places(5, 15) == 1


def test_r_pay_1_prize_pool_is_guarantee_plus_entry_shares():
    # A cash Monthly Final: $500 plus 24 entries of which $20 each goes to this pool.
    assert prize_pool(24, 20, guarantee=500) == 980
    assert prize_pool(12, 15) == 180
    with pytest.raises(ValueError):
        prize_pool(-1, 20)


# R-PAY-1 payout tables


def test_r_pay_1_small_house_tables():
    as_percent = {n: [p * 100 for p in payout_percentages(n)] for n in range(1, 6)}
    assert as_percent == {
        1: [100],
        2: [65, 35],
        3: [50, 30, 20],
        4: [45, 27, 17, 11],
        5: [40, 25, 16, 11, 8],
    }


@pytest.mark.parametrize("places", range(1, 121))
def test_r_pay_1_payout_tables_sum_to_one_and_strictly_decrease(places):
    shares = payout_percentages(places)
    assert len(shares) == places
    assert all(isinstance(share, Fraction) for share in shares)
    assert sum(shares) == 1
    assert all(a > b for a, b in zip(shares, shares[1:]))
    assert shares[-1] > 0


def test_r_pay_1_payout_table_needs_a_place():
    with pytest.raises(ValueError):
        payout_percentages(0)


def test_r_pay_1_payouts_whole_dollars_remainder_to_first():
    assert payouts(1000, 3) == [500, 300, 200]
    # 101 * (50, 30, 20)% = 50.5, 30.3, 20.2: floors 50, 30, 20, the dollar left to 1st.
    assert payouts(101, 3) == [51, 30, 20]
    assert payouts(99, 2) == [65, 34]  # 64.35 -> 64, 34.65 -> 34, 1 left to 1st


def test_r_pay_1_payouts_sum_to_pool_and_decrease():
    for pool in (0, 1, 37, 980, 12_345):
        for places in range(1, 40):
            amounts = payouts(pool, places)
            assert sum(amounts) == pool
            assert all(isinstance(a, int) for a in amounts)
            assert all(a >= b for a, b in zip(amounts, amounts[1:]))


def test_r_pay_1_no_places_no_prizes():
    assert payouts(500, 0) == []


# R-PTS-6 tied prizes


def test_r_pts_6_tied_players_share_the_prizes_they_cover():
    prizes = [500, 300, 200]
    shares = share_tied_prizes(prizes, {"a": 1, "b": 2, "c": 2, "d": 4})
    assert shares == {"a": 500, "b": 250, "c": 250, "d": 0}


def test_r_pts_6_uneven_split_leftover_dollars_in_the_order_given():
    # Positions 1-3 tied: 1001 + 300 + 200 = 1501 = 3 * 500 + 1.
    shares = share_tied_prizes([1001, 300, 200], {"x": 1, "y": 1, "z": 1})
    assert shares == {"x": 501, "y": 500, "z": 500}
    # 2nd and 3rd tied for 301 + 200 = 501: 251 to the first named, 250 to the other.
    assert share_tied_prizes([600, 301, 200], {"a": 1, "c": 2, "b": 2}) == {"a": 600, "c": 251, "b": 250}


def test_r_pts_6_tie_straddling_the_last_paid_place():
    # 2nd paid $300, 3rd paid nothing: two players tied at 2nd get $150 each.
    assert share_tied_prizes([700, 300], {"a": 1, "b": 2, "c": 2}) == {"a": 700, "b": 150, "c": 150}


def test_r_pts_6_tied_prizes_need_a_valid_finishing_order():
    with pytest.raises(ValueError, match="skip"):
        share_tied_prizes([100], {"a": 1, "b": 3})


# R-PAY-2 chip-chop


def test_r_pay_2_chip_chop_guarantees_the_last_place_prize_then_splits_by_chips():
    shares = chip_chop([50_000, 30_000, 20_000], [500, 300, 200])
    # Each is guaranteed 200; the other 400 goes 50/30/20.
    assert shares == pytest.approx([200 + 200, 200 + 120, 200 + 80])
    assert sum(shares) == pytest.approx(1000)


def test_r_pay_2_chip_chop_with_fewer_prizes_than_players_guarantees_nothing():
    shares = chip_chop([10, 30, 60], [1000, 500])
    assert shares == pytest.approx([150, 450, 900])


def test_r_pay_2_chip_chop_ignores_prizes_beyond_the_players():
    shares = chip_chop([3, 1], [500, 300, 200])
    # Guaranteed 300 each; the remaining 200 split 3:1.
    assert shares == pytest.approx([450, 350])


def test_r_pay_2_chip_chop_edge_cases():
    assert chip_chop([], [100]) == []
    assert chip_chop([0, 0], [300, 100]) == pytest.approx([200, 200])
    with pytest.raises(ValueError):
        chip_chop([-5, 10], [100, 50])


# R-PAY-2 rounding deal offers to whole dollars


def test_r_pay_2_round_to_dollars_largest_remainder():
    assert round_to_dollars([412.38, 338.33, 249.29], 1000) == [413, 338, 249]
    assert round_to_dollars([333.33, 333.33, 333.34], 1000) == [333, 333, 334]
    assert round_to_dollars([0.5, 0.5], 1) == [1, 0]  # equal remainders: earlier player first
    assert round_to_dollars([], 0) == []


def test_r_pay_2_round_to_dollars_refuses_shares_that_do_not_add_up():
    with pytest.raises(ValueError, match="add up"):
        round_to_dollars([100.0, 100.0], 300)
    with pytest.raises(ValueError):
        round_to_dollars([-1.0, 2.0], 1)


def test_r_pay_1_prizes_by_the_league_table_or_the_house_curve():
    table = {1: (100,), 2: (60, 40)}
    assert payouts(201, 2, table) == [121, 80]  # the dollar left over goes to 1st
    assert payouts(200, 2, {"2": [60, 40]}) == [120, 80]  # as the snapshot's JSON keeps it
    assert payouts(1_000, 3, table) == [500, 300, 200]  # no row for 3: the house table
    assert payouts(100, 0, table) == []
