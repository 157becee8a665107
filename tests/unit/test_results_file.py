"""The results file (DESIGN.md "Interfaces"): parsed whole; any bad row names its line and rejects the file."""
import datetime as dt

import pytest

from league.results_file import ResultsFileError, parse_results

HEADER = "date,start_time,venue,event_type,position,player,status\n"


def rejected(text: str) -> str:
    with pytest.raises(ResultsFileError) as caught:
        parse_results(text)
    return str(caught.value)


def test_parses_events_by_date_time_and_venue():
    events = parse_results(HEADER + (
        "2026-11-03,19:00,The Rose,nightly,1,Ann,\n"
        "2026-11-03,19:00,the rose,nightly,2,Bob,played\n"
        "2026-11-03,20:30,The Rose,nightly,1,Cat,\n"
        "2026-11-04,,Crown,highroller,1,Dan,\n"
        "2026-11-04,,Crown,highroller,,Eve,no_show\n"))
    assert [(e.date, e.start_time, e.venue, e.event_type, len(e.rows)) for e in events] == [
        (dt.date(2026, 11, 3), dt.time(19, 0), "The Rose", "nightly", 2),
        (dt.date(2026, 11, 3), dt.time(20, 30), "The Rose", "nightly", 1),
        (dt.date(2026, 11, 4), None, "Crown", "highroller", 2),
    ]
    assert events[2].rows[1].status == "no_show" and events[2].rows[1].position is None


def test_optional_columns_may_be_left_out_and_bom_and_blank_lines_are_fine():
    events = parse_results("\ufeffdate,venue,event_type,position,player\n2026-11-03,Rose,nightly,1,Ann\n\n")
    assert events[0].rows[0].status == "played" and events[0].start_time is None


def test_r_pts_6_ties_share_a_number_and_the_next_skips():
    events = parse_results(HEADER + "".join(
        f"2026-11-03,19:00,Rose,nightly,{p},{n},\n" for p, n in [(1, "A"), (2, "B"), (2, "C"), (4, "D")]))
    assert [r.position for r in events[0].rows] == [1, 2, 2, 4]


@pytest.mark.parametrize("row, message", [
    ("2026-11-03,19:00,Rose,weekly,1,Ann,", "line 2: unknown event type 'weekly'"),
    ("2026-13-03,19:00,Rose,nightly,1,Ann,", "line 2: bad date '2026-13-03'"),
    ("03/11/2026,19:00,Rose,nightly,1,Ann,", "line 2: bad date '03/11/2026'"),
    ("2026-11-03,7pm,Rose,nightly,1,Ann,", "line 2: bad start_time '7pm'"),
    ("2026-11-03,19:00,,nightly,1,Ann,", "line 2: the venue is empty"),
    ("2026-11-03,19:00,Rose,nightly,1,  ,", "line 2: the player's name is empty"),
    ("2026-11-03,19:00,Rose,nightly,first,Ann,", "line 2: bad position 'first'"),
    ("2026-11-03,19:00,Rose,nightly,0,Ann,", "line 2: bad position '0'"),
    ("2026-11-03,19:00,Rose,nightly,,Ann,", "line 2: bad position ''"),
    ("2026-11-03,19:00,Rose,nightly,1,Ann,busted", "line 2: unknown status 'busted'"),
    ("2026-11-03,19:00,Rose,nightly,1,Ann,no_show", "line 2: a no_show has no position"),
    ("2026-11-03,19:00,Rose,nightly,1,Ann", "line 2: expected 7 fields"),
])
def test_a_bad_row_names_its_line_and_what_is_wrong(row, message):
    assert message in rejected(HEADER + row + "\n")


def test_positions_that_skip_are_rejected_with_the_event_and_lines():
    text = rejected(HEADER + "2026-11-03,19:00,Rose,nightly,1,Ann,\n2026-11-03,19:00,Rose,nightly,3,Bob,\n")
    assert "line 2: positions in 2026-11-03 19:00 at Rose (lines 2, 3) do not form a valid finishing order" in text


def test_a_tie_must_skip_the_next_position():
    assert "valid finishing order" in rejected(HEADER + "".join(
        f"2026-11-03,19:00,Rose,nightly,{p},{n},\n" for p, n in [(1, "A"), (2, "B"), (2, "C"), (3, "D")]))


def test_a_player_twice_in_one_event_is_rejected():
    text = rejected(HEADER + "2026-11-03,19:00,Rose,nightly,1,Ann Lee,\n2026-11-03,19:00,Rose,nightly,2,ann  lee,\n")
    assert "line 3: ann lee is already in 2026-11-03 19:00 at Rose on line 2" in text


def test_one_event_has_one_event_type():
    text = rejected(HEADER + "2026-11-03,19:00,Rose,nightly,1,Ann,\n2026-11-03,19:00,Rose,highroller,2,Bob,\n")
    assert "line 3: event type highroller differs from nightly" in text


def test_header_problems_are_reported_on_line_1():
    assert "line 1: missing column(s) player" in rejected("date,venue,event_type,position\n")
    assert "unknown column(s) positon" in rejected("date,venue,event_type,positon,position,player\n")
    assert "line 1: the file is empty" in rejected("")
    assert "no results" in rejected(HEADER)


def test_every_bad_line_is_reported_in_line_order():
    text = rejected(HEADER + "2026-11-03,19:00,Rose,nightly,1,Ann,\nbad,19:00,Rose,nightly,2,Bob,\n"
                    "2026-11-03,19:00,Rose,poker,2,Cat,\n")
    assert text.index("line 3") < text.index("line 4")


def test_r_late_4_one_player_in_two_games_at_once_at_two_venues_is_refused_with_both_lines():
    text = HEADER + "".join(f"2026-11-03,19:00,{venue},nightly,{p},{name},\n"
                            for venue in ("Rose", "Anchor") for p, name in enumerate(["Ann", "Bob", "Cat"], 1))
    said = rejected(text)
    assert "line 5: Ann is also in 2026-11-03 19:00 at Rose on line 2: one player cannot be in two games at once" \
        in said and "line 6: Bob" in said and "line 7: Cat" in said


def test_r_late_4_two_games_at_other_times_or_a_no_show_in_one_are_fine():
    later = HEADER + "2026-11-03,19:00,Rose,nightly,1,Ann,\n2026-11-03,22:00,Anchor,nightly,1,Ann,\n"
    assert len(parse_results(later)) == 2
    no_show = HEADER + "2026-11-03,19:00,Rose,nightly,,Ann,no_show\n2026-11-03,19:00,Rose,nightly,1,Bob,\n" \
                       "2026-11-03,19:00,Anchor,nightly,1,Ann,\n"
    assert len(parse_results(no_show)) == 2
