"""Finishing positions in the field as it finally stands: late entrants, same-hand bust-outs,
disqualifications, deals, no-shows and re-entries (R-PTS-5..7, R-LATE-2, R-LATE-3, R-ENTRY-2)."""

import random
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league.finishing import (
    Disqualification,
    Finishing,
    Hand,
    ReEntry,
    bust_positions,
    dq_position,
    finishing_positions,
    positions_provisional,
)
from league.late_entry import absent_at_final_table
from league.points import Finish, award_points, check_finishing_order, rank_by_chips

PROPERTIES = settings(max_examples=200, deadline=None)


def players(n, prefix="p"):
    return [f"{prefix}{i:02d}" for i in range(1, n + 1)]


def bust_in_turn(*names):
    """One hand per player, each out alone, in the order given."""
    return [Hand.alone(name) for name in names]


# --- R-PTS-5 the field as it finally stands ---------------------------------------------------------


def test_r_pts_5_late_entrant_pushes_earlier_bust_down():
    # RULES.md: 20 players, one busts, 2 late entrants arrive: the first bust-out finishes 22nd.
    starting = players(20)
    record = [Hand.alone("p01", 2_500)]
    before = finishing_positions(starting, record)
    assert before.positions == {"p01": 20}
    after = finishing_positions(starting + ["late1", "late2"], record)
    assert after.positions == {"p01": 22}
    assert after.field_size == 22
    assert len(after.still_in) == 21 and "late1" in after.still_in


def test_r_pts_5_first_out_finishes_last_and_the_last_player_left_wins():
    result = finishing_positions(["a", "b", "c", "d", "e"], bust_in_turn("c", "a", "e", "b"))
    assert result.positions == {"d": 1, "b": 2, "e": 3, "a": 4, "c": 5}
    assert list(result.positions) == ["d", "b", "e", "a", "c"]  # best first
    assert result.over and result.still_in == ()


def test_r_pts_5_late_entrants_after_several_bust_outs_push_each_down():
    # 10 start, 3 bust, 4 late entrants take seats, 2 more bust: a final field of 14.
    field = players(10) + players(4, "late")
    record = bust_in_turn("p01", "p02", "p03", "late01", "p04")
    result = finishing_positions(field, record)
    assert result.positions == {"p04": 10, "late01": 11, "p03": 12, "p02": 13, "p01": 14}


def test_r_pts_5_players_still_in_have_no_position_yet():
    result = finishing_positions(["a", "b", "c", "d"], bust_in_turn("b"))
    assert result.positions == {"b": 4}
    assert result.still_in == ("a", "c", "d")
    assert not result.over
    # The players still in cover the best places: together they make a valid order.
    check_finishing_order([*result.positions.values(), *[1] * len(result.still_in)])
    with pytest.raises(ValueError, match="^The game isn't over: 3 players are still in$"):
        result.finishes()


def test_r_pts_5_no_record_yet():
    assert finishing_positions(["a", "b"], []) == Finishing({}, ("a", "b"), frozenset(), 2)
    assert finishing_positions(["a"], []).positions == {"a": 1}
    empty = finishing_positions([], [])
    assert empty.over and empty.positions == {} and empty.finishes() == ()


def test_r_pts_5_result_feeds_award_points():
    field = players(15)
    record = bust_in_turn(*reversed(field[1:]))  # p15 out first ... p02 last
    points = award_points(finishing_positions(field, record).finishes())
    # A field of 15 gets the +150 bonus for the top 10 (R-PTS-3).
    assert points["p01"] == 750 + 150
    assert points["p10"] == 150 + 150
    assert points["p15"] == 75


# --- R-PTS-6 several out in one hand -----------------------------------------------------------------


def test_r_pts_6_two_out_in_one_hand_larger_stack_finishes_higher():
    # RULES.md: 8 left, stacks 5,000 and 3,000 finish 7th and 8th.
    result = finishing_positions(players(8), [Hand({"p01": 3_000, "p02": 5_000})])
    assert result.positions == {"p02": 7, "p01": 8}


def test_r_pts_6_with_8_left_after_earlier_bust_outs_and_a_late_entrant():
    # 10 start, 3 bust, a late entrant: 8 left when two go out in one hand.
    field = players(10) + ["late"]
    record = [*bust_in_turn("p01", "p02", "p03"), Hand({"p04": 5_000, "p05": 3_000})]
    result = finishing_positions(field, record)
    assert (result.positions["p04"], result.positions["p05"]) == (7, 8)
    assert [result.positions[p] for p in ("p03", "p02", "p01")] == [9, 10, 11]


