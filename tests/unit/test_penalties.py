"""Warnings and penalties as rules (R-PEN-1..3), with RULES.md's own wording."""
import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from league import penalties
from league.penalties import Infraction
from league.statuses import PenaltyKind

EIGHT_PM = dt.datetime(2026, 12, 1, 9, 0)  # 20:00 in Sydney, stored in UTC


def test_r_pen_1_a_missed_round_is_one_hand_for_every_player_at_the_table_times_the_rounds():
    """R-PEN-1: "one hand for every player at the table when it is given, times the number of rounds"."""
    assert penalties.round_hands(9, 1) == 9
    assert penalties.round_hands(9, 2) == 18
    assert penalties.round_hands(6, 4) == 24


@pytest.mark.parametrize("rounds", [0, 5, -1])
def test_r_pen_1_rounds_are_1_to_4_in_thpas_conditions(rounds):
    with pytest.raises(ValueError, match="1 to 4 rounds"):
        penalties.round_hands(9, rounds)


def test_r_pen_1_the_four_kinds_and_the_hands_each_keeps_a_player_away():
    """R-PEN-1: a verbal warning, a missed-hand penalty (a number of hands), a missed-round penalty,
    or disqualify them."""
    assert penalties.penalty_hands(PenaltyKind.WARNING) == 0
    assert penalties.penalty_hands(PenaltyKind.DISQUALIFICATION) == 0
    assert penalties.penalty_hands(PenaltyKind.MISSED_HANDS, hands=3) == 3
    assert penalties.penalty_hands(PenaltyKind.MISSED_ROUNDS, rounds=2, table_size=9) == 18
    for bad in (None, 0, 101):
        with pytest.raises(ValueError, match="hands to miss"):
            penalties.penalty_hands(PenaltyKind.MISSED_HANDS, hands=bad)
    with pytest.raises(ValueError, match="rounds to miss"):
        penalties.penalty_hands(PenaltyKind.MISSED_ROUNDS, table_size=9)
    with pytest.raises(ValueError, match="Pick a warning"):
        penalties.penalty_hands("yellow_card")


def test_r_pen_1_in_the_hosts_words():
    assert penalties.describe(PenaltyKind.WARNING) == "Verbal warning"
    assert penalties.describe(PenaltyKind.MISSED_HANDS, 1) == "Missed 1 hand"
    assert penalties.describe(PenaltyKind.MISSED_HANDS, 3) == "Missed 3 hands"
    assert penalties.describe(PenaltyKind.MISSED_ROUNDS, 18, 2) == "Missed 2 rounds (18 hands)"
    assert penalties.describe(PenaltyKind.DISQUALIFICATION) == "Disqualified"


def test_r_pen_2_an_estimated_return_time_from_the_tables_size_and_hands_per_hour_default_30():
    """R-PEN-2: "an estimated return time from the table's size and a hands-per-hour setting (default 30)":
    2 rounds at a table of 9 are 18 hands, 36 minutes at 30 an hour."""
    assert penalties.DEFAULT_HANDS_PER_HOUR == 30
    hands = penalties.round_hands(9, 2)
    assert penalties.away_minutes(hands) == 36
    assert penalties.return_time(EIGHT_PM, hands) == EIGHT_PM + dt.timedelta(minutes=36)
    assert penalties.away_minutes(hands, 60) == 18
    assert penalties.away_minutes(5, 40) == 8  # 7.5 minutes, rounded up: nobody is called back early
    assert penalties.away_minutes(0) == 0


def test_r_pen_2_the_hands_per_hour_setting_and_its_default():
    assert penalties.hands_per_hour(None) == 30
    assert penalties.hands_per_hour({}) == 30
    assert penalties.hands_per_hour({"hands_per_hour": 40}) == 40
    for wrong in (0, -5, "40", 40.5, True, 10_000):
        assert penalties.hands_per_hour({"hands_per_hour": wrong}) == 30


def test_r_pen_2_a_penalty_is_in_force_until_its_time_or_the_host_ends_it_early():
    until = EIGHT_PM + dt.timedelta(minutes=36)
    assert penalties.in_force(until, None, EIGHT_PM)
    assert not penalties.in_force(until, None, until)  # back at the table at the estimated time
    assert not penalties.in_force(until, EIGHT_PM + dt.timedelta(minutes=5), EIGHT_PM + dt.timedelta(minutes=6))
    assert not penalties.in_force(None, None, EIGHT_PM)  # a warning keeps nobody away


@given(hands=st.integers(0, 400), per_hour=st.integers(1, 200))
def test_r_pen_2_the_estimate_is_never_shorter_than_the_hands_take(hands, per_hour):
    minutes = penalties.away_minutes(hands, per_hour)
    assert minutes * per_hour >= hands * 60 > (minutes - 1) * per_hour


def test_r_pen_3_earlier_warnings_and_penalties_tonight_and_this_month():
    """R-PEN-3: "the app shows the player's earlier warnings and penalties tonight (and this month)"."""
    tonight = 7
    rows = [Infraction(PenaltyKind.WARNING, EIGHT_PM, tonight, "Swearing"),
            Infraction(PenaltyKind.MISSED_HANDS, EIGHT_PM - dt.timedelta(days=3), 3, "Slow roll", hands=3,
                       where="Rose & Crown, Sat 28 Nov"),
            Infraction(PenaltyKind.MISSED_ROUNDS, EIGHT_PM + dt.timedelta(minutes=30), tonight, "Exposed a card",
                       hands=18, rounds=2)]
    shaped = penalties.history(rows, tonight)
    assert [i.reason for i in shaped.tonight] == ["Exposed a card", "Swearing"]  # newest first
    assert [i.label for i in shaped.this_month] == ["Missed 3 hands"]
    assert shaped.count == 3
    assert shaped.summary == "Earlier warnings and penalties: 2 tonight, 1 earlier this month."
    assert penalties.history([], tonight).summary == "No earlier warnings or penalties this month."
    only_before = penalties.history(rows[1:2], tonight)
    assert only_before.summary == "Earlier warnings and penalties: 1 earlier this month."
