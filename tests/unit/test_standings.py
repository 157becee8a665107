"""Standings tables (R-STD-1, R-STD-2)."""

import pytest

from league.standings import StandingRow, rank_table, top_with_ties


def test_r_std_1_equal_points_share_a_rank_competition_style():
    table = rank_table([(1, "Ann", 900, 2), (2, "Bob", 750, 1), (3, "Cat", 750, 3), (4, "Dan", 300, 1)])
    assert [(row.rank, row.player) for row in table] == [(1, "Ann"), (2, "Bob"), (2, "Cat"), (4, "Dan")]


def test_r_std_1_rows_sorted_by_points_then_name_casefold_then_key():
    table = rank_table([
        (7, "bob", 500, 1),
        (3, "Zed", 800, 1),
        (5, "Bob", 500, 2),
        (1, "alice", 500, 1),
    ])
    assert [(row.key, row.player) for row in table] == [(3, "Zed"), (1, "alice"), (5, "Bob"), (7, "bob")]
    assert [row.rank for row in table] == [1, 2, 2, 2]


def test_r_std_1_rows_carry_points_and_events_played():
    table = rank_table([("k", "Kim", 0, 1)])
    assert table == [StandingRow(rank=1, key="k", player="Kim", points=0, events=1)]


def test_r_std_1_disqualified_only_player_appears_last_with_0_points():
    table = rank_table([("dq", "Dee", 0, 1), ("w", "Win", 75, 1)])
    assert [(row.key, row.rank, row.points) for row in table] == [("w", 1, 75), ("dq", 2, 0)]


def test_r_std_1_order_of_input_does_not_matter():
    rows = [(i, f"P{i % 7}", (i * 37) % 11 * 25, 1) for i in range(30)]
    assert rank_table(rows) == rank_table(list(reversed(rows)))


def test_r_std_1_empty_table_and_duplicate_keys():
    assert rank_table([]) == []
    with pytest.raises(ValueError, match="more than once"):
        rank_table([(1, "A", 5, 1), (1, "A", 6, 1)])


def _season(points_list):
    return rank_table([(i, f"Player {i:03d}", points, 1) for i, points in enumerate(points_list)])


def test_r_std_2_top_50_includes_ties_across_50th():
    # 48 players on distinct high scores, then four tied at 100 (49th to 52nd), then more.
    points = [10_000 - 10 * i for i in range(48)] + [100] * 4 + [50, 40]
    shown = top_with_ties(_season(points))
    assert len(shown) == 52
    assert [row.rank for row in shown[-4:]] == [49, 49, 49, 49]


def test_r_std_2_top_50_without_a_tie_is_exactly_50():
    shown = top_with_ties(_season(list(range(1000, 900, -1))))
    assert len(shown) == 50
    assert shown[-1].rank == 50


def test_r_std_2_fewer_than_50_players_all_shown():
    assert len(top_with_ties(_season([5, 4, 3]))) == 3


def test_r_std_2_tie_starting_at_50th_is_shown_whole():
    points = [1000 - i for i in range(49)] + [10, 10, 10] + [5]
    shown = top_with_ties(_season(points))
    assert len(shown) == 52
    assert shown[-1].points == 10


def test_r_std_2_other_cut_sizes():
    table = _season([30, 20, 20, 10])
    assert [row.points for row in top_with_ties(table, 2)] == [30, 20, 20]
    assert top_with_ties(table, 0) == []
