"""The league settings schema: THPA's defaults from RULES.md, bounds, reasons, storage round trips
(R-PTS-8, R-CHIP-1, R-CHIP-2, R-LATE-1, R-ENTRY-1, R-PAY-1, R-PAY-3, R-QUAL-2, R-CLOCK-4, R-PEN-2)."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from league import settings as s
from league.events import EVENT_TYPES

FREE, CASH = s.thpa_defaults("free"), s.thpa_defaults("cash")


def test_every_setting_has_a_default_group_and_rule_id():
    for kind in ("free", "cash"):
        defaults = s.thpa_defaults(kind)
        assert set(defaults) == set(s.BY_KEY)
        assert s.problems(defaults, kind) == {}
    assert {x.group for x in s.SETTINGS} == set(s.GROUPS)
    assert all(x.rule.startswith("R-") for x in s.SETTINGS)


def test_r_pts_8_nightly_and_high_roller_award_points_finals_do_not():
    assert [FREE[f"{t}.awards_points"] for t in EVENT_TYPES] == [True, True, False, False, False]


def test_r_chip_1_stacks_and_bonus_values():
    assert CASH["nightly.starting_stack"] == 10_000 and CASH["highroller.starting_stack"] == 20_000
    # R-FIN: a cash Monthly Final starts at 10,000, a free-to-play one at 6,000; the Shoot-out at 40,000
    assert CASH["monthly_final.starting_stack"] == 10_000 and FREE["monthly_final.starting_stack"] == 6_000
    assert CASH["top10_shootout.starting_stack"] == 40_000 and CASH["highroller_final.starting_stack"] == 20_000
    assert CASH["nightly.bonus_food"] == 1_000 and CASH["nightly.bonus_drink"] == 500
    # R-FIN: finals take every bonus card except membership cards; the Shoot-out none
    assert CASH["monthly_final.bonus_membership"] == 0 and CASH["monthly_final.bonus_food"] == 1_000
    assert all(CASH[f"top10_shootout.bonus_{k}"] == 0 for k in ("membership", "food", "drink", "promotional"))


def test_r_chip_2_r_late_1_r_entry_1_defaults():
    assert FREE["nightly.bonus_windows"] == s.BonusWindows.START_AND_MAJOR_BREAK
    assert FREE["nightly.registration_close_minutes"] is None  # at the major break (R-LATE-1)
    assert (FREE["nightly.reentry"], FREE["nightly.reentry_limit"], FREE["nightly.reentry_until_minutes"]) == (
        "off", 1, None)


def test_r_pay_1_r_clock_4_r_pen_2_r_qual_2_league_defaults():
    assert FREE["league.payout_percent"] == 10 and FREE["league.shot_clock_seconds"] == 70
    assert FREE["league.hands_per_hour"] == 30 and FREE["league.timezone"] == "Australia/Sydney"
    assert FREE["league.pass_down"] is True and CASH["league.pass_down"] is False  # off for cash leagues
    assert FREE["league.payout_table"][3] == (50, 30, 20)


def test_r_pay_3_money_defaults_and_shares():
    assert (CASH["nightly.buy_in"], CASH["nightly.pool_share"]) == (30, 20)
    assert (CASH["monthly_final.buy_in"], CASH["monthly_final.guarantee"]) == (30, 500)  # $500 plus entries
    assert (CASH["top10_shootout.buy_in"], CASH["top10_shootout.guarantee"]) == (55, 1_500)  # $1,000 + $500
    assert FREE["nightly.buy_in"] == 0 and FREE["nightly.final_share"] == 0 == FREE["nightly.top50_share"]
    # the shares the organiser's ledger counts (league.pools): $20 + $5 + $3 of a $30 buy-in, $2 fee
    assert (CASH["nightly.final_share"], CASH["nightly.top50_share"]) == (5, 3)
    assert s.problems(CASH, "cash") == {}
    over = {**CASH, "nightly.final_share": 6, "nightly.top50_share": 5}  # 20 + 6 + 5 > 30
    assert "add to more than the buy-in ($30)" in s.problems(over, "cash")["nightly.pool_share"]
    assert s.problems({**CASH, "nightly.final_share": 5, "nightly.top50_share": 5}, "cash") == {}
    assert "free-to-play league's games are free" in s.problems({**FREE, "nightly.buy_in": 10}, "free")[
        "nightly.buy_in"]


@pytest.mark.parametrize(("key", "text", "reason"), [
    ("nightly.starting_stack", "lots", "a whole number from 100 to 1,000,000"),
    ("nightly.starting_stack", "50", "a whole number from 100 to 1,000,000"),
    ("nightly.starting_stack", "-1", "whole number"),
    ("nightly.starting_stack", "1e4", "whole number"),
    ("nightly.starting_stack", "１０００", "whole number"),  # full-width digits
    ("nightly.reentry_limit", "0", "from 1 to 20"),
    ("nightly.reentry", "sometimes", "one of off, reentry, rebuy"),
    ("league.hands_per_hour", "500", "from 5 to 120"),
    ("league.shot_clock_seconds", "5", "from 10 to 300"),
    ("league.payout_percent", "0", "from 1 to 50"),
    ("league.timezone", "Mars/Olympus", "is not a time zone"),
    ("league.payout_table", "3: 50/30", "give 3 percentages, not 2"),
    ("league.payout_table", "2: 50/40", "add to 90, not 100"),
    ("league.payout_table", "2: 40/60", "lower place cannot be paid more"),
    ("league.payout_table", "two: 60/40", "line 1"),
    ("league.payout_table", "1: 100\n1: 100", "listed twice"),
])
def test_a_bad_value_is_refused_with_its_reason(key, text, reason):
    value, problem = s.parse(s.BY_KEY[key], text)
    assert value is None and reason in problem


def test_good_values_parse():
    assert s.parse(s.BY_KEY["nightly.starting_stack"], " 12,000 ") == (12_000, None)
    assert s.parse(s.BY_KEY["nightly.registration_close_minutes"], "") == (None, None)
    assert s.parse(s.BY_KEY["league.pass_down"], "yes") == (True, None)
    assert s.parse(s.BY_KEY["league.pass_down"], "") == (False, None)
    assert s.parse(s.BY_KEY["league.timezone"], "Europe/London") == ("Europe/London", None)
    assert s.parse(s.BY_KEY["league.payout_table"], "1: 100\n2: 60/40") == ({1: (100,), 2: (60, 40)}, None)
    assert s.parse(s.BY_KEY["league.payout_table"], "") == (s.HOUSE_PAYOUT_TABLE, None)


def test_r_entry_1_re_entries_cannot_outlast_registration():
    values = {**FREE, "nightly.reentry": "reentry", "nightly.registration_close_minutes": 60,
              "nightly.reentry_until_minutes": 90}
    assert "past the close of registration (60 minutes)" in s.problems(values, "free")["nightly.reentry_until_minutes"]
    assert s.problems({**values, "nightly.reentry": "off"}, "free") == {}


def test_stored_settings_are_read_the_way_the_app_stored_them():
    stored = {"nightly": {"starting_stack": 12_000, "bonuses": {"food": 2_000}, "buy_in": 40, "pool_share": 30}}
    values = s.from_stored("cash", stored, {"pass_down": True, "payout_percent": 15, "timezone": "UTC"})
    assert (values["nightly.starting_stack"], values["nightly.bonus_food"], values["nightly.bonus_drink"]) == (
        12_000, 2_000, 0)  # a kind missing from the stored bonuses is not taken (R-CHIP-1)
    assert (values["nightly.buy_in"], values["league.payout_percent"], values["league.pass_down"]) == (40, 15, True)
    broken = s.from_stored("free", {"nightly": {"starting_stack": "lots"}, "league": "x"}, {"timezone": "Nowhere"})
    assert broken["nightly.starting_stack"] == 10_000 and broken["league.timezone"] == "Australia/Sydney"


@given(st.sampled_from(["free", "cash"]), st.integers(100, 1_000_000), st.integers(5, 120),
       st.sampled_from(list(s.ReEntry)), st.integers(1, 20))
def test_storage_round_trips(kind, stack, hands, reentry, limit):
    values = {**s.thpa_defaults(kind), "highroller.starting_stack": stack, "league.hands_per_hour": hands,
              "monthly_final.reentry": reentry.value, "monthly_final.reentry_limit": limit}
    stored, columns = s.to_stored(values, {"keep": {"other": 1}})
    assert s.from_stored(kind, stored, columns) == values and stored["keep"] == {"other": 1}
    snap = s.event_snapshot(values, "highroller")
    assert snap["starting_stack"] == stack and snap["hands_per_hour"] == hands


def test_changed_lists_old_and_new():
    assert s.changed(FREE, {**FREE, "league.hands_per_hour": 40}) == [("league.hands_per_hour", 30, 40)]





def test_r_pts_8_finals_cannot_be_made_to_award_points():
    problem = s.problems({**FREE, "monthly_final.awards_points": True}, "free")["monthly_final.awards_points"]
    assert "finals award no points (R-PTS-8)" in problem
    assert s.problems({**FREE, "nightly.awards_points": False}, "free") == {}  # a nightly game may have none
