"""Qualification for finals (R-QUAL-1 .. R-QUAL-5)."""

import pytest

from league.points import Finish
from league.qualify import EventResult, Ticket, may_enter_final, monthly_tickets, shootout_qualifiers
from league.standings import rank_table


def event(key, day, *players, statuses=None, positions=None):
    """An event on 2026-11-`day` with `players` finishing 1st, 2nd, ... in the order given."""
    statuses = statuses or {}
    positions = positions or {}
    finishes = []
    for index, player in enumerate(players, start=1):
        status = statuses.get(player, "played")
        position = None if status == "no_show" else positions.get(player, index)
        finishes.append(Finish(player, position, status))
    return EventResult(key, (f"2026-11-{day:02d}", "19:00", "The Local"), tuple(finishes))


def holders(tickets):
    return [t.player for t in tickets]


FIELD = [f"n{i}" for i in range(1, 21)]


# R-QUAL-1


@pytest.mark.parametrize("pass_down", [True, False])
def test_r_qual_1_top_5_of_a_nightly_game_get_tickets(pass_down):
    tickets = monthly_tickets([event("e1", 3, *FIELD)], pass_down=pass_down)
    assert tickets == [Ticket(f"n{i}", "e1", i) for i in range(1, 6)]


# R-QUAL-2 pass-down on


def test_r_qual_2_pass_down_repeat_finisher_in_top_5_gives_6th_a_ticket():
    first = event("e1", 3, "a", "b", "c", "d", "e", *FIELD[:10])
    second = event("e2", 10, "x1", "x2", "a", "x4", "x5", "x6", "x7", *FIELD[10:])
    tickets = monthly_tickets([first, second], pass_down=True)
    assert [t for t in tickets if t.event == "e2"] == [
        Ticket("x1", "e2", 1), Ticket("x2", "e2", 2), Ticket("x4", "e2", 4),
        Ticket("x5", "e2", 5), Ticket("x6", "e2", 6),
    ]


def test_r_qual_2_tie_group_straddling_5th_gets_tickets_for_all_members():
    players = ["a", "b", "c", "d", "e", "f", "g", "h"]
    tied = event("e1", 3, *players, positions={"e": 5, "f": 5, "g": 7, "h": 8})
    for pass_down in (True, False):
        tickets = monthly_tickets([tied], pass_down=pass_down)
        assert holders(tickets) == ["a", "b", "c", "d", "e", "f"]
        assert [t.position for t in tickets] == [1, 2, 3, 4, 5, 5]


def test_r_qual_2_pass_down_stops_at_the_final_table_of_a_small_field():
    earlier = event("e1", 3, "a", "b", "c", "d", "z")
    # Field of 7: the final table is the whole field; 4 of the 7 already hold tickets.
    later = event("e2", 10, "a", "b", "p", "c", "q", "d", "r")
    tickets = monthly_tickets([earlier, later], pass_down=True)
    assert [(t.player, t.position) for t in tickets if t.event == "e2"] == [("p", 3), ("q", 5), ("r", 7)]