def test_r_pts_6_equal_stacks_share_the_best_position_they_cover():
    # RULES.md: two of 4,000 both finish 7th.
    assert finishing_positions(players(8), [Hand({"p01": 4_000, "p02": 4_000})]).positions == {
        "p01": 7, "p02": 7,
    }
    three = finishing_positions(players(10), [Hand({"p01": 900, "p02": 500, "p03": 500})])
    assert three.positions == {"p01": 8, "p02": 9, "p03": 9}


def test_r_pts_6_shared_positions_share_points():
    field = players(8)
    record = [Hand({"p07": 4_000, "p08": 4_000}), *bust_in_turn("p06", "p05", "p04", "p03", "p02")]
    result = finishing_positions(field, record)
    assert result.positions["p07"] == result.positions["p08"] == 7
    points = award_points(result.finishes())
    assert points["p07"] == points["p08"] == 163  # (175 + 150) / 2 = 162.5, half up


def test_r_pts_6_a_lone_bust_out_needs_no_stack_but_several_do():
    assert finishing_positions(["a", "b", "c"], [Hand({"a": None})]).positions == {"a": 3}
    with pytest.raises(ValueError, match="^Several out in one hand: give each one's chips"):
        finishing_positions(["a", "b", "c"], [Hand({"a": None, "b": 100})])
    with pytest.raises(ValueError, match="^Ann's chips at the start of the hand must be 0 or more$"):
        finishing_positions(["a", "b", "c"], [Hand({"a": -5, "b": 100})], names={"a": "Ann"})
    with pytest.raises(ValueError, match="must be 0 or more"):
        finishing_positions(["a", "b", "c"], [Hand({"a": 2.5, "b": 100})])


# --- R-PTS-5 disqualification ----------------------------------------------------------------------


def test_r_pts_5_dq_takes_the_position_at_that_point_of_the_elimination_order():
    field = players(6)
    record = [Hand.alone("p01"), Disqualification("p02"), Hand.alone("p03")]
    result = finishing_positions(field, record)
    assert result.positions == {"p03": 4, "p02": 5, "p01": 6}
    assert result.disqualified == {"p02"}
    # As dq_position gives it at the moment: 5 players left.
    assert result.positions["p02"] == dq_position(5)


def test_r_pts_5_a_late_entrant_pushes_a_dq_down_too():
    record = [Disqualification("p01")]
    assert finishing_positions(players(10), record).positions == {"p01": 10}
    assert finishing_positions(players(10) + ["late"], record).positions == {"p01": 11}


def test_r_pts_5_dq_counts_in_the_field_earns_0_and_keeps_the_place():
    field = players(15)
    record = [Disqualification("p15"), *bust_in_turn(*reversed(field[1:14]))]
    finishes = finishing_positions(field, record).finishes()
    assert Finish("p15", 15, "dq") in finishes
    points = award_points(finishes)
    assert points["p15"] == 0
    assert points["p01"] == 750 + 150  # still a field of 15


def test_r_pts_5_dq_of_the_last_player_left():
    result = finishing_positions(["a", "b"], [Hand.alone("b"), Disqualification("a")])
    assert result.positions == {"a": 1, "b": 2}
    # A field of 2 (short, R-PTS-2): 2nd earns 150; the disqualified winner earns 0.
    assert award_points(result.finishes()) == {"a": 0, "b": 150}


# --- R-PTS-7 deals ---------------------------------------------------------------------------------


def test_r_pts_7_deal_chip_count_fixes_the_places_left_with_equal_counts_sharing():
    field = players(4) + ["out5", "out6"]
    record = bust_in_turn("out6", "out5")
    deal = {"p01": 50_000, "p02": 120_000, "p03": 50_000, "p04": 10_000}
    result = finishing_positions(field, record, deal)
    assert result.positions == {"p02": 1, "p01": 2, "p03": 2, "p04": 4, "out5": 5, "out6": 6}
    assert result.over
    points = award_points(result.finishes())
    # Field of 6 (short, R-PTS-2): 2nd and 3rd are worth 250 and 225: mean 237.5 -> 238.
    assert points["p01"] == points["p03"] == 238
    assert points["p02"] == 275


