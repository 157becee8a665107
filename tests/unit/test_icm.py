"""ICM deal equity (R-PAY-2), checked against published figures and a brute-force reference."""

import itertools
import random

import pytest

from league.icm import icm


def brute_force_icm(stacks, prizes):
    """Malmuth-Harville by enumerating every finishing order (n!): the test's reference."""
    n = len(stacks)
    paid = list(prizes[:n]) + [0] * (n - len(prizes))
    equity = [0.0] * n
    for order in itertools.permutations(range(n)):
        probability = 1.0
        left = sum(stacks)
        for place, player in enumerate(order):
            # With no chips left among those still to place, each is equally likely next.
            probability *= stacks[player] / left if left else 1 / (n - place)
            left -= stacks[player]
        for place, player in enumerate(order):
            equity[player] += probability * paid[place]
    return equity


def test_r_pay_2_icm_published_three_player_check():
    assert icm([60_000, 30_000, 10_000], [500, 300, 200]) == pytest.approx([412.4, 338.3, 249.3], abs=0.05)


def test_r_pay_2_icm_published_four_player_check():
    equity = icm([150_000, 98_750, 45_500, 13_250], [425, 280, 130, 75])
    assert equity == pytest.approx([323.20, 278.12, 195.79, 112.89], abs=0.005)


def test_r_pay_2_icm_equal_stacks_equal_shares():
    equity = icm([5_000] * 6, [600, 300, 100])
    assert equity == pytest.approx([1000 / 6] * 6)


def test_r_pay_2_icm_heads_up_is_proportional_to_chips_above_second_prize():
    # Two players: P(first) = share of chips, so equity = 2nd prize + share * (1st - 2nd).
    assert icm([3, 1], [100, 20]) == pytest.approx([20 + 0.75 * 80, 20 + 0.25 * 80])


def test_r_pay_2_icm_sum_of_equities_is_sum_of_prizes():
    equity = icm([12_000, 9_500, 8_000, 7_000, 3_000], [1000, 600, 300])
    assert sum(equity) == pytest.approx(1900)


@pytest.mark.parametrize("seed", range(25))
def test_r_pay_2_icm_matches_brute_force_enumeration(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 6)
    stacks = [rng.randint(1, 50_000) for _ in range(n)]
    prizes = sorted((rng.randint(0, 1_000) for _ in range(rng.randint(1, 7))), reverse=True)
    assert icm(stacks, prizes) == pytest.approx(brute_force_icm(stacks, prizes))


@pytest.mark.parametrize("seed", range(10))
def test_r_pay_2_icm_with_empty_stacks_matches_brute_force_enumeration(seed):
    rng = random.Random(1000 + seed)
    n = rng.randint(2, 6)
    stacks = [rng.choice([0, 0, rng.randint(1, 9_000)]) for _ in range(n)]
    prizes = sorted((rng.randint(1, 1_000) for _ in range(n)), reverse=True)
    assert icm(stacks, prizes) == pytest.approx(brute_force_icm(stacks, prizes))


def test_r_pay_2_icm_pads_short_and_truncates_long_prize_lists():
    assert icm([2, 1, 1], [90]) == pytest.approx([45, 22.5, 22.5])
    assert icm([1, 1], [70, 30, 20, 10]) == pytest.approx([50, 50])


def test_r_pay_2_icm_zero_stacks_take_the_lowest_places():
    equity = icm([0, 7_000, 0], [500, 300, 200])
    # The only player with chips wins; the two empty stacks share 2nd and 3rd.
    assert equity == pytest.approx([250, 500, 250])


def test_r_pay_2_icm_everyone_at_zero_shares_evenly():
    assert icm([0, 0, 0], [30, 20, 10]) == pytest.approx([20, 20, 20])


def test_r_pay_2_icm_edge_cases_and_validation():
    assert icm([], [100]) == []
    assert icm([5], [100, 50]) == pytest.approx([100])
    assert icm([5, 5], []) == [0.0, 0.0]
    with pytest.raises(ValueError):
        icm([100, -1], [10, 5])
    with pytest.raises(ValueError):
        icm([100, 1], [10, -5])


def test_r_pay_2_icm_ten_players():
    stacks = [12_000, 9_500, 8_000, 7_000, 6_400, 5_000, 4_200, 3_000, 2_500, 1_200]
    prizes = [1_000, 700, 500, 400, 300, 250, 200, 150, 100, 80]
    equity = icm(stacks, prizes)
    assert sum(equity) == pytest.approx(sum(prizes))
    assert equity == sorted(equity, reverse=True)  # a bigger stack is never worth less
    # (its speed, the subset DP against the n! enumeration, is measured in tests/bench/test_icm.py)
