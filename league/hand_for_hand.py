"""Hand-for-hand at the money bubble (R-HFH-1..3): when the app suggests it, when it ends by itself, the
clock's time taken per hand, and the places shared by everyone out in one hand.

Pure rules over plain values (no Flask, no database); refusals raise ValueError in words for the
host's phone. House decisions (RULES.md): the suggestion comes once the players left are no more than
the paid places plus the tables in play; the clock stands still through hand-for-hand and each Next
hand takes the set minutes (a setting per event type, default 2) off the level, carrying into the next
levels as time removed always does (RP4-C/D); players out in one hand share, even two at one table.
"""
from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping
from fractions import Fraction

from league import clock
from league.finishing import Hand
from league.numbers import is_whole
from league.payouts import share_tied_prizes
from league.points import rank_by_chips, round_half_up
from league.structures import MS_PER_MINUTE, Structure

DEFAULT_MINUTES = 2  # R-HFH-2: RP4-C's two minutes a hand
MAX_MINUTES = 10


def _count(value: int, what: str) -> int:
    if not is_whole(value) or value < 0:
        raise ValueError(f"impossible number of {what} {value!r}")
    return value


def suggested(players_left: int, paid_places: int, tables_in_play: int) -> bool:
    """R-HFH-1: whether the host's screen suggests hand-for-hand: players left are no more than the
    paid places plus the tables in play (house decision), and the bubble has not burst yet (more
    players left than paid places). 20 left, 10 paid, 2 tables: no; 12 left: yes; 10 left: no."""
    left = _count(players_left, "players left")
    paid = _count(paid_places, "paid places")
    tables = _count(tables_in_play, "tables")
    return paid < left <= paid + tables


def bubble_burst(players_left: int, paid_places: int) -> bool:
    """R-HFH-1: whether hand-for-hand ends by itself: the players left are the paid places (the
    bubble has burst), or fewer (several out in the bubble hand)."""
    return _count(players_left, "players left") <= _count(paid_places, "paid places")


def check_on(on: bool, started: bool, players_left: int) -> None:
    """R-HFH-1: refuse switching hand-for-hand on when it is on already, before play has started, or
    with one player left (there is no hand to play)."""
    if on:
        raise ValueError("Hand-for-hand is already on.")
    if not started:
        raise ValueError("The clock hasn't started yet: hand-for-hand comes at the money bubble.")
    if players_left < 2:
        raise ValueError("There is no hand to play: one player is left.")


def check_off(on: bool) -> None:
    """R-HFH-1: refuse switching hand-for-hand off when it is not on."""
    if not on:
        raise ValueError("Hand-for-hand is not on.")


def check_next_hand(on: bool) -> None:
    """R-HFH-2: Next hand only while hand-for-hand is on."""
    if not on:
        raise ValueError("Next hand is for hand-for-hand: switch hand-for-hand on first.")


def check_clock_runs(on: bool) -> None:
    """R-HFH-2: the clock stands still through hand-for-hand (each hand takes its time off instead), so
    Start and Resume are refused while it is on."""
    if on:
        raise ValueError("The clock stands still during hand-for-hand: each Next hand takes its time off "
                         "the level. Switch hand-for-hand off to run the clock again.")


def minutes_per_hand(setting: object) -> int:
    """R-HFH-2: the minutes each hand takes off the level: the event type's setting, or the default 2
    when it is missing or not a whole number of 1 to 10."""
    if is_whole(setting) and 1 <= setting <= MAX_MINUTES:  # type: ignore[operator]
        return int(setting)  # type: ignore[arg-type]
    return DEFAULT_MINUTES


def next_hand_number(hands_dealt: int) -> int:
    """R-HFH-2: the number of the next hand: hands are numbered through the night (1 for the first,
    then one more each time, a second spell of hand-for-hand going on from the first's), so a number
    names one hand and the players out in it (R-HFH-3)."""
    return _count(hands_dealt, "hands") + 1


def stop(structure: Structure, state: clock.ClockState, now_ms: int) -> clock.ClockState:
    """R-HFH-2: hand-for-hand begins: the clock stops where it stands (as a pause), or stays stopped."""
    if state.running_since_ms is None:
        return clock.adjust(structure, state, now_ms, 0)
    return clock.pause(structure, state, now_ms)


def deal(structure: Structure, state: clock.ClockState, now_ms: int, minutes: int) -> clock.ClockState:
    """R-HFH-2: Next hand: `minutes` come off the level at once (the clock stays stopped); more than is
    left carries into the following levels, so levels advance with the time deducted (RP4-D). With 5
    minutes left and 2 a hand: 3 left; with 1 left: the next level with 1 gone."""
    if state.running_since_ms is not None:
        state = clock.pause(structure, state, now_ms)
    return clock.adjust(structure, state, now_ms, -minutes * MS_PER_MINUTE)


def shared_hand(players: Collection[Hashable]) -> Hand:
    """R-HFH-3: the players out in one hand-for-hand hand, at any table, as one step of the elimination
    record in which they all share: R-PTS-6 shares equal stacks, so each is given the same stack."""
    return Hand({player: 0 for player in players})


def hand_positions(players_left: int, busted: Collection[Hashable]) -> dict[Hashable, int]:
    """R-HFH-3: the finishing position of each player out in one hand-for-hand hand: with
    `players_left` before the hand, k out all share position players_left - k + 1 (covering it and
    the k - 1 below it), whatever their stacks. 12 left, 2 out: both 11th (covering 11th and 12th)."""
    left = _count(players_left, "players left")
    out = list(dict.fromkeys(busted))
    if not out:
        raise ValueError("Tap the players who are out.")
    if len(out) >= left:
        raise ValueError("Someone has to win: leave at least one player in.")
    # As services.places places them: one shared hand (equal stacks) ranked by R-PTS-6's own rule.
    return rank_by_chips(shared_hand(out).stacks, best_position=left - len(out) + 1)


def covered(position: int, sharing: int) -> range:
    """R-HFH-3, R-PTS-6: the positions `sharing` players at `position` cover."""
    return range(position, position + sharing)


def shares(position: int, sharing: int, points: Mapping[int, int], prizes: list[int]) -> tuple[int, list[int]]:
    """R-HFH-3: what each of `sharing` players sharing `position` gets: the mean of the covered
    positions' points (`points` by position, base + bonus) rounded half up, and the covered positions'
    prizes (`prizes` 1st first, positions beyond it paying 0) split evenly in whole dollars, the odd
    dollars one each to the first players (as payouts.share_tied_prizes). 11th and 12th sharing
    points 75 and 75, prizes $40 and $0: 75 points and $20 each."""
    mean_points = round_half_up(Fraction(sum(points[p] for p in covered(position, sharing)), sharing))
    # The sharers after one player at each better position: R-PTS-6's split of the prizes they cover.
    order = {("above", p): p for p in range(1, position)} | {i: position for i in range(sharing)}
    split = share_tied_prizes(prizes, order)
    return mean_points, [split[i] for i in range(sharing)]
