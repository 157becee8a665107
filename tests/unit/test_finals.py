"""Finals (R-FIN): the table of RULES.md, row by row."""

import datetime as dt

import pytest

from league.chips import BONUS_KINDS, DEFAULT_BONUS_VALUES, decide_bonus
from league.events import EVENT_TYPES
from league.finals import (
    FINALS,
    FinalSpec,
    Standing,
    admission,
    final_spec,
    qualifying_month,
    registered_early,
    starting_stack,
)
from league.points import Finish, award_points

ALL_BUT_MEMBERSHIP = frozenset(BONUS_KINDS) - {"membership"}


def test_r_fin_monthly_final_cash():
    spec = final_spec("monthly_final", "cash")
    assert (spec.buy_in, spec.starting_stack, spec.bonus_kinds) == (30, 10_000, ALL_BUT_MEMBERSHIP)
    assert (spec.paid_percent, spec.guarantee, spec.fixed_prizes) == (10, 500, ())


def test_r_fin_monthly_final_free_to_play():
    spec = final_spec("monthly_final", "free")
    assert (spec.buy_in, spec.starting_stack, spec.bonus_kinds) == (0, 6_000, ALL_BUT_MEMBERSHIP)
    assert spec.paid_percent is None
    assert spec.fixed_prizes == (300, 100)


@pytest.mark.parametrize("kind", ["cash", "free"])
def test_r_fin_high_roller_final_is_the_same_in_both_leagues(kind):
    spec = final_spec("highroller_final", kind)
    assert spec.league_kind == kind
    assert (spec.buy_in, spec.starting_stack, spec.bonus_kinds) == (105, 20_000, frozenset())
    assert spec.early_registration_bonus == 2_000
    assert (spec.paid_percent, spec.guarantee, spec.fixed_prizes) == (10, 500, ())


@pytest.mark.parametrize("kind", ["cash", "free"])
def test_r_fin_top10_shootout(kind):
    spec = final_spec("top10_shootout", kind)
    assert (spec.buy_in, spec.starting_stack, spec.bonus_kinds) == (55, 40_000, frozenset())
    assert spec.fixed_prizes == (1_000, 500)
    assert spec.paid_percent is None


def test_r_fin_every_spec_is_keyed_by_its_own_type_and_kind():
    assert len(FINALS) == 6
    for (event_type, kind), spec in FINALS.items():
        assert isinstance(spec, FinalSpec)
        assert (spec.event_type, spec.league_kind) == (event_type, kind)
        assert spec.bonus_kinds <= frozenset(BONUS_KINDS)
        assert "membership" not in spec.bonus_kinds


def test_r_fin_unknown_final_is_refused():
    with pytest.raises(ValueError, match="no final 'nightly'"):
        final_spec("nightly", "cash")
    with pytest.raises(ValueError):
        final_spec("monthly_final", "charity")


def test_r_fin_high_roller_final_stack_20000_for_fewer_than_two_events():
    assert starting_stack("highroller_final", "cash") == 20_000
    assert starting_stack("highroller_final", "cash", events_played_in_month=1) == 20_000


def test_r_fin_high_roller_final_stack_25000_for_two_or_more_events():
    assert starting_stack("highroller_final", "cash", events_played_in_month=2) == 25_000
    assert starting_stack("highroller_final", "free", events_played_in_month=9) == 25_000


def test_r_fin_high_roller_final_early_registration_adds_2000():
    assert starting_stack("highroller_final", "cash", 0, registered_24h_before=True) == 22_000
    assert starting_stack("highroller_final", "cash", 3, registered_24h_before=True) == 27_000


def test_r_fin_other_finals_use_their_spec_stack():
    assert starting_stack("monthly_final", "cash", 5, registered_24h_before=True) == 10_000
    assert starting_stack("monthly_final", "free", 5) == 6_000
    assert starting_stack("top10_shootout", "cash", 4, registered_24h_before=True) == 40_000


def test_r_fin_negative_event_count_is_refused():
    with pytest.raises(ValueError):
        starting_stack("highroller_final", "cash", -1)


# --- Who may enter a final (R-QUAL-3..5) ----------------------------------------------------

REGULAR = Standing(events_played=2)


