"""ICM for a ten-handed final table (target: <= 10 ms)."""
import pytest

from league.icm import icm

STACKS = [182_000, 141_000, 97_500, 88_000, 61_000, 52_500, 40_000, 23_000, 11_500, 3_500]
PRIZES = [1_000, 700, 500, 400, 300, 250, 200, 150, 100, 50]  # every place paid: the worst case


def test_icm_ten_players(benchmark):
    equity = benchmark(icm, STACKS, PRIZES)
    assert sum(equity) == pytest.approx(sum(PRIZES))
    assert equity == sorted(equity, reverse=True)  # more chips, more equity
    assert PRIZES[-1] < equity[-1] and equity[0] < PRIZES[0]
