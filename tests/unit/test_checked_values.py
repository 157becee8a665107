"""The rules' own checks of what is stored, as a league file's values meet them: characters that draw
nothing (R-MEM-1), a league's stored settings and a night's kept settings by each setting's check."""
import pytest

from league import settings
from league.members import name_key, name_problem
from league.text import text_problem, visible


@pytest.mark.parametrize("blank", ["\u2800", "\u3164", "\u115f", "\u1160", "\uffa0", "\u17b4", "\u17b5", "\u034f"])
def test_r_mem_1_letters_that_draw_nothing_are_no_name(blank):
    assert "invisible" in name_problem(blank)
    assert "invisible" in name_problem(f"Jack{blank}Burke")
    assert name_key(f"Jack Burke{blank}") == name_key("Jack Burke")  # and never a second Jack Burke
    assert visible(f"Ann{blank}") == "Ann"


@pytest.mark.parametrize(("text", "reason"), [
    ("Table 1\x00", "NUL"), ("a\x07b", "control"), ("a\u202eb", "invisible"), ("a\ud800b", "invisible"),
])
def test_text_that_cannot_be_stored_says_why(text, reason):
    assert reason in text_problem(text, 40, "the seat")


def test_plain_names_of_every_script_pass():
    for name in ("李小龍", "محمد علي", "अर्जुन शर्मा", "สมชาย ใจดี", "Zoë Nguyễn", "O'Brien-Smith"):
        assert name_problem(name) is None, name


def test_a_league_s_stored_settings_are_checked_as_the_settings_page_checks_them():
    assert settings.stored_problems("free", {}, {}) == []
    assert settings.stored_problems("cash", None, {"timezone": "Australia/Perth"}) == []
    good, _ = settings.to_stored(settings.thpa_defaults("cash"))
    assert settings.stored_problems("cash", good, {}) == []
    bad = {"nightly": {"starting_stack": -1, "bonus_windows": "whenever", "bonuses": {"food": "lots"}},
           "league": {"hands_per_hour": 0}}
    found = " | ".join(settings.stored_problems("cash", bad, {"shot_clock_seconds": 10**9, "timezone": "Mars/Base"}))
    for words in ("whole number from", "one of", "is not a time zone"):
        assert words in found
    assert len(settings.stored_problems("cash", bad, {"shot_clock_seconds": 10**9, "timezone": "Mars/Base"})) >= 6
    assert settings.stored_problems("cash", [1, 2], {}) == ["the settings must be an object, not list"]


def test_r_pay_3_r_entry_1_a_league_s_stored_settings_are_checked_together_as_the_page_checks_them():
    """Each value may pass its own check and the set still not stand: what settings.problems refuses
    on the settings page, a league file brings refused too."""
    for stored, kind, words in (({"nightly": {"buy_in": 20, "pool_share": 15, "final_share": 10}}, "cash",
                                 "add to more than the buy-in"),
                                ({"nightly": {"buy_in": 20}}, "free", "games are free"),
                                ({"nightly": {"reentry": "reentry", "registration_close_minutes": 60,
                                              "reentry_until_minutes": 90}}, "cash", "cannot run past the close")):
        values = settings.from_stored(kind, {}, {}) | {f"nightly.{key}": value for key, value in stored["nightly"].items()}
        assert all(settings.value_problem(settings.BY_KEY[key], value) is None for key, value in values.items())
        found = settings.stored_problems(kind, stored, {})
        assert any(words in problem for problem in found), (stored, found)
        assert list(settings.problems(values, kind).values()) == found


def test_from_stored_still_passes_over_what_stored_problems_refuses():
    """A row written by hand never breaks a page (from_stored's defaults); a file bringing it is refused."""
    values = settings.from_stored("cash", {"nightly": {"starting_stack": -1}}, {})
    assert values["nightly.starting_stack"] == settings.thpa_defaults("cash")["nightly.starting_stack"]
    assert settings.stored_problems("cash", {"nightly": {"starting_stack": -1}}, {})


def test_r_clock_4_a_night_s_kept_settings_are_checked_setting_by_setting():
    snapshot = settings.event_snapshot(settings.thpa_defaults("free"), "nightly")
    assert settings.snapshot_problems(snapshot, "nightly") == []
    assert settings.snapshot_problems(None, "nightly") == []
    for bad, words in (({"shot_clock_seconds": -5}, "whole number from"),
                       ({"bonus_windows": "whenever"}, "one of"),
                       ({"bonuses": {"food": "lots"}}, "whole number from"),
                       ({"bonuses": {"caviar": 100}}, "no bonus kind"),
                       ({"bonuses": [1]}, "chips by kind"),
                       ({"payout_table": {"3": [50, 50, 50]}}, "add to"),
                       ({"reentry": "always"}, "one of")):
        found = settings.snapshot_problems({**snapshot, **bad}, "nightly")
        assert found and words in found[0], (bad, found)
    assert settings.snapshot_problems("a list", "nightly") == ["the night's settings must be an object, not str"]
    assert settings.snapshot_problems({"something_else": 1}, "nightly") == []  # keys no setting has are left