def test_r_pts_7_deal_refusals():
    field = ["a", "b", "c", "d"]
    record = [Hand.alone("d")]
    names = {"a": "Ann", "d": "Dee"}
    with pytest.raises(ValueError, match=r"^Enter a chip count for each of the 3 players left \(2 entered\)$"):
        finishing_positions(field, record, {"a": 1_000, "b": 2_000})
    with pytest.raises(ValueError, match="^Dee is out: only the players left are counted for a deal$"):
        finishing_positions(field, record, {"a": 1, "b": 2, "c": 3, "d": 4}, names=names)
    with pytest.raises(ValueError, match="^That player isn't playing in this game$"):
        finishing_positions(field, record, {"a": 1, "b": 2, "z": 3})
    with pytest.raises(ValueError, match="Every player left has chips"):
        finishing_positions(field, record, {"a": 0, "b": 2, "c": 3})
    with pytest.raises(ValueError, match="^A deal needs two or more players left$"):
        finishing_positions(["a", "b"], [Hand.alone("b")], {"a": 100})


# --- R-LATE-3 no-shows ----------------------------------------------------------------------------


def test_r_late_3_no_shows_are_not_in_the_field_and_have_no_position():
    # 15 entries, one pre-registered player never arrives: a field of 14, so no bonus.
    entries = players(15)
    absent = absent_at_final_table(["p15"], set(entries[:14]), 10_000)
    field = [player for player in entries if player not in absent.players]
    result = finishing_positions(field, bust_in_turn(*reversed(field[1:])))
    assert "p15" not in result.positions and result.field_size == 14
    assert result.positions["p14"] == 14  # the first out is last of the 14 who played
    finishes = result.finishes(no_shows=absent.players)
    assert finishes[-1] == Finish("p15", None, "no_show")
    points = award_points(finishes)
    assert points["p01"] == 750 and points["p15"] == 0
    with pytest.raises(ValueError, match="^A player who took a seat can't be a no-show$"):
        result.finishes(no_shows=["p03"])


def test_r_late_3_a_pre_registered_player_arriving_late_pushes_bust_outs_down():
    record = bust_in_turn("p01")
    assert finishing_positions(players(9), record).positions == {"p01": 9}
    assert finishing_positions(players(9) + ["prereg"], record).positions == {"p01": 10}


# --- R-ENTRY-2 re-entries --------------------------------------------------------------------------


def test_r_entry_2_one_position_from_the_last_entry_and_the_field_counts_players():
    field = ["a", "b", "c", "d", "a"]  # a's second entry is the same player
    record = [Hand.alone("a"), ReEntry("a"), Hand.alone("b"), Hand.alone("a")]
    result = finishing_positions(field, record)
    assert result.field_size == 4
    assert result.positions == {"b": 4, "a": 3}
    assert result.still_in == ("c", "d")


def test_r_entry_2_a_re_entered_player_still_in_has_no_position():
    result = finishing_positions(["a", "b", "c"], [Hand.alone("a"), ReEntry("a"), Hand.alone("b")])
    assert result.positions == {"b": 3}
    assert result.still_in == ("a", "c")


def test_r_entry_2_a_re_entry_out_of_a_shared_hand_leaves_the_others_their_places():
    field = ["a", "b", "c", "d", "e"]
    record = [Hand({"a": 1_000, "b": 1_000}), ReEntry("a"), Hand.alone("c"), Disqualification("a")]
    result = finishing_positions(field, record)
    # b alone counts from the first hand; a's position comes from the disqualification.
    assert result.positions == {"a": 3, "c": 4, "b": 5}
    assert result.disqualified == {"a"}
    assert result.still_in == ("d", "e")


def test_r_entry_2_re_entry_refusals():
    names = {"a": "Ann"}
    with pytest.raises(ValueError, match="^Ann is still in: only a player who is out can re-enter$"):
        finishing_positions(["a", "b"], [ReEntry("a")], names=names)
    with pytest.raises(ValueError, match="^Ann was disqualified and can't re-enter$"):
        finishing_positions(["a", "b", "c"], [Disqualification("a"), ReEntry("a")], names=names)
    with pytest.raises(ValueError, match="^That player isn't playing in this game$"):
        finishing_positions(["a", "b"], [ReEntry("z")])


# --- refusals --------------------------------------------------------------------------------------


