"""The night's decisions: bust-outs, DQ, deals, bonuses, late entry, chips, prizes
(R-PTS-5..7, R-PAY-1..2, R-CHIP-1..3, R-LATE-1..4)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league.chips import DEFAULT_BONUS_VALUES, WINDOW_REFUSAL, BonusDecision, chip_count, decide_bonus, override_bonus
from league.clock import ClockState, start, view
from league.deals import MAX_DEAL_PLAYERS, DealOffer, ballot_result, deal_offers, deal_positions
from league.finishing import bust_positions, check_bust, dq_position
from league.late_entry import (
    ENTRY_CLOSED,
    Absentees,
    EntryDecision,
    absent_at_final_table,
    entry_decision,
    missed_blinds_proposal,
)
from league.payouts import prize_table, prizes_for
from league.points import Finish, award_points, check_finishing_order
from league.structures import Break, Level

MIN = 60_000
T0 = 1_764_000_000_000
# L1 25/50, L2 50/100, L3 100/200, L4 150/300 (15 min each) | major break (15) | L5 200/400/400 ...
S = (
    Level(15, 25, 50),
    Level(15, 50, 100),
    Level(15, 100, 200),
    Level(15, 150, 300),
    Break(15, "Major break", major=True),
    Level(15, 200, 400, 400),
    Level(15, 300, 600, 600),
)
NIGHTLY = DEFAULT_BONUS_VALUES["nightly"]


def at(minutes):
    """The clock view `minutes` of wall time after the clock started at T0."""
    return view(S, start(S, ClockState(), T0), T0 + int(minutes * MIN))


BEFORE_START = view(S, ClockState(), T0)
LEVEL_2 = at(20)
MAJOR_BREAK = at(65)
AFTER_BREAK = at(80)


# --- R-PTS-6 bust-outs -------------------------------------------------------------------------


def test_r_pts_6_one_bust_takes_the_worst_open_position():
    assert bust_positions(8, {"a": 3_000}) == {"a": 8}
    assert bust_positions(2, {"a": 100}) == {"a": 2}


def test_r_pts_6_two_in_one_hand_larger_stack_finishes_higher():
    assert bust_positions(8, {"big": 5_000, "small": 3_000}) == {"big": 7, "small": 8}
    assert bust_positions(8, {"small": 3_000, "big": 5_000}) == {"big": 7, "small": 8}


def test_r_pts_6_equal_stacks_share():
    assert bust_positions(8, {"a": 4_000, "b": 4_000}) == {"a": 7, "b": 7}
    assert bust_positions(10, {"a": 900, "b": 500, "c": 500}) == {"a": 8, "b": 9, "c": 9}


def test_r_pts_6_shared_positions_share_points():
    # 8 left, two equal stacks bust: they share 7th and 8th of an 8-player field.
    finishes = [Finish(k, p) for k, p in [("w", 1), ("b", 2), ("c", 3), ("d", 4), ("e", 5), ("f", 6)]]
    finishes += [Finish(k, p) for k, p in bust_positions(8, {"g": 4_000, "h": 4_000}).items()]
    points = award_points(finishes)
    assert points["g"] == points["h"] == 163  # (175 + 150) / 2 = 162.5, half up


def test_r_pts_6_bust_refusals():
    with pytest.raises(ValueError, match="^Someone has to win: leave at least one player in.$"):
        bust_positions(2, {"a": 1, "b": 1})
    with pytest.raises(ValueError, match="^Tap the players who are out.$"):
        bust_positions(5, {})


def test_r_pts_5_check_bust_refusals():
    names = {"a": "Ann", "b": "O'Brien <b>", "z": "Zed"}
    check_bust(["a"], ["a", "b", "c"])
    with pytest.raises(ValueError, match="^Zed is already out: not in the game.$"):
        check_bust(["z"], ["a", "b"], out=["z"], names=names)
    with pytest.raises(ValueError, match="^That player is already out: not in the game.$"):
        check_bust(["z"], ["a", "b"], out=["z"])
    with pytest.raises(ValueError, match="^That player is not in the game.$"):
        check_bust(["q"], ["a", "b"], out=["z"])
    with pytest.raises(ValueError, match="^Someone has to win"):  # the last player standing can't go out
        check_bust(["a"], ["a"], names=names)
    with pytest.raises(ValueError, match="^Someone has to win: leave at least one player in.$"):
        check_bust(["a", "b"], ["a", "b"])
    with pytest.raises(ValueError, match="^Tap the players who are out.$"):
        check_bust([], ["a", "b"])
    with pytest.raises(ValueError, match="chosen twice"):
        check_bust(["a", "a"], ["a", "b", "c"])
    # R-PTS-6: several out in one hand are ordered by their stacks, so each needs one.
    with pytest.raises(ValueError, match="^Several out in one hand: give each one's chips"):
        check_bust(["a", "b"], ["a", "b", "c"], stacks={"a": 5_000, "b": None})
    check_bust(["a"], ["a", "b"], stacks={"a": None})  # alone, the stack is not needed


def test_r_pts_5_dq_takes_the_worst_open_position_with_no_points():
    assert dq_position(6) == 6
    finishes = [Finish("a", 1), Finish("b", 2), Finish("c", 3, "dq"), Finish("d", 4)]
    points = award_points(finishes)
    assert points["c"] == 0 and points["b"] > 0
    with pytest.raises(ValueError):
        dq_position(0)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 60), st.integers(0, 2**32))
def test_r_pts_6_property_bust_outs_leave_a_valid_finishing_order(field, seed):
    rng = random.Random(seed)
    remaining = list(range(field))
    positions, statuses = {}, {}
    while len(remaining) > 1:
        if rng.random() < 0.1:
            player = rng.choice(remaining)
            positions[player] = dq_position(len(remaining))
            statuses[player] = "dq"
            remaining.remove(player)
            continue
        busted = rng.sample(remaining, rng.randint(1, min(4, len(remaining) - 1)))
        check_bust(busted, remaining, out=positions)
        stacks = {p: rng.choice([500, 1_000, 2_500]) for p in busted}
        positions.update(bust_positions(len(remaining), stacks))
        remaining = [p for p in remaining if p not in busted]
    for player in remaining:
        positions[player] = 1
    check_finishing_order(positions.values())
    assert len(positions) == field
    award_points([Finish(k, p, statuses.get(k, "played")) for k, p in positions.items()])


# --- R-PTS-7, R-PAY-2 deals ---------------------------------------------------------------------


def test_r_pts_7_deal_positions_by_chips():
    assert deal_positions({"a": 50_000, "b": 120_000, "c": 50_000, "d": 10_000}, 4) == {
        "b": 1, "a": 2, "c": 2, "d": 4,
    }


def test_r_pts_7_deal_needs_every_count():
    with pytest.raises(ValueError, match="each of the 3 players left"):
        deal_positions({"a": 1, "b": 2}, 3)
    with pytest.raises(ValueError, match="chip count"):
        deal_positions({"a": 0, "b": 2}, 2)


def test_r_pay_2_deal_offers_sum_to_the_unpaid_prizes():
    offer = deal_offers({"a": 60_000, "b": 30_000, "c": 10_000}, [500, 300, 200])
    assert isinstance(offer, DealOffer)
    assert sum(offer.chip_chop.values()) == 1000 == sum(offer.icm.values())
    # Chip chop: 200 each guaranteed, the other 400 by chips: 240, 120, 40.
    assert offer.chip_chop == {"a": 440, "b": 320, "c": 240}
    # ICM flattens the chip leader's edge.
    assert offer.icm["a"] < offer.chip_chop["a"] and offer.icm["c"] > offer.chip_chop["c"]
    assert list(offer.icm) == ["a", "b", "c"]


def test_r_pay_2_deal_offer_with_fewer_prizes_than_players():
    offer = deal_offers({"a": 10, "b": 10, "c": 10}, [301])
    assert sum(offer.chip_chop.values()) == 301 == sum(offer.icm.values())
    assert sorted(offer.icm.values()) == [100, 100, 101]


def test_r_pay_2_deal_offer_refusals():
    with pytest.raises(ValueError, match="2 to"):
        deal_offers({"a": 10}, [100])
    with pytest.raises(ValueError, match="2 to"):
        deal_offers({i: 10 for i in range(MAX_DEAL_PLAYERS + 1)}, [100])
    with pytest.raises(ValueError, match="unpaid prizes"):
        deal_offers({"a": 10, "b": 5}, [100, 50, 25])
    with pytest.raises(ValueError, match="whole dollars"):
        deal_offers({"a": 10, "b": 5}, [100, -1])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 2_000_000), min_size=2, max_size=9),
       st.lists(st.integers(0, 5_000), max_size=9))
def test_r_pay_2_property_deal_offers_sum_exactly(stacks, prizes):
    prizes = sorted(prizes[: len(stacks)], reverse=True)
    offer = deal_offers(dict(enumerate(stacks)), prizes)
    assert sum(offer.chip_chop.values()) == sum(prizes)
    assert sum(offer.icm.values()) == sum(prizes)
    assert all(amount >= 0 for amount in [*offer.chip_chop.values(), *offer.icm.values()])


def test_r_pay_2_ballot_unanimous_or_void():
    players = ["a", "b", "c"]
    assert ballot_result({}, players) == "open"
    assert ballot_result({"a": True, "b": True}, players) == "open"
    assert ballot_result({"a": True, "b": True, "c": None}, players) == "open"
    assert ballot_result({"a": True, "b": True, "c": True}, players) == "agreed"
    assert ballot_result({"a": False}, players) == "void"  # one no voids at once
    assert ballot_result({"a": True, "b": False, "c": True}, players) == "void"
    with pytest.raises(ValueError, match="Only the players left"):
        ballot_result({"z": True}, players)
    with pytest.raises(ValueError):
        ballot_result({}, [])


# --- R-CHIP-1, R-CHIP-2 bonus chips -------------------------------------------------------------


def test_r_chip_2_food_and_drink_windows():
    assert decide_bonus("food", "nightly", NIGHTLY, BEFORE_START, ()) == BonusDecision(
        True, 1_000, "Food bonus: +1,000 chips")
    assert decide_bonus("drink", "nightly", NIGHTLY, MAJOR_BREAK, ()).accepted
    for clock_view in (LEVEL_2, AFTER_BREAK):
        for kind in ("food", "drink"):
            assert decide_bonus(kind, "nightly", NIGHTLY, clock_view, ()) == BonusDecision(
                False, 0, WINDOW_REFUSAL)
    assert WINDOW_REFUSAL == "Food and drink bonuses are taken only before play starts or during the major break"
    assert decide_bonus("food", "nightly", NIGHTLY, None, ()).accepted  # no clock yet


def test_r_chip_2_other_kinds_any_time():
    for clock_view in (BEFORE_START, LEVEL_2, MAJOR_BREAK, AFTER_BREAK):
        decision = decide_bonus("membership", "nightly", NIGHTLY, clock_view, ())
        assert decision == BonusDecision(True, 1_000, "Membership card bonus: +1,000 chips")


def test_r_chip_1_one_claim_per_kind():
    refused = decide_bonus("drink", "nightly", NIGHTLY, BEFORE_START, {"drink"})
    assert refused == BonusDecision(False, 0, "Already claimed: one drink bonus per player per game")
    assert decide_bonus("food", "nightly", NIGHTLY, BEFORE_START, {"drink"}).accepted


def test_r_chip_1_event_type_kinds_and_league_values():
    refused = decide_bonus("membership", "monthly_final", None, BEFORE_START, ())
    assert refused == BonusDecision(False, 0, "Monthly Final games don't take membership card bonuses")
    assert not decide_bonus("food", "highroller", None, BEFORE_START, ()).accepted
    assert decide_bonus("food", "monthly_final", None, BEFORE_START, ()).chips == 1_000
    league = {"food": 2_000, "drink": 0}
    assert decide_bonus("food", "nightly", league, BEFORE_START, ()).chips == 2_000
    assert not decide_bonus("drink", "nightly", league, BEFORE_START, ()).accepted
    with pytest.raises(ValueError, match="no 'beer' bonus"):
        decide_bonus("beer", "nightly", NIGHTLY, BEFORE_START, ())
    with pytest.raises(ValueError, match="unknown event type"):
        decide_bonus("food", "pub_quiz", NIGHTLY, BEFORE_START, ())


def test_r_chip_2_override():
    assert override_bonus("food", NIGHTLY) == BonusDecision(
        True, 1_000, "Food bonus: +1,000 chips (host's ruling)")
    with pytest.raises(ValueError, match="no chip value"):
        override_bonus("membership", DEFAULT_BONUS_VALUES["highroller"])


# --- R-LATE-1..4 late entry ---------------------------------------------------------------------


def test_r_late_1_entry_closes_at_the_major_break():
    assert entry_decision(BEFORE_START) == EntryDecision(True, "Entries are open")
    assert entry_decision(None).accepted
    assert entry_decision(LEVEL_2) == EntryDecision(True, "Entries are open until the major break")
    assert entry_decision(at(59.9)).accepted
    for clock_view in (at(60), MAJOR_BREAK, AFTER_BREAK):  # the host may override, with a reason
        assert entry_decision(clock_view) == EntryDecision(False, ENTRY_CLOSED, overridable=True)
    assert ENTRY_CLOSED.startswith("Check-in is closed: the major break has started.")


def test_r_late_4_one_game_at_a_time():
    # No override: still in another game is refused before and after the major break.
    for clock_view in (LEVEL_2, MAJOR_BREAK):
        assert entry_decision(clock_view, "The Ship", "Ann") == EntryDecision(
            False, "Ann is still in the game at The Ship: one game at a time.")
    assert entry_decision(LEVEL_2, "The Ship").reason == "You are still in the game at The Ship: one game at a time."


def test_r_late_3_missed_blinds_text():
    assert missed_blinds_proposal(S, at(35)) == (
        525, "Levels 1–3 started before you arrived: 25+50, 50+100, 100+200 = 525 chips")
    assert missed_blinds_proposal(S, at(5)) == (75, "Level 1 started before you arrived: 25+50 = 75 chips")
    assert missed_blinds_proposal(S, BEFORE_START) == (
        0, "No level had started before you arrived: nothing to deduct")
    # After the major break: breaks are not play; antes are listed.
    chips, text = missed_blinds_proposal(S, at(80))
    assert chips == 75 + 150 + 300 + 450 + 1_000
    assert text.endswith("150+300, 200+400+400 = 1,975 chips")


def test_r_late_3_absent_at_final_table():
    absent = absent_at_final_table(["c", "a", "b", "a"], {"b"}, 10_000, {"a": 1_000})
    assert absent == Absentees(("a", "c"), 21_000)
    assert absent.removed == {"a": 11_000, "c": 10_000}  # each one's stack and bonus leave play
    assert absent.finishes == (Finish("a", None, "no_show"), Finish("c", None, "no_show"))
    assert absent_at_final_table([], set(), 10_000).chips_removed == 0


# --- R-CHIP-3 chips in play ---------------------------------------------------------------------


def test_r_chip_3_chip_count():
    # 30 entries of 10,000, 12,500 in bonuses, one no-show's 10,000 removed, 12 players left.
    assert chip_count(10_000, 30, 12_500, 10_000, 12) == (302_500, 25_208)
    assert chip_count(10_000, 2, 0, 0, 0) == (20_000, None)
    with pytest.raises(ValueError):
        chip_count(10_000, 1, 0, 20_000, 1)


# --- R-PAY-1 settling ---------------------------------------------------------------------------


def test_r_pay_1_prize_table():
    assert prize_table(20, 1_000) == [650, 350]
    assert prize_table(30, 1_000) == [500, 300, 200]
    assert prize_table(30, 1_000, percent=15) == [450, 270, 170, 110]
    assert prize_table(5, 101) == [101]


def test_r_pay_1_prizes_with_ties():
    positions = {"a": 1, "b": 2, "c": 2, "d": 4}
    assert prizes_for(positions, {}, [500, 300, 201]) == {"a": 500, "b": 251, "c": 250, "d": 0}


def test_r_pts_5_dq_prize_goes_down_the_order():
    positions = {"a": 1, "b": 2, "c": 3, "d": 4}
    prizes = prizes_for(positions, {"b": "dq"}, [500, 300, 200])
    assert prizes == {"a": 500, "b": 0, "c": 300, "d": 200}
    assert sum(prizes.values()) == 1000


def test_r_pts_5_dq_among_ties():
    positions = {"a": 1, "b": 2, "c": 2, "d": 4, "e": 5}
    prizes = prizes_for(positions, {"a": "dq"}, [400, 300, 200, 100])
    # Without a: b and c share 1st and 2nd, d takes 3rd, e 4th.
    assert prizes == {"a": 0, "b": 350, "c": 350, "d": 200, "e": 100}


def test_r_pay_1_prizes_refusals():
    with pytest.raises(ValueError):
        prizes_for({"a": 1, "b": 3}, {}, [100])
    with pytest.raises(ValueError, match="status"):
        prizes_for({"a": 1}, {"a": "no_show"}, [100])


def test_r_late_3_absentee_takes_out_their_own_r_fin_stack():
    absent = absent_at_final_table(["a", "b"], (), 20_000, {"a": 0}, {"b": 25_000})
    assert absent.removed == {"a": 20_000, "b": 25_000} and absent.chips_removed == 45_000
