"""Re-entries and rebuys as rules (R-ENTRY-1), with RULES.md's own wording."""
import pytest

from league.reentry import DEFAULTS, ReentryRule, period_open, reentry_rule, refusal
from league.statuses import ReentryMode

REENTRY = ReentryRule(ReentryMode.REENTRY)
REBUY = ReentryRule(ReentryMode.REBUY)


def test_r_entry_1_off_in_thpa_games_a_setting_per_event_type():
    """R-ENTRY: "off in THPA games; a setting per event type"."""
    assert DEFAULTS == {"reentry": "off", "reentry_limit": 1, "reentry_until_minutes": None}
    assert reentry_rule(None, "nightly") == ReentryRule(ReentryMode.OFF, 1, None)
    assert reentry_rule({"highroller": {"reentry": "rebuy"}}, "nightly").mode == ReentryMode.OFF
    settings = {"nightly": {"reentry": "reentry", "reentry_limit": 2, "reentry_until_minutes": 90}}
    assert reentry_rule(settings, "nightly") == ReentryRule(ReentryMode.REENTRY, 2, 90)


@pytest.mark.parametrize("own", [{"reentry": "sometimes"}, {"reentry_limit": 0}, {"reentry_limit": "2"},
                                 {"reentry_limit": True}, {"reentry_until_minutes": -1},
                                 {"reentry_until_minutes": "60"}, "not a dict"])
def test_r_entry_1_a_setting_that_is_not_one_of_its_values_is_its_default(own):
    assert reentry_rule({"nightly": own}, "nightly") == ReentryRule(ReentryMode.OFF, 1, None)
    mixed = {"reentry": "rebuy", **own} if isinstance(own, dict) and "reentry" not in own else {"reentry": "rebuy"}
    assert reentry_rule({"nightly": mixed}, "nightly") == ReentryRule(ReentryMode.REBUY, 1, None)


def test_r_entry_1_the_period_ends_by_default_when_registration_closes():
    """R-ENTRY-1: "until the re-entry period ends (by default when registration closes, R-LATE-1)"."""
    assert period_open(REENTRY, play_elapsed_ms=10 ** 9, registration_open=True)
    assert not period_open(REENTRY, play_elapsed_ms=0, registration_open=False)
    ninety = ReentryRule(ReentryMode.REENTRY, 1, 90)
    assert period_open(ninety, play_elapsed_ms=89 * 60_000, registration_open=False)
    assert not period_open(ninety, play_elapsed_ms=90 * 60_000, registration_open=True)


def test_r_entry_1_a_busted_player_may_buy_a_new_full_stack_up_to_the_limit():
    """R-ENTRY-1: "a busted player may buy a new full stack until the re-entry period ends ... a limit
    per player is a setting"."""
    assert refusal(REENTRY, ReentryMode.REENTRY, name="Eve", status="played", busted=True, buy_ins=1,
                   period=True) is None
    assert "already bought back in once, the limit" in refusal(
        REENTRY, ReentryMode.REENTRY, name="Eve", status="played", busted=True, buy_ins=2, period=True)
    two = ReentryRule(ReentryMode.REENTRY, 2)
    assert refusal(two, ReentryMode.REENTRY, name="Eve", status="played", busted=True, buy_ins=2, period=True) is None
    assert "2 times" in refusal(two, ReentryMode.REENTRY, name="Eve", status="played", busted=True, buy_ins=3,
                                period=True)
    assert refusal(REENTRY, ReentryMode.REENTRY, name="Eve", status="played", busted=True, buy_ins=1,
                   period=False) == "The re-entry period is over."


@pytest.mark.parametrize(("status", "busted", "words"), [
    ("playing", False, "Eve is still in the game"),
    ("dq", False, "Eve was disqualified"),
    ("played", False, "Eve has not busted"),  # placed by a deal, or the winner
    ("pending", False, "Eve has not busted"),
])
def test_r_entry_1_only_a_busted_player_re_enters(status, busted, words):
    assert words in refusal(REENTRY, ReentryMode.REENTRY, name="Eve", status=status, busted=busted, buy_ins=1,
                            period=True)


def test_r_entry_1_a_rebuy_is_for_a_player_whose_chips_are_all_lost_at_once():
    """R-ENTRY-1: "a player whose chips are all lost rebuys at once, keeping their seat"."""
    assert refusal(REBUY, ReentryMode.REBUY, name="Bob", status="playing", busted=False, buy_ins=1,
                   period=True) is None
    assert "already recorded out" in refusal(REBUY, ReentryMode.REBUY, name="Bob", status="played", busted=True,
                                             buy_ins=1, period=True)
    assert "not in the game" in refusal(REBUY, ReentryMode.REBUY, name="Bob", status="dq", busted=False,
                                        buy_ins=1, period=True)
    assert refusal(REBUY, ReentryMode.REBUY, name="Bob", status="playing", busted=False, buy_ins=1,
                   period=False) == "The rebuy period is over."


def test_r_entry_1_what_the_setting_allows():
    off = ReentryRule()
    assert refusal(off, ReentryMode.REENTRY, name="Eve", status="played", busted=True, buy_ins=1,
                   period=True) == "Re-entries and rebuys are off for this game."
    assert refusal(REBUY, ReentryMode.REENTRY, name="Eve", status="played", busted=True, buy_ins=1,
                   period=True) == "This game allows rebuys, not re-entries."
    assert refusal(REENTRY, ReentryMode.REBUY, name="Eve", status="playing", busted=False, buy_ins=1,
                   period=True) == "This game allows re-entries, not rebuys."