def test_r_qual_a_final_is_for_the_month_before_its_date_unless_the_event_says():
    assert qualifying_month(dt.date(2026, 12, 5)) == "2026-11"
    assert qualifying_month(dt.date(2027, 1, 31)) == "2026-12"
    assert qualifying_month(dt.date(2026, 12, 5), "2026-10") == "2026-10"


def test_r_qual_3_monthly_final_needs_an_unused_ticket_of_its_month():
    assert admission("monthly_final", "2026-11", Standing(1, ticket="unused")).admitted
    no_ticket = admission("monthly_final", "2026-11", REGULAR)
    assert not no_ticket.admitted and no_ticket.rule_id == "R-QUAL-3"
    assert no_ticket.reason == ("No Monthly Final ticket for November 2026: tickets come from a top-5 "
                                "finish in a nightly game")
    used = admission("monthly_final", "2026-11", Standing(1, ticket="used"))
    assert not used.admitted and "already been presented" in used.reason


def test_r_qual_4_shootout_needs_a_place_in_the_months_top_10():
    assert admission("top10_shootout", "2026-11", Standing(3, shootout=True)).admitted
    refused = admission("top10_shootout", "2026-11", REGULAR)
    assert not refused.admitted and refused.rule_id == "R-QUAL-4" and "November 2026" in refused.reason


def test_r_qual_5_high_roller_final_needs_one_event_that_month():
    assert admission("highroller_final", "2026-11", Standing(1)).admitted
    refused = admission("highroller_final", "2026-11", Standing(0))
    assert not refused.admitted and refused.rule_id == "R-QUAL-5" and "at least one event" in refused.reason


@pytest.mark.parametrize("final", ["monthly_final", "highroller_final", "top10_shootout"])
def test_r_qual_5_a_brand_new_member_enters_no_final(final):
    refused = admission(final, "2026-11", Standing(0, ticket="unused", shootout=True, new_member=True))
    assert not refused.admitted and "New members" in refused.reason


def test_r_qual_admission_is_only_asked_of_finals():
    with pytest.raises(ValueError):
        admission("nightly", "2026-11", REGULAR)


@pytest.mark.parametrize(("final", "kind", "stack"), [
    ("monthly_final", "free", 6_000), ("monthly_final", "cash", 10_000),
    ("top10_shootout", "free", 40_000), ("top10_shootout", "cash", 40_000)])
def test_r_fin_table_stacks(final, kind, stack):
    assert starting_stack(final, kind, events_played_in_month=5) == stack


@pytest.mark.parametrize(("events", "early", "stack"), [
    (1, False, 20_000), (2, False, 25_000), (1, True, 22_000), (3, True, 27_000)])
def test_r_fin_high_roller_final_stacks(events, early, stack):
    assert starting_stack("highroller_final", "free", events, early) == stack


def test_r_fin_early_registration_is_24_hours_before_the_start():
    start = dt.datetime(2026, 12, 5, 19, 0)
    assert registered_early(start - dt.timedelta(hours=24), start)
    assert not registered_early(start - dt.timedelta(hours=23, minutes=59), start)


def test_r_fin_bonus_kinds_of_the_finals():
    assert set(DEFAULT_BONUS_VALUES["monthly_final"]) == set(BONUS_KINDS) - {"membership"}
    assert DEFAULT_BONUS_VALUES["highroller_final"] == {} and DEFAULT_BONUS_VALUES["top10_shootout"] == {}
    assert decide_bonus("food", "monthly_final", None, None, ()).accepted
    assert not decide_bonus("membership", "monthly_final", None, None, ()).accepted
    for final in ("highroller_final", "top10_shootout"):
        assert not any(decide_bonus(kind, final, None, None, ()).accepted for kind in BONUS_KINDS)


@pytest.mark.parametrize("final", ["monthly_final", "highroller_final", "top10_shootout"])
def test_r_pts_8_finals_award_no_points(final):
    kind = EVENT_TYPES[final]
    assert kind.is_final and not kind.awards_points and not kind.awards_tickets
    finishes = [Finish(player, position, "played") for position, player in enumerate("abcdefghij", 1)]
    assert set(award_points(finishes, high_roller=kind.high_roller, awards_points=kind.awards_points).values()) == {0}
