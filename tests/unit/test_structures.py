"""Blind structures (R-CLOCK-1) and the default major break (R-LATE-1)."""

import json

import pytest

from league.structures import (
    TEMPLATES,
    Break,
    Level,
    StructureError,
    from_json,
    major_break_index,
    play_starts_ms,
    to_json,
    validate,
)

SIMPLE = (
    Level(15, 25, 50),
    Level(15, 50, 100),
    Break(10, "Dinner", "Colour up the 25s", major=True),
    Level(15, 100, 200, 200),
)


def test_r_clock_1_valid_structure_has_no_errors():
    assert validate(SIMPLE) == []


def test_r_clock_1_needs_a_level():
    assert validate(()) == ["The structure needs at least one level"]
    assert "The structure needs at least one level" in validate((Break(10),))


def test_r_clock_1_minutes_range():
    errors = validate((Level(0, 25, 50), Break(181), Level(180, 25, 50)))
    assert errors == [
        "Level 1: length must be 1 to 180 minutes, not 0",
        "Break after level 1: length must be 1 to 180 minutes, not 181",
    ]


def test_r_clock_1_small_blind_at_least_one_and_not_above_big():
    assert validate((Level(15, 0, 50),)) == ["Level 1: small blind must be at least 1, not 0"]
    assert validate((Level(15, 300, 200),)) == [
        "Level 1: small blind 300 is higher than the big blind 200"
    ]


def test_r_clock_1_negative_ante():
    assert validate((Level(15, 25, 50, -1),)) == ["Level 1: ante must be 0 or more, not -1"]


def test_r_clock_1_blinds_never_go_down_across_breaks():
    structure = (
        Level(15, 50, 100),
        Level(15, 100, 200, 200),
        Level(15, 150, 300, 300),
        Break(10),
        Level(15, 100, 200, 100),
    )
    assert validate(structure) == [
        "Level 4: small blind 100 is lower than level 3's 150",
        "Level 4: big blind 200 is lower than level 3's 300",
        "Level 4: ante 100 is lower than level 3's 300",
    ]


def test_r_clock_1_equal_blinds_are_allowed():
    assert validate((Level(15, 100, 200), Level(15, 100, 200))) == []


def test_r_clock_1_one_major_break_at_most():
    structure = (Level(15, 25, 50), Break(10, major=True), Level(15, 50, 100),
                 Break(10, major=True), Level(15, 75, 150))
    assert validate(structure) == [
        "Only one break can be the major break; marked: Break after level 1, Break after level 2"
    ]


def test_r_clock_1_breaks_first_or_together_are_fine_but_not_last():
    assert validate((Break(5, "Seat draw"), Break(5), Level(15, 25, 50))) == []
    assert validate((Level(15, 25, 50), Break(10))) == [
        "The structure must end with a level, not a break (Break after level 1)"
    ]


def test_r_clock_1_json_round_trip():
    data = to_json(SIMPLE)
    assert data[2] == {"kind": "break", "minutes": 10, "label": "Dinner",
                       "colour_up": "Colour up the 25s", "major": True}
    assert data[3] == {"kind": "level", "minutes": 15, "small_blind": 100, "big_blind": 200,
                       "ante": 200}
    assert from_json(json.loads(json.dumps(data))) == SIMPLE


def test_r_clock_1_from_json_defaults():
    structure = from_json([{"kind": "level", "minutes": 15, "small_blind": 25, "big_blind": 50},
                           {"kind": "break", "minutes": 10},
                           {"kind": "level", "minutes": 15, "small_blind": 50, "big_blind": 100}])
    assert structure == (Level(15, 25, 50, 0), Break(10, "Break", "", False), Level(15, 50, 100))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"kind": "level"}, "A structure must be a list of items, not dict"),
        (["level"], "Item 1: must be an object with a \"kind\", not 'level'"),
        ([{"kind": "blind", "minutes": 15}], "Item 1: kind must be \"level\" or \"break\", not 'blind'"),
        ([{"minutes": 15}], "Item 1: kind must be \"level\" or \"break\", not None"),
        ([{"kind": "level", "minutes": 15, "small_blind": 25}], "Item 1: big_blind is missing"),
        ([{"kind": "level", "minutes": "15", "small_blind": 25, "big_blind": 50}],
         "Item 1: minutes must be a whole number, not '15'"),
        ([{"kind": "level", "minutes": 15.5, "small_blind": 25, "big_blind": 50}],
         "Item 1: minutes must be a whole number, not 15.5"),
        ([{"kind": "level", "minutes": True, "small_blind": 25, "big_blind": 50}],
         "Item 1: minutes must be a whole number, not True"),
        ([{"kind": "level", "minutes": 15, "small_blind": 25, "big_blind": 50, "bb": 1}],
         "Item 1: unknown field 'bb' for a level"),
        ([{"kind": "break", "minutes": 10, "major": "yes"}],
         "Item 1: major must be true or false, not 'yes'"),
        ([{"kind": "break", "minutes": 10, "label": 3}], "Item 1: label must be text, not 3"),
        ([{"kind": "level", "minutes": 15, "small_blind": 50, "big_blind": 25}],
         "Level 1: small blind 50 is higher than the big blind 25"),
        ([], "The structure needs at least one level"),
    ],
)
def test_r_clock_1_from_json_rejects_bad_input(data, message):
    with pytest.raises(ValueError) as caught:
        from_json(data)
    assert message in caught.value.errors
    assert message in str(caught.value)


