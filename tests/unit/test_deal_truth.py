"""What a deal decides and what it pays (R-PAY-1/2, R-PTS-6/7, R-CHIP-3): the prizes by place as paid
after a deal, the chip count checked against the chips in play, and a free night's points order."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league.deals import count_problem, deal_offers, deal_points
from league.payouts import paid_places, payouts, prizes_as_paid

QUICK = settings(max_examples=150, deadline=None)


# ---- R-PAY-2: the prizes as paid ------------------------------------------------------------------------

def test_r_pay_2_four_players_sharing_three_prizes_are_four_places_paid():
    # the walk's ICM deal: $289/$173/$115 on the ladder, $189/$165/$129/$94 paid
    assert prizes_as_paid([289, 173, 115], [129, 189, 94, 165]) == [189, 165, 129, 94]


def test_r_pay_2_places_below_the_deal_keep_the_ladders_prizes():
    assert prizes_as_paid([500, 300, 200, 100, 50], [420, 380]) == [420, 380, 200, 100, 50]


def test_r_pay_2_without_a_deal_the_ladder_and_without_money_nothing():
    assert prizes_as_paid([500, 300], []) == [500, 300]
    assert prizes_as_paid([], [0, 0, 0]) == []  # a free night: a deal decides points only
    assert prizes_as_paid([100], [100, 0]) == [100]  # a share of nothing is no prize


@st.composite
def deals_at_a_final_table(draw):
    """A night's ladder (R-PAY-1) and the shares a deal among its last 2..9 players gave (R-PAY-2)."""
    field = draw(st.integers(10, 120))
    ladder = payouts(draw(st.integers(100, 20_000)), paid_places(field))
    players = draw(st.integers(2, 9))
    stacks = draw(st.lists(st.integers(1, 200_000), min_size=players, max_size=players))
    offer = deal_offers(dict(enumerate(stacks)), ladder[:players])
    return ladder, list((offer.icm if draw(st.booleans()) else offer.chip_chop).values())


@QUICK
@given(deals_at_a_final_table())
def test_r_pay_2_the_prizes_as_paid_add_up_to_the_pool_and_fall_place_by_place(deal):
    ladder, shares = deal
    paid = prizes_as_paid(ladder, shares)
    assert sum(paid) == sum(ladder)  # the deal shares out what the ladder would have paid, no more
    top = paid[:len(shares)]
    assert top == sorted(top, reverse=True) and sorted(top) == sorted(s for s in shares if s)
    assert paid[len(shares):] == ladder[len(shares):]


# ---- R-CHIP-3: the deal's count --------------------------------------------------------------------------

def test_r_chip_3_a_count_that_adds_up_passes():
    assert count_problem(50_000, 50_000) is None


@pytest.mark.parametrize("counted, said", [
    (1_000_000, "The counts add up to 1,000,000 chips, 950,000 more than the 50,000 in play (R-CHIP-3)"),
    (400, "The counts add up to 400 chips, 49,600 fewer than the 50,000 in play (R-CHIP-3)"),
])
def test_r_chip_3_a_count_that_does_not_add_up_says_by_how_much(counted, said):
    assert count_problem(counted, 50_000).startswith(said)


# ---- R-PTS-7: a free night's deal ----------------------------------------------------------------------

def test_r_pts_7_the_count_fixes_places_and_points_equal_counts_sharing():
    # 25 players: +250 for the top 10 (R-PTS-3); two on 20,000 share 1st and 2nd: (1000 + 800) / 2
    assert deal_points({"a": 20_000, "b": 5_000, "c": 20_000}, 25) == {"a": (1, 900), "c": (1, 900), "b": (3, 650)}


def test_r_pts_8_a_deal_where_no_points_are_awarded_decides_places_only():
    assert deal_points({"a": 3, "b": 7}, 12, awards_points=False) == {"b": (1, 0), "a": (2, 0)}


@QUICK
@given(st.lists(st.integers(1, 50), min_size=2, max_size=10), st.integers(0, 60))
def test_r_pts_7_more_chips_never_finish_lower_nor_earn_fewer_points(stacks, others):
    decided = deal_points(dict(enumerate(stacks)), len(stacks) + others)
    for a in range(len(stacks)):
        for b in range(len(stacks)):
            if stacks[a] > stacks[b]:
                assert decided[a][0] < decided[b][0] and decided[a][1] >= decided[b][1]
            elif stacks[a] == stacks[b]:
                assert decided[a] == decided[b]
