"""The road to the finals (league/road.py): a player's place (R-STD-1), the points they need to reach
the Top-10 Shoot-out (R-QUAL-4: ties with the 10th qualify) and the season's Top 50 (R-STD-2: ties with
the 50th are shown), and their road to a Monthly Final ticket (R-QUAL-1/2). Every figure by hand."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from league.qualify import shootout_qualifiers
from league.road import Cut, Place, TicketRoad, place_of, shootout_cut, ticket_chance, top50_cut
from league.standings import rank_table, top_with_ties


def table(*points):
    """A ranked table of players p1, p2, … with these points (each one night)."""
    return rank_table((f"p{i}", f"P{i:02d}", pts, 1) for i, pts in enumerate(points, start=1))


TWELVE = table(900, 800, 700, 600, 550, 500, 450, 400, 350, 300, 250, 200)


# R-STD-1: the player's place as the standings rank it


def test_r_std_1_place_is_the_tables_rank_shared_on_equal_points():
    month = table(750, 550, 550, 400)
    assert place_of(month, "p2") == Place(rank=2, tied=True, points=550, events=1, players=4)
    assert place_of(month, "p3") == Place(rank=2, tied=True, points=550, events=1, players=4)
    assert place_of(month, "p4") == Place(rank=4, tied=False, points=400, events=1, players=4)


def test_r_std_1_a_player_with_no_night_has_no_place():
    assert place_of(table(750), "nobody") is None
    assert place_of([], "nobody") is None


# R-QUAL-4: the points needed to reach the Top-10 Shoot-out


def test_r_qual_4_points_needed_is_the_gap_to_the_10th():
    # 10th has 300: the 11th (250) needs 50, the 12th (200) needs 100.
    assert shootout_cut(TWELVE, "p11") == Cut(places=10, inside=False, cut=300, needed=50, open_places=0)
    assert shootout_cut(TWELVE, "p12").needed == 100


def test_r_qual_4_a_player_already_in_needs_nothing():
    for key in ("p1", "p10"):
        cut = shootout_cut(TWELVE, key)
        assert cut.inside and cut.needed == 0 and cut.cut == 300


def test_r_qual_4_ties_with_the_10th_qualify_so_reaching_its_total_is_enough():
    # 9th to 12th all on 300: all four are in, the 13th (250) needs 50 to tie them.
    month = table(900, 800, 700, 600, 550, 500, 450, 400, 300, 300, 300, 300, 250)
    assert [shootout_cut(month, f"p{i}").inside for i in (9, 10, 11, 12)] == [True] * 4
    assert shootout_cut(month, "p13") == Cut(10, False, 300, 50, 0)
    assert [row.key for row in shootout_qualifiers(month)] == [f"p{i}" for i in range(1, 13)]


def test_r_qual_4_a_tie_straddling_10th_takes_the_shared_points_not_the_11th_row():
    # 10th and 11th share 300 (rank 10): the cut is 300, the 12th (299) needs 1.
    month = table(900, 800, 700, 600, 550, 500, 450, 400, 350, 300, 300, 299)
    assert shootout_cut(month, "p11").inside
    assert shootout_cut(month, "p12").needed == 1


def test_r_qual_4_fewer_than_10_scorers_all_qualify_and_any_points_get_a_player_in():
    month = table(750, 550, 400)
    assert shootout_cut(month, "p3") == Cut(10, True, 1, 0, 7)
    # not in the table yet: any points (more than 0) get them in
    assert shootout_cut(month, "new") == Cut(10, False, 1, 1, 7)


def test_r_qual_4_a_player_with_no_points_yet_is_not_in_even_when_places_are_open():
    # A disqualification is in the table with 0 points (R-STD-1) but is no scorer.
    month = table(750, 0)
    assert shootout_cut(month, "p2") == Cut(10, False, 1, 1, 9)
    assert [row.key for row in shootout_qualifiers(month)] == ["p1"]


def test_r_qual_4_a_player_not_in_the_table_needs_the_10ths_whole_total():
    assert shootout_cut(TWELVE, "new") == Cut(10, False, 300, 300, 0)


def test_r_qual_4_empty_month_every_place_open():
    assert shootout_cut([], "new") == Cut(10, False, 1, 1, 10)


def test_r_qual_4_exactly_ten_scorers_fills_every_place():
    month = table(*range(1000, 0, -100))  # 1000 … 100
    assert shootout_cut(month, "p10") == Cut(10, True, 100, 0, 0)
    assert shootout_cut(month, "new") == Cut(10, False, 100, 100, 0)


def test_a_cut_needs_a_place():
    with pytest.raises(ValueError, match="at least one place"):
        shootout_cut(TWELVE, "p1", places=0)


@given(st.lists(st.integers(min_value=0, max_value=2000), max_size=25), st.integers(min_value=0, max_value=26))
def test_r_qual_4_needed_agrees_with_the_qualifiers(points, pick):
    """R-QUAL-4: inside exactly when shootout_qualifiers lists the player; and `needed` more points
    (the rest of the table as it is) put them in, one fewer does not."""
    month = table(*points)
    key = f"p{pick}"
    cut = shootout_cut(month, key)
    assert cut.inside == any(row.key == key for row in shootout_qualifiers(month))
    if not cut.inside:
        mine = next((row.points for row in month if row.key == key), 0)
        others = [(row.key, row.player, row.points, 1) for row in month if row.key != key]
        after = rank_table([*others, (key, "Me", mine + cut.needed, 1)])
        assert any(row.key == key for row in shootout_qualifiers(after))
        if cut.needed > 1:
            short = rank_table([*others, (key, "Me", mine + cut.needed - 1, 1)])
            assert not any(row.key == key for row in shootout_qualifiers(short))


# R-STD-2: the points needed to reach the season's Top 50


def season(n, points=lambda i: 5000 - 50 * i):
    return table(*(points(i) for i in range(n)))


def test_r_std_2_points_needed_to_reach_the_50th():
    year = season(55)  # 5000, 4950, … the 50th has 2550, the 51st 2500
    assert top50_cut(year, "p51") == Cut(50, False, 2550, 50, 0)
    assert top50_cut(year, "p50") == Cut(50, True, 2550, 0, 0)


def test_r_std_2_ties_with_the_50th_are_in():
    year = table(*([1000] * 48 + [500, 500, 500, 400]))
    assert top50_cut(year, "p51").inside and top50_cut(year, "p51").needed == 0
    assert top50_cut(year, "p52") == Cut(50, False, 500, 100, 0)
    assert len(top_with_ties(year)) == 51


def test_r_std_2_fewer_than_50_players_everyone_in_the_table_is_shown():
    year = table(750, 0)
    assert top50_cut(year, "p2") == Cut(50, True, 0, 0, 48)  # a disqualification's 0 is in the table
    # not in it yet: a point-awarding night is all it takes (0 points needed, not inside)
    assert top50_cut(year, "new") == Cut(50, False, 0, 0, 48)


# R-QUAL-1/2: the road to a Monthly Final ticket


def test_r_qual_1_a_ticket_in_hand_is_the_end_of_the_road():
    chance = ticket_chance(holds_ticket=True, nights_left=3, pass_down=True)
    assert chance.road == TicketRoad.HELD and chance.places == 5


def test_r_qual_1_nights_left_can_still_give_a_ticket():
    chance = ticket_chance(holds_ticket=False, nights_left=2, pass_down=False)
    assert (chance.road, chance.nights_left, chance.pass_down) == (TicketRoad.NIGHTS_LEFT, 2, False)


def test_r_qual_2_pass_down_is_carried_for_the_explanation():
    assert ticket_chance(holds_ticket=False, nights_left=1, pass_down=True).pass_down


def test_r_qual_1_no_nightly_game_left_no_ticket_this_month():
    assert ticket_chance(holds_ticket=False, nights_left=0, pass_down=True).road == TicketRoad.NO_NIGHTS_LEFT


def test_r_qual_1_nights_left_cannot_be_negative():
    with pytest.raises(ValueError, match="negative"):
        ticket_chance(holds_ticket=False, nights_left=-1, pass_down=True)
