"""Points for one event (R-PTS-1 .. R-PTS-8). Expected values come from the rule sheet."""

import pytest

from league.points import (
    BASE_POINTS,
    OTHER_POINTS,
    Finish,
    award_points,
    check_finishing_order,
    field_size,
    position_points,
    rank_by_chips,
)
from league.statuses import RESULT_STATUSES

RULE_SHEET_TABLE = [750, 550, 400, 300, 275, 250, 225, 200, 175, 150]


def played(*positions):
    """Finishes for players named p1, p2, ... at the given shared positions."""
    return [Finish(f"p{i}", position) for i, position in enumerate(positions, start=1)]


def straight(n):
    return played(*range(1, n + 1))


# R-PTS-1 base table


def test_r_pts_1_constants_match_the_rule_sheet():
    assert list(BASE_POINTS) == RULE_SHEET_TABLE
    assert OTHER_POINTS == 75
    assert RESULT_STATUSES == ("played", "dq", "no_show")


def test_r_pts_1_ten_players_get_the_full_table():
    assert [position_points(p, 10) for p in range(1, 11)] == RULE_SHEET_TABLE


def test_r_pts_1_eleventh_and_below_get_75():
    assert [position_points(p, 14) for p in range(11, 15)] == [75, 75, 75, 75]
    assert position_points(60, 60) == 75


def test_r_pts_1_award_points_for_a_field_of_twelve():
    points = award_points(straight(12))
    assert [points[f"p{i}"] for i in range(1, 13)] == RULE_SHEET_TABLE + [75, 75]


# R-PTS-2 short fields


def test_r_pts_2_short_field_five_players():
    assert [position_points(p, 5) for p in range(1, 6)] == [250, 225, 200, 175, 150]


def test_r_pts_2_one_player_alone_earns_150():
    assert position_points(1, 1) == 150
    assert award_points([Finish("solo", 1)]) == {"solo": 150}


def test_r_pts_2_nine_players_last_earns_tenth_place_value():
    assert [position_points(p, 9) for p in range(1, 10)] == RULE_SHEET_TABLE[1:]


def test_r_pts_2_position_outside_the_field_is_refused():
    with pytest.raises(ValueError):
        position_points(6, 5)
    with pytest.raises(ValueError):
        position_points(0, 5)
    with pytest.raises(ValueError):
        position_points(1, 0)


# R-PTS-3 field-size bonus: every band edge


@pytest.mark.parametrize(
    ("field", "bonus"),
    [(14, 0), (15, 150), (24, 150), (25, 250), (34, 250), (35, 350), (44, 350), (45, 450), (120, 450)],
)
def test_r_pts_3_bonus_band_edges_for_the_winner(field, bonus):
    assert position_points(1, field) == 750 + bonus
    assert position_points(10, field) == 150 + bonus


@pytest.mark.parametrize("field", [15, 25, 35, 45])
def test_r_pts_3_eleventh_gets_no_bonus(field):
    assert position_points(11, field) == 75


def test_r_pts_3_rule_sheet_winner_values():
    assert [position_points(1, n) for n in (14, 15, 24, 25, 34, 35, 44, 45)] == [
        750, 900, 900, 1000, 1000, 1100, 1100, 1200,
    ]


# R-PTS-4 high-roller games


def test_r_pts_4_high_roller_top_10_get_450_in_a_field_of_5():
    assert [position_points(p, 5, high_roller=True) for p in range(1, 6)] == [
        250 + 450, 225 + 450, 200 + 450, 175 + 450, 150 + 450,
    ]


def test_r_pts_4_high_roller_top_10_get_450_in_a_field_of_12():
    expected = [value + 450 for value in RULE_SHEET_TABLE] + [75, 75]
    points = award_points(straight(12), high_roller=True)
    assert [points[f"p{i}"] for i in range(1, 13)] == expected


def test_r_pts_4_high_roller_bonus_does_not_grow_beyond_450():
    assert position_points(1, 50, high_roller=True) == 750 + 450
    assert position_points(11, 50, high_roller=True) == 75


# R-PTS-5 who counts


def test_r_pts_5_field_size_counts_played_and_disqualified_not_no_shows():
    finishes = [Finish("a", 1), Finish("b", 2, "dq"), Finish("c", None, "no_show")]
    assert field_size(finishes) == 2


def test_r_pts_5_disqualified_player_takes_a_position_and_counts_in_the_field():
    # 15 participants, one disqualified at 15th: the field is still 15, so the bonus applies.
    finishes = straight(14) + [Finish("cheat", 15, "dq")]
    points = award_points(finishes)
    assert points["p1"] == 750 + 150
    assert points["p10"] == 150 + 150
    assert points["cheat"] == 0


def test_r_pts_5_disqualified_player_in_the_top_10_earns_0_and_keeps_the_place():
    finishes = [Finish("a", 1), Finish("b", 2, "dq"), Finish("c", 3)]
    # Field of 3 (short field): 3rd of 3 earns 150, 1st earns 200 (R-PTS-2).
    assert award_points(finishes) == {"a": 200, "b": 0, "c": 150}


def test_r_pts_5_no_show_is_not_in_the_field_and_earns_nothing():
    # 15 entries of which one never arrived: a field of 14 gets no bonus.
    finishes = straight(14) + [Finish("absent", None, "no_show")]
    points = award_points(finishes)
    assert points["p1"] == 750
    assert points["p14"] == 75
    assert points["absent"] == 0


# R-PTS-6 ties


def test_r_pts_6_second_and_third_tied_in_a_field_of_ten():
    points = award_points(played(1, 2, 2, 4, 5, 6, 7, 8, 9, 10))
    assert points["p2"] == points["p3"] == (550 + 400) // 2  # 475, an exact mean
    assert points["p1"] == 750
    assert points["p4"] == 300


