"""Stacks and bonus chips (R-CHIP-1, R-CHIP-3)."""

import pytest

from league.chips import (
    BONUS_KINDS,
    BONUS_LABELS,
    DEFAULT_BONUS_VALUES,
    DEFAULT_STARTING_STACKS,
    average_stack,
    chips_in_play,
)
from league.events import EVENT_TYPES


def test_r_chip_1_bonus_kinds_and_labels():
    assert BONUS_KINDS == ("membership", "food", "drink", "early_registration", "promotional")
    assert set(BONUS_LABELS) == set(BONUS_KINDS)
    assert all(label and label[0].isupper() for label in BONUS_LABELS.values())


def test_r_chip_1_default_starting_stacks_for_every_event_type():
    assert set(DEFAULT_STARTING_STACKS) == set(EVENT_TYPES)
    assert DEFAULT_STARTING_STACKS["nightly"] == 10_000
    assert DEFAULT_STARTING_STACKS["highroller"] == 20_000
    # R-FIN, cash-league finals.
    assert DEFAULT_STARTING_STACKS["monthly_final"] == 10_000
    assert DEFAULT_STARTING_STACKS["highroller_final"] == 20_000
    assert DEFAULT_STARTING_STACKS["top10_shootout"] == 40_000


def test_r_chip_1_default_nightly_bonus_values():
    assert DEFAULT_BONUS_VALUES["nightly"] == {
        "membership": 1_000, "food": 1_000, "drink": 500, "early_registration": 1_000, "promotional": 1_000,
    }


def test_r_chip_1_high_roller_games_take_no_bonus_cards():
    assert DEFAULT_BONUS_VALUES["highroller"] == {}


def test_r_fin_bonus_defaults_for_finals():
    # Monthly Final: all bonus cards except membership cards.
    assert set(DEFAULT_BONUS_VALUES["monthly_final"]) == set(BONUS_KINDS) - {"membership"}
    # High-roller Final: none (its 2,000 early-registration chips are in the starting stack).
    assert DEFAULT_BONUS_VALUES["highroller_final"] == {}
    assert DEFAULT_BONUS_VALUES["top10_shootout"] == {}
    assert set(DEFAULT_BONUS_VALUES) == set(EVENT_TYPES)


def test_r_chip_3_chips_in_play():
    # 20 players at 10,000, bonuses accepted worth 14,500, a no-show's 10,000 removed.
    assert chips_in_play(200_000, 14_500, 10_000) == 204_500


def test_r_chip_3_chips_in_play_refuses_impossible_counts():
    with pytest.raises(ValueError):
        chips_in_play(10_000, 0, 20_000)
    with pytest.raises(ValueError):
        chips_in_play(-1, 0, 0)


def test_r_chip_3_average_stack_whole_chips_rounded_half_up():
    assert average_stack(204_500, 20) == 10_225
    assert average_stack(10, 4) == 3  # 2.5 rounds up
    assert average_stack(10, 3) == 3  # 3.33 rounds down
    assert average_stack(11, 6) == 2  # 1.83 rounds up


def test_r_chip_3_average_stack_when_nobody_remains():
    assert average_stack(0, 0) is None
    with pytest.raises(ValueError):
        average_stack(10, -1)
