"""Finals (R-FIN): the table of RULES.md, row by row."""

import pytest

from league.chips import BONUS_KINDS
from league.finals import FINALS, FinalSpec, final_spec, starting_stack

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