def test_r_clock_1_from_json_lists_every_problem():
    with pytest.raises(StructureError) as caught:
        from_json([{"kind": "level", "minutes": 15}, {"kind": "pause"}])
    assert caught.value.errors == [
        "Item 1: big_blind is missing",
        "Item 1: small_blind is missing",
        "Item 2: kind must be \"level\" or \"break\", not 'pause'",
    ]


def test_r_late_1_play_starts_exclude_breaks():
    assert play_starts_ms(SIMPLE) == (0, 900_000, 1_800_000, 1_800_000)


def test_r_late_1_marked_major_break_wins():
    structure = (Level(15, 25, 50), Break(5, "Short", major=True), Level(60, 50, 100),
                 Break(10), Level(15, 75, 150))
    assert major_break_index(structure) == 1


def test_r_late_1_default_major_break_is_first_after_60_minutes_of_play():
    structure = (Level(30, 25, 50), Break(5), Level(30, 50, 100), Break(10), Level(30, 75, 150),
                 Break(10), Level(30, 100, 200))
    # The first break starts at 30 minutes of play; the second at exactly 60.
    assert major_break_index(structure) == 3


def test_r_late_1_no_major_break():
    assert major_break_index((Level(30, 25, 50), Break(5), Level(30, 50, 100))) is None
    assert major_break_index((Level(90, 25, 50),)) is None


@pytest.mark.parametrize("key", sorted(TEMPLATES))
def test_r_clock_1_every_template_is_valid(key):
    label, structure = TEMPLATES[key]
    assert label
    assert validate(structure) == []
    assert from_json(to_json(structure)) == structure
    assert major_break_index(structure) is not None


def test_r_clock_1_template_keys():
    assert set(TEMPLATES) == {"thpa_nightly", "turbo", "monthly_final", "highroller_final",
                              "top10_shootout"}


def test_r_late_1_thpa_nightly_shape():
    _, structure = TEMPLATES["thpa_nightly"]
    levels = [item for item in structure if isinstance(item, Level)]
    major = major_break_index(structure)
    assert {level.minutes for level in levels} == {15}
    assert structure[major].major and structure[major].colour_up
    assert play_starts_ms(structure)[major] == 60 * 60_000
    total_minutes = sum(item.minutes for item in structure)
    assert 180 <= total_minutes <= 240
    # Opening big blind about 1/200 of a 10,000 stack.
    assert levels[0].big_blind == 50


def test_r_clock_1_turbo_has_ten_minute_levels():
    _, structure = TEMPLATES["turbo"]
    assert {item.minutes for item in structure if isinstance(item, Level)} == {10}


# --- the structure editor's steps (R-CLOCK-1) ---
from league.structures import edit_items  # noqa: E402


def _items():
    return [{"kind": "level", "minutes": 15, "small_blind": 25, "big_blind": 50, "ante": 0},
            {"kind": "break", "minutes": 10, "label": "Major", "colour_up": "", "major": True},
            {"kind": "level", "minutes": 15, "small_blind": 50, "big_blind": 100, "ante": 100}]


def test_r_clock_1_editor_moves_items_up_and_down():
    moved = edit_items(_items(), "up", 1)
    assert [i["kind"] for i in moved] == ["break", "level", "level"]
    assert edit_items(_items(), "up", 0) == _items()  # the first stays first
    assert edit_items(_items(), "down", 2) == _items()
    assert [i["kind"] for i in edit_items(_items(), "down", 0)] == ["break", "level", "level"]


def test_r_clock_1_editor_duplicates_and_removes():
    doubled = edit_items(_items(), "duplicate", 2)
    assert doubled[3] == doubled[2] and len(doubled) == 4
    copied_break = edit_items(_items(), "duplicate", 1)
    assert copied_break[1]["major"] and not copied_break[2]["major"]  # one major break only
    assert [i["kind"] for i in edit_items(_items(), "remove", 1)] == ["level", "level"]


def test_r_clock_1_editor_adds_a_level_at_double_blinds_and_a_break():
    added = edit_items(_items(), "add_level", 2)
    assert added[3] == {"kind": "level", "minutes": 15, "small_blind": 100, "big_blind": 200, "ante": 200}
    after_break = edit_items(_items(), "add_level", 1)
    assert after_break[2]["big_blind"] == 100  # doubles the level before it, not the break
    assert edit_items(_items(), "add_break", 0)[1]["kind"] == "break"
    assert edit_items([], "add_level", 0)[0]["big_blind"] == 50


def test_r_clock_1_editor_refuses_what_does_not_exist():
    for op, index in (("remove", 3), ("up", -1), ("shuffle", 0)):
        with pytest.raises(ValueError):
            edit_items(_items(), op, index)
    with pytest.raises(ValueError):
        edit_items([], "remove", 0)
