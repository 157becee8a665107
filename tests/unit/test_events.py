"""Event types (R-PTS-4, R-PTS-8, R-QUAL-1)."""

import pytest

from league.events import EVENT_TYPES, EventType, event_type

FINALS = ("monthly_final", "highroller_final", "top10_shootout")


def test_r_pts_8_the_five_event_types_with_their_labels():
    assert {name: t.label for name, t in EVENT_TYPES.items()} == {
        "nightly": "Nightly",
        "highroller": "High-roller",
        "monthly_final": "Monthly Final",
        "highroller_final": "High-roller Final",
        "top10_shootout": "Top-10 Shoot-out",
    }
    for name, t in EVENT_TYPES.items():
        assert isinstance(t, EventType)
        assert t.name == name


def test_r_pts_8_nightly_and_high_roller_games_award_points():
    assert EVENT_TYPES["nightly"].awards_points
    assert EVENT_TYPES["highroller"].awards_points


@pytest.mark.parametrize("name", FINALS)
def test_r_pts_8_finals_award_no_points_and_no_tickets(name):
    t = EVENT_TYPES[name]
    assert t.is_final
    assert not t.awards_points
    assert not t.awards_tickets


def test_r_qual_1_only_nightly_games_award_monthly_final_tickets():
    assert [name for name, t in EVENT_TYPES.items() if t.awards_tickets] == ["nightly"]


def test_r_pts_4_high_roller_game_gets_the_high_roller_bonus_flag():
    assert EVENT_TYPES["highroller"].high_roller
    assert not EVENT_TYPES["nightly"].high_roller
    assert not EVENT_TYPES["nightly"].is_final
    assert not EVENT_TYPES["highroller"].is_final


def test_r_pts_8_event_types_are_frozen():
    with pytest.raises(AttributeError):
        EVENT_TYPES["nightly"].awards_points = False  # type: ignore[misc]


def test_r_pts_8_event_type_lookup_and_unknown_name():
    assert event_type("nightly") is EVENT_TYPES["nightly"]
    with pytest.raises(ValueError, match="unknown event type 'bingo'"):
        event_type("bingo")
