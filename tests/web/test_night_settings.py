"""A night follows the settings it was created with (its snapshot): registration close (R-LATE-1),
bonus windows (R-CHIP-2), points switched off (R-PTS-8), the called clock (R-CLOCK-4)."""
from live.payload import clock_payload
from services import league_settings
from services.models import BonusClaim, Entry, Event, Member
from services.night_snapshot import read_night
from tests.fixtures.host import fill, host_op, tap
from tests.fixtures.rows import entries
from wiring.extensions import db


def snapshot(night, **changes):
    night.settings = {**night.settings, **changes}
    db.session.commit()


def test_r_late_1_registration_closes_after_the_nights_minutes_of_play(client, night):
    snapshot(night, registration_close_minutes=10)
    fill(client, night, 2)
    tap(client, night, "start")
    tap(client, night, "jump", index="2")  # level 2 (the picker counts from 1): 15 minutes of play done
    assert clock_payload(night)["registration_open"] is False
    refused = host_op(client, night, "join", name="Late Larry", adult="yes")
    assert refused.status_code == 422 and "registration ended after 10 minutes of play" in refused.get_data(
        as_text=True)
    assert "Late Larry" not in entries(night)
    snapshot(night, registration_close_minutes=None)  # the THPA default: the major break
    assert clock_payload(night)["registration_open"] is True
    assert host_op(client, night, "join", name="Late Larry", adult="yes").status_code == 200


def test_r_chip_2_a_night_that_takes_food_and_drink_any_time(client, night):
    snapshot(night, bonus_windows="any_time")
    roster = fill(client, night, 2)
    tap(client, night, "start")
    accepted = host_op(client, night, "bonus", bonus_entry=str(roster["Player 01"].id), kind="drink")
    assert accepted.status_code == 200
    claim = db.session.scalar(db.select(BonusClaim))
    assert (claim.kind, claim.chips, claim.override) == ("drink", 500, False)


def test_r_pts_8_a_night_created_with_points_off_awards_none(client, night, league):
    league_settings.change(league, {"nightly.awards_points": False}, None)
    later = Event(league_id=league.id, venue_id=night.venue_id, event_type="nightly", date=night.date,
                  host_id=night.host_id, status="running")
    db.session.add(later)
    db.session.commit()
    assert later.settings["awards_points"] is False and night.settings["awards_points"] is True
    roster = fill(client, later, 3)
    for name in ("Player 00", "Player 01"):
        host_op(client, later, f"bust:{roster[name].id}")
    assert host_op(client, later, "settle").status_code == 200
    assert [e.points for e in entries(later).values()] == [0, 0, 0]


def test_r_clock_4_the_called_clock_is_the_nights(night, league):
    league_settings.change(league, {"league.shot_clock_seconds": 25}, None)
    night.shot_started_ms, night.shot_seat = 1, "Table 1 seat 3"  # a clock called on a player
    db.session.commit()
    assert league.shot_clock_seconds == 25
    assert clock_payload(night)["shot"]["length_s"] == 70  # created before the change
    snapshot(night, shot_clock_seconds=25)
    assert clock_payload(night)["shot"]["length_s"] == 25


def test_a_night_reads_its_own_snapshot_and_without_one_the_leagues_settings_now(night, league):
    """R-LATE-1, R-CHIP-2, R-PTS-8, R-ENTRY-1, R-PEN-2: a change of the league's settings after a night
    was created leaves the night's registration close, bonus windows, points, re-entries and hands per
    hour as they were; a night from before snapshots (none) reads the league's settings as they are."""
    league_settings.change(league, {"nightly.registration_close_minutes": 10, "nightly.bonus_windows": "any_time",
                                    "nightly.awards_points": False, "nightly.reentry": "rebuy",
                                    "league.hands_per_hour": 60}, None)
    db.session.commit()
    names = ("registration_close_minutes", "bonus_windows", "awards_points", "reentry", "hands_per_hour")
    assert [night.setting(name) for name in names] == [None, "start_and_major_break", True, "off", 30]
    assert night.reentry.mode == "off"
    night.settings = None
    assert [night.setting(name) for name in names] == [10, "any_time", False, "rebuy", 60]
    assert night.reentry.mode == "rebuy"
    assert night.setting("no_such_setting", 7) == 7


def test_r_pay_1_a_night_pays_by_its_own_payout_table_and_without_one_by_the_leagues(night, league):
    """The league's paid places and payout table changed after the night was created: the night pays
    by its snapshot; a night from before snapshots pays by the league's settings now."""
    night.buy_in, night.pool_share = 30, 20
    for n in range(5):
        member = Member.named(league.id, f"Payee {n}")
        db.session.add(member)
        db.session.flush()
        db.session.add(Entry(event_id=night.id, member_id=member.id, status="playing"))
    league_settings.change(league, {"league.payout_percent": 40, "league.payout_table": {2: (70, 30)}}, None)
    db.session.commit()
    assert read_night(night).prizes == [100]  # 10 % of 5 players: one place, all of $100
    night.settings = None
    assert read_night(night).prizes == [70, 30]