def test_r_pts_5_record_refusals():
    field = ["a", "b", "c"]
    names = {"a": "Ann", "b": "O'Brien <b>"}
    with pytest.raises(ValueError, match="^Ann is already out$"):
        finishing_positions(field, [Hand.alone("a"), Hand.alone("a")], names=names)
    with pytest.raises(ValueError, match="^That player is already out$"):
        finishing_positions(field, [Hand.alone("a"), Disqualification("a")])
    with pytest.raises(ValueError, match="^That player isn't playing in this game$"):
        finishing_positions(field, [Hand.alone("z")])
    with pytest.raises(ValueError, match="^That player isn't playing in this game$"):
        finishing_positions(field, [Disqualification("z")])
    with pytest.raises(ValueError, match="^Choose who went out$"):
        finishing_positions(field, [Hand({})])
    with pytest.raises(ValueError, match="^Not everyone left can go out in one hand: someone wins the pot$"):
        finishing_positions(field, [Hand({"a": 1, "b": 2, "c": 3})])
    with pytest.raises(ValueError, match="^O'Brien <b> is the last player standing: the game is over$"):
        finishing_positions(field, [Hand.alone("a"), Hand.alone("c"), Hand.alone("b")], names=names)
    with pytest.raises(TypeError):
        finishing_positions(field, ["a"])


def test_r_pts_5_field_order_changes_nothing():
    field = players(12)
    record = [Hand({"p03": 100, "p07": 100, "p01": 900}), Disqualification("p12"), Hand.alone("p05")]
    expected = finishing_positions(field, record)
    for seed in range(5):
        shuffled = random.Random(seed).sample(field, len(field))
        result = finishing_positions(shuffled, record)
        assert result == expected
        assert list(result.positions.items()) == list(expected.positions.items())
        assert result.still_in == expected.still_in
    assert list(expected.positions) == ["p05", "p12", "p01", "p03", "p07"]


# --- R-PTS-5 provisional positions -----------------------------------------------------------------


def test_r_pts_5_positions_are_provisional_until_registration_closes():
    assert positions_provisional(True)
    assert not positions_provisional(False)


def test_r_late_3_positions_stay_provisional_while_a_pre_registered_player_is_awaited():
    assert positions_provisional(False, awaited=1)
    assert not positions_provisional(False, awaited=0)
    with pytest.raises(ValueError):
        positions_provisional(False, awaited=-1)


def test_r_entry_2_positions_stay_provisional_while_re_entry_is_open():
    assert positions_provisional(False, re_entry_open=True)


# --- properties ------------------------------------------------------------------------------------

STACKS = (500, 1_000, 2_500, 4_000)
MOVES = ("arrive", "arrive", "bust", "bust", "bust", "hand", "hand", "dq", "re_enter")


@dataclass
class Night:
    """A random night as it happened, with what the properties check it against."""

    field: list
    record: list
    deal: dict | None
    # The eliminations that count, in order: (step number, player, stack at the start of the hand).
    eliminations: list
    # Positions given today's way, from the players left at each moment; None once a late
    # entrant arrived after a bust-out or someone re-entered (today's way is wrong then).
    at_the_time: dict | None


@st.composite
def nights(draw):
    """Check-ins, bust-outs (alone or several in a hand), disqualifications, re-entries, then
    the night left open, played out to one winner, or ended by a deal."""
    field = list(range(draw(st.integers(1, 20))))
    still_in = list(field)
    record, eliminations, dq = [], [], set()
    at_the_time = {}
    step = 0
    allow_re_entry = draw(st.booleans())
    ending = draw(st.sampled_from(("open", "play_out", "deal")))
    keep = 2 if ending == "deal" else 0  # a deal needs two players left
    for _ in range(draw(st.integers(0, 40))):
        move = draw(st.sampled_from(MOVES))
        if move == "arrive":
            field.append(len(field))
            still_in.append(field[-1])
            if eliminations:
                at_the_time = None
        elif move in ("bust", "hand") and len(still_in) >= max(2, keep + 1):
            size = 1 if move == "bust" else draw(st.integers(1, min(4, len(still_in) - max(1, keep))))
            out = draw(st.lists(st.sampled_from(tuple(still_in)), min_size=size, max_size=size, unique=True))
            stacks = {player: draw(st.sampled_from(STACKS)) for player in out}
            if size == 1 and draw(st.booleans()):
                stacks = {out[0]: None}
            if at_the_time is not None:
                at_the_time.update(bust_positions(len(still_in), {p: s or 0 for p, s in stacks.items()}))
            record.append(Hand(stacks))
            eliminations += [(step, player, stacks[player]) for player in out]
            still_in = [player for player in still_in if player not in stacks]
            step += 1
        elif move == "dq" and len(still_in) > keep:
            player = draw(st.sampled_from(tuple(still_in)))
            if at_the_time is not None:
                at_the_time[player] = dq_position(len(still_in))
            record.append(Disqualification(player))
            eliminations.append((step, player, None))
            dq.add(player)
            still_in.remove(player)
            step += 1
        elif move == "re_enter" and allow_re_entry:
            candidates = tuple(player for _, player, _ in eliminations if player not in dq)
            if candidates:
                player = draw(st.sampled_from(candidates))
                record.append(ReEntry(player))
                eliminations = [e for e in eliminations if e[1] != player]
                still_in.append(player)
                at_the_time = None
    if ending == "play_out":
        while len(still_in) > 1:
            player = still_in.pop(draw(st.integers(0, len(still_in) - 1)))
            if at_the_time is not None:
                at_the_time[player] = len(still_in) + 1
            record.append(Hand.alone(player))
            eliminations.append((step, player, None))
            step += 1
    deal = None
    if ending == "deal" and len(still_in) >= 2:
        deal = {player: draw(st.sampled_from(STACKS)) for player in still_in}
        if at_the_time is not None:
            at_the_time.update(rank_by_chips(deal))
    elif len(still_in) == 1 and at_the_time is not None:
        at_the_time[still_in[0]] = 1
    return Night(field, record, deal, eliminations, at_the_time)