def test_r_pts_6_odd_mean_rounds_half_up():
    points = award_points(played(1, 2, 3, 4, 5, 5, 7, 8, 9, 10))
    # (275 + 250) / 2 = 262.5, rounded half up.
    assert points["p5"] == points["p6"] == 263


def test_r_pts_6_tie_straddling_tenth_place():
    positions = list(range(1, 10)) + [10, 10] + list(range(12, 21))
    points = award_points(played(*positions))
    # Field of 20: 10th earns 150 + 150 bonus, 11th earns 75: (300 + 75) / 2 = 187.5.
    assert points["p10"] == points["p11"] == 188
    assert points["p12"] == 75


def test_r_pts_6_three_way_tie_mean_includes_bonus():
    points = award_points(played(*([1, 1, 1] + list(range(4, 16)))))
    # Field of 15: (900 + 700 + 550) / 3 = 716.67 -> 717.
    assert points["p1"] == points["p2"] == points["p3"] == 717


def test_r_pts_6_disqualified_tie_member_counts_but_earns_nothing():
    finishes = [Finish("x1", 1), Finish("x2", 2), Finish("dq", 2, "dq"), Finish("x4", 4)]
    points = award_points(finishes)
    # Field of 4 (short): positions 2 and 3 are worth 200 and 175: mean 187.5 -> 188.
    assert points == {"x1": 225, "x2": 188, "dq": 0, "x4": 150}


def test_r_pts_6_whole_field_tied_for_first():
    points = award_points(played(1, 1))
    # Field of 2: 175 and 150, mean 162.5 -> 163.
    assert points == {"p1": 163, "p2": 163}


# R-PTS-8 points only where the event type awards them


def test_r_pts_8_finals_award_zero_to_everyone():
    points = award_points(straight(20) + [Finish("n", None, "no_show")], awards_points=False)
    assert set(points.values()) == {0}
    assert len(points) == 21


# validation of imports


@pytest.mark.parametrize(
    ("positions", "message"),
    [
        ([1, 2, 4], "positions 2, 4 skip 3"),
        ([1, 2, 6], "positions 2, 6 skip 3 to 5"),
        ([1, 2, 3, 3, 4], "position 3 is shared by 2 players, so the next is 5, not 4"),
        ([1, 2, 2, 5], "position 2 is shared by 2 players, so the next is 4, not 5"),
        ([2, 3], "positions must start at 1, not 2"),
        ([0, 1], "positions must start at 1, not 0"),
        ([1, 2.5], "position 2.5 is not a whole number"),
    ],
)
def test_r_pts_6_invalid_finishing_orders_are_explained(positions, message):
    with pytest.raises(ValueError) as raised:
        check_finishing_order(positions)
    assert str(raised.value) == message


@pytest.mark.parametrize("positions", [[], [1], [1, 1], [3, 1, 2], [1, 2, 2, 4], [1, 1, 1, 4, 5, 5]])
def test_r_pts_6_valid_finishing_orders_pass(positions):
    assert check_finishing_order(positions) is None


def test_r_pts_5_award_points_rejects_bad_finishes():
    with pytest.raises(ValueError, match="did not show"):
        award_points([Finish("a", 1), Finish("b", 2, "no_show")])
    with pytest.raises(ValueError, match="no finishing position"):
        award_points([Finish("a", None)])
    with pytest.raises(ValueError, match="no finishing position"):
        award_points([Finish("a", None, "dq")])
    with pytest.raises(ValueError, match="unknown status"):
        award_points([Finish("a", 1, "won")])
    with pytest.raises(ValueError, match="more than once"):
        award_points([Finish("a", 1), Finish("a", 2)])
    with pytest.raises(ValueError, match="skip"):
        award_points(played(1, 3))
    with pytest.raises(ValueError, match="skip"):
        award_points(played(1, 3), awards_points=False)


def test_r_pts_5_positions_must_be_consecutive_across_disqualified_players():
    # The DQ at 2 fills the gap; without them counted, 1, 3 would be refused.
    assert award_points([Finish("a", 1), Finish("b", 2, "dq"), Finish("c", 3)])["c"] == 150


# rank_by_chips: deals and same-hand bust-outs


def test_r_pts_7_deal_chip_count_fixes_positions_with_shared_equal_counts():
    assert rank_by_chips({"a": 500, "b": 300, "c": 300, "d": 100}) == {"a": 1, "b": 2, "c": 2, "d": 4}


def test_r_pts_7_deal_positions_feed_award_points():
    positions = rank_by_chips({"a": 9000, "b": 12000, "c": 3000})
    finishes = [Finish(key, position) for key, position in positions.items()]
    finishes += [Finish("out4", 4), Finish("out5", 5)]
    points = award_points(finishes)
    # Field of 5: 250, 225, 200, 175, 150 by chip order b, a, c.
    assert (points["b"], points["a"], points["c"]) == (250, 225, 200)


def test_r_pts_6_same_hand_bust_outs_larger_starting_stack_finishes_higher():
    # 12 players left, three bust in one hand: they take 10th, 11th and 12th.
    assert rank_by_chips({"x": 800, "y": 2500, "z": 1200}, best_position=10) == {
        "y": 10, "z": 11, "x": 12,
    }


def test_r_pts_6_same_hand_bust_outs_with_equal_stacks_share():
    assert rank_by_chips({"x": 2000, "y": 2000, "z": 500}, best_position=7) == {
        "x": 7, "y": 7, "z": 9,
    }


def test_r_pts_7_rank_by_chips_rejects_bad_input():
    with pytest.raises(ValueError):
        rank_by_chips({"a": -1})
    with pytest.raises(ValueError):
        rank_by_chips({"a": 1}, best_position=0)
    assert rank_by_chips({}) == {}
