"""Event types (R-PTS-4, R-PTS-8, R-QUAL-1), and which night a venue's permanent link opens (R-MEM-1)."""
import datetime as dt

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from league.events import EVENT_TYPES, EventType, event_type, open_at_the_door
from league.statuses import EventStatus

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


TODAY = dt.date(2026, 12, 4)


@pytest.mark.parametrize(("status", "days_ago", "opens"), [
    ("scheduled", 0, True), ("scheduled", 1, False), ("scheduled", -1, False),
    ("running", 0, True), ("running", 1, True), ("running", 2, False), ("running", -1, False),
    ("settled", 0, False), ("cancelled", 0, False)])
def test_r_mem_1_the_venue_link_opens_tonights_night_and_one_past_midnight(status, days_ago, opens):
    assert open_at_the_door(status, TODAY - dt.timedelta(days=days_ago), TODAY) is opens


@given(status=st.sampled_from(list(EventStatus)), date=st.dates(), today=st.dates())
@example(status=EventStatus.RUNNING, date=dt.date.min, today=dt.date.min)  # no day before the first
def test_r_mem_1_only_an_open_night_of_today_or_since_yesterday_holds_the_door(status, date, today):
    opens = open_at_the_door(status, date, today)
    assert isinstance(opens, bool)
    if opens:
        assert status in (EventStatus.SCHEDULED, EventStatus.RUNNING)
        assert 0 <= (today - date).days <= (1 if status == EventStatus.RUNNING else 0)
    else:
        assert status not in (EventStatus.SCHEDULED, EventStatus.RUNNING) or date != today