@PROPERTIES
@given(nights())
def test_r_pts_5_property_positions_always_form_a_valid_finishing_order(night):
    result = finishing_positions(night.field, night.record, night.deal)
    assert result.field_size == len(night.field)
    assert set(result.positions).isdisjoint(result.still_in)
    assert set(result.positions) | set(result.still_in) == set(night.field)
    # The players still in cover the best places, so with them sharing 1st the order is valid.
    check_finishing_order([*result.positions.values(), *[1] * len(result.still_in)])
    if result.over:
        check_finishing_order(result.positions.values())
        finishes = result.finishes()
        points = award_points(finishes)
        assert set(points) == set(night.field)
        assert all(points[f.key] == 0 for f in finishes if f.status == "dq")
    else:
        with pytest.raises(ValueError, match="isn't over"):
            result.finishes()


@PROPERTIES
@given(nights())
def test_r_pts_5_property_each_eliminated_player_one_position_earlier_never_better(night):
    result = finishing_positions(night.field, night.record, night.deal)
    eliminated = [player for _, player, _ in night.eliminations]
    assert len(eliminated) == len(set(eliminated))
    assert all(player in result.positions for player in eliminated)
    assert result.disqualified == {s.player for s in night.record if isinstance(s, Disqualification)}
    for (step_a, a, _), (step_b, b, _) in zip(night.eliminations, night.eliminations[1:]):
        if step_a != step_b:  # out in an earlier hand: finishes strictly worse
            assert result.positions[a] > result.positions[b]
    by_hand = {}
    for step, player, stack in night.eliminations:
        by_hand.setdefault(step, []).append((player, stack))
    for members in by_hand.values():
        for a, stack_a in members:
            for b, stack_b in members:
                if (stack_a or 0) > (stack_b or 0):
                    assert result.positions[a] < result.positions[b]
                if (stack_a or 0) == (stack_b or 0):
                    assert result.positions[a] == result.positions[b]
    # The first hand out takes the worst places of the final field: N-th when out alone.
    if night.eliminations:
        first = by_hand[night.eliminations[0][0]]
        size = len(set(night.field))
        assert all(size - len(first) + 1 <= result.positions[p] <= size for p, _ in first)
        if len(first) == 1:
            assert result.positions[first[0][0]] == size
    if night.deal is not None:
        assert {p: result.positions[p] for p in night.deal} == rank_by_chips(night.deal)


@PROPERTIES
@given(nights())
def test_r_pts_5_property_a_late_entrant_pushes_every_elimination_down_one(night):
    if night.deal is not None:
        return  # a deal counts the players left: a newcomer would need a count
    before = finishing_positions(night.field, night.record)
    after = finishing_positions([*night.field, "late"], night.record)
    assert after.field_size == before.field_size + 1
    # The newcomer is still in, or 1st when everyone else is out (after a disqualification).
    assert "late" in after.still_in or after.positions["late"] == 1
    for _, player, _ in night.eliminations:
        assert after.positions[player] == before.positions[player] + 1


@PROPERTIES
@given(nights())
def test_r_pts_5_property_agrees_with_the_positions_given_at_the_time_without_late_entrants(night):
    if night.at_the_time is None:
        return
    result = finishing_positions(night.field, night.record, night.deal)
    assert result.positions == night.at_the_time


@PROPERTIES
@given(nights(), st.randoms(use_true_random=False))
def test_r_pts_5_property_the_order_of_the_field_changes_nothing(night, rng):
    expected = finishing_positions(night.field, night.record, night.deal)
    result = finishing_positions(rng.sample(night.field, len(night.field)), night.record, night.deal)
    assert list(result.positions.items()) == list(expected.positions.items())
    assert result == expected