def test_r_qual_2_pass_down_never_goes_beyond_10th_in_a_big_field():
    holders_first = event("e1", 3, "h1", "h2", "h3", "h4", "h5")
    holders_second = event("e2", 4, "h6", "h7", "h8", "h9", "h10")
    # h1..h8 finish in the top 10 again: only 9th and 10th are ticketless on the final table.
    big = event("e3", 10, "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "new9", "new10", "new11", "new12")
    tickets = monthly_tickets([holders_first, holders_second, big], pass_down=True)
    assert [t.player for t in tickets if t.event == "e3"] == ["new9", "new10"]


def test_r_qual_2_pass_down_tie_group_on_10th_is_on_the_final_table():
    first = event("e1", 3, *[f"h{i}" for i in range(1, 6)])
    second = event("e2", 4, *[f"h{i}" for i in range(6, 11)])
    positions = {"t10": 10, "t11": 10}
    third = event("e3", 10, *[f"h{i}" for i in range(1, 10)], "t10", "t11", "t12", positions=positions)
    tickets = monthly_tickets([first, second, third], pass_down=True)
    assert [(t.player, t.position) for t in tickets if t.event == "e3"] == [("t10", 10), ("t11", 10)]


def test_r_qual_2_settled_in_date_order_whatever_order_results_are_entered():
    older = event("old", 2, "a", "b", "c", "d", "e", "f")
    newer = event("new", 9, "a", "g", "h", "i", "j", "k")
    expected = [Ticket(p, "old", i) for i, p in enumerate("abcde", start=1)] + [
        Ticket("g", "new", 2), Ticket("h", "new", 3), Ticket("i", "new", 4),
        Ticket("j", "new", 5), Ticket("k", "new", 6),
    ]
    assert monthly_tickets([newer, older], pass_down=True) == expected
    assert monthly_tickets([older, newer], pass_down=True) == expected


def test_r_qual_2_same_day_events_settle_by_start_time_then_venue():
    def night(key, start, venue, players):
        finishes = tuple(Finish(p, i) for i, p in enumerate(players, start=1))
        return EventResult(key, ("2026-11-05", start, venue), finishes)

    early = night("e-early", "18:00", "Zebra Bar", "abcde")
    late_a = night("e-late-a", "20:00", "Arms", "afghij")
    late_b = night("e-late-b", "20:00", "Bell", "fklmno")
    tickets = monthly_tickets([late_b, late_a, early], pass_down=True)
    assert [t.event for t in tickets] == ["e-early"] * 5 + ["e-late-a"] * 5 + ["e-late-b"] * 5
    assert [t.player for t in tickets if t.event == "e-late-b"] == ["k", "l", "m", "n", "o"]


# R-QUAL-2 pass-down off


def test_r_qual_2_pass_down_off_repeat_finishers_ticket_is_not_issued():
    first = event("e1", 3, "a", "b", "c", "d", "e")
    second = event("e2", 10, "x1", "a", "x3", "x4", "x5", "x6")
    tickets = monthly_tickets([first, second], pass_down=False)
    assert [(t.player, t.position) for t in tickets if t.event == "e2"] == [
        ("x1", 1), ("x3", 3), ("x4", 4), ("x5", 5),
    ]


# disqualified players and no-shows


def test_r_qual_2_disqualified_player_never_gets_a_ticket_pass_down_on():
    night = event("e1", 3, "a", "b", "cheat", "d", "e", "f", "g", statuses={"cheat": "dq"})
    assert holders(monthly_tickets([night], pass_down=True)) == ["a", "b", "d", "e", "f"]


def test_r_qual_1_disqualified_player_never_gets_a_ticket_pass_down_off():
    night = event("e1", 3, "a", "b", "cheat", "d", "e", "f", "g", statuses={"cheat": "dq"})
    assert holders(monthly_tickets([night], pass_down=False)) == ["a", "b", "d", "e"]


def test_r_qual_1_no_show_never_gets_a_ticket():
    night = event("e1", 3, "a", "b", "c", "d", "e", "ghost", statuses={"ghost": "no_show"})
    tickets = monthly_tickets([night], pass_down=True)
    assert "ghost" not in holders(tickets)
    assert len(tickets) == 5


def test_r_qual_2_settings_for_places_and_final_table():
    night = event("e1", 3, *FIELD)
    assert len(monthly_tickets([night], pass_down=True, places=3)) == 3
    assert monthly_tickets([night], pass_down=True, places=0) == []
    month = [event("e0", 1, "a", "b", "c"), event("e1", 3, "a", "b", "c", "d", "e", "f")]
    small_table = monthly_tickets(month, pass_down=True, final_table=4)
    assert [t.player for t in small_table if t.event == "e1"] == ["d"]


def test_r_qual_2_invalid_event_results_are_refused():
    bad = EventResult("e1", ("2026-11-01", "19:00", "X"), (Finish("a", 1), Finish("b", 3)))
    with pytest.raises(ValueError, match="skip"):
        monthly_tickets([bad], pass_down=True)


# R-QUAL-4 Top-10 Shoot-out


def _month(points_list):
    return rank_table([(f"p{i}", f"Player {i:02d}", points, 1) for i, points in enumerate(points_list)])


def test_r_qual_4_ten_highest_scorers_qualify():
    table = _month([1000 - 50 * i for i in range(14)])
    qualifiers = shootout_qualifiers(table)
    assert [row.key for row in qualifiers] == [f"p{i}" for i in range(10)]


def test_r_qual_4_tie_with_10th_gives_11_qualifiers():
    points = [1000 - 50 * i for i in range(9)] + [300, 300] + [100, 75]
    qualifiers = shootout_qualifiers(_month(points))
    assert len(qualifiers) == 11
    assert {row.key for row in qualifiers[-2:]} == {"p9", "p10"}


def test_r_qual_4_fewer_than_10_scorers_all_qualify():
    qualifiers = shootout_qualifiers(_month([750, 550, 400, 75]))
    assert len(qualifiers) == 4


def test_r_qual_4_house_decision_zero_points_is_not_a_scorer():
    # A player whose only result was a disqualification is in the table with 0 points.
    qualifiers = shootout_qualifiers(_month([750, 550, 0]))
    assert [row.key for row in qualifiers] == ["p0", "p1"]


# R-QUAL-5 minimum play


def test_r_qual_5_must_have_played_one_event_to_enter_a_final():
    assert may_enter_final(0) is False
    assert may_enter_final(1) is True
    assert may_enter_final(7) is True
    with pytest.raises(ValueError):
        may_enter_final(-1)
