"""Deals at the final table: points positions from the chip count, the prize splits offered and
the players' ballot (R-PTS-7, R-PAY-2).

Pure functions over plain values; refusals raise ValueError in words fit for a phone screen.

House decision: a deal is offered to 2 to MAX_DEAL_PLAYERS players (R-PAY-2: the final table).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from league import payouts
from league.icm import icm
from league.numbers import is_whole
from league.points import position_points, rank_by_chips, round_half_up
from league.statuses import DealStatus

# R-PAY-2 deals are made at the final table; ICM's exact computation doubles in cost with
# every player (2^n), and 12 is more than any final table while still instant.
MAX_DEAL_PLAYERS = 12


def _check_counts(chip_counts: Mapping[Hashable, int]) -> None:
    for count in chip_counts.values():
        if not is_whole(count) or count < 1:
            raise ValueError(
                f"Every player left has chips: {count!r} is not a chip count for a player still in"
            )


def deal_positions(chip_counts: Mapping[Hashable, int], players_left: int) -> dict[Hashable, int]:
    """Points positions fixed by the chip count at a deal (R-PTS-7).

    Most chips finish 1st; equal counts share (1, 2, 2, 4, as R-PTS-6). Every one of the
    `players_left` must be counted.
    """
    if len(chip_counts) != players_left:
        raise ValueError(
            f"Enter a chip count for each of the {players_left} players left "
            f"({len(chip_counts)} entered)"
        )
    _check_counts(chip_counts)
    return rank_by_chips(chip_counts)


def count_problem(counted: int, chips_in_play: int) -> str | None:
    """Whether a deal's chip count adds up to the chips in play (R-CHIP-3, R-PTS-7): the count fixes
    the points positions, so a typo in it (a 0 too many, a stack missed) would fix them wrongly.
    None when it adds up; else the difference in words for the host, who counts again or confirms
    the difference with a reason (a ruling, R-MEM-2)."""
    if counted == chips_in_play:
        return None
    more = "more" if counted > chips_in_play else "fewer"
    return (f"The counts add up to {counted:,} chips, {abs(counted - chips_in_play):,} {more} than the "
            f"{chips_in_play:,} in play (R-CHIP-3): count again, or give the reason for the difference.")


def deal_points(chip_counts: Mapping[Hashable, int], field_size: int, *, high_roller: bool = False,
                awards_points: bool = True) -> dict[Hashable, tuple[int, int]]:
    """What a deal decides on a night without prizes (R-PTS-7): each player's (position, points)
    from the chip count, most chips 1st; equal counts share the positions they cover and the mean
    of their points, halves up (R-PTS-6). `field_size`: the night's participants (R-PTS-5); points
    are 0 where the event awards none (R-PTS-8)."""
    positions = rank_by_chips(chip_counts)
    sharing = Counter(positions.values())
    decided = {}
    for key, first in positions.items():
        covered = range(first, first + sharing[first])
        points = round_half_up(Fraction(sum(position_points(p, field_size, high_roller) for p in covered),
                                        len(covered))) if awards_points else 0
        decided[key] = (first, points)
    return decided


@dataclass(frozen=True)
class DealOffer:
    """Whole-dollar deal offers for the players left (R-PAY-2), each summing to the unpaid prizes."""

    chip_chop: dict[Hashable, int]
    icm: dict[Hashable, int]


def deal_offers(chip_counts: Mapping[Hashable, int], unpaid_prizes: Sequence[int]) -> DealOffer:
    """Chip-chop and ICM (Malmuth-Harville) splits of the unpaid prize money (R-PAY-2).

    `unpaid_prizes` are the prizes still to be won, 1st first (fewer than the players left
    when some of them would win nothing). Shares are rounded to whole dollars by largest
    remainder (payouts.round_to_dollars) so each offer sums exactly to the unpaid prizes.
    """
    players = len(chip_counts)
    if not 2 <= players <= MAX_DEAL_PLAYERS:
        raise ValueError(f"A deal is for 2 to {MAX_DEAL_PLAYERS} players at the final table, not {players}")
    _check_counts(chip_counts)
    if len(unpaid_prizes) > players:
        raise ValueError(
            f"There are {len(unpaid_prizes)} unpaid prizes but only {players} players left"
        )
    if any(not is_whole(prize) or prize < 0 for prize in unpaid_prizes):
        raise ValueError("Prizes are whole dollars, 0 or more")
    total = sum(unpaid_prizes)
    keys = list(chip_counts)
    stacks = [chip_counts[key] for key in keys]
    chop = payouts.round_to_dollars(payouts.chip_chop(stacks, unpaid_prizes), total)
    equity = payouts.round_to_dollars(icm(stacks, unpaid_prizes), total)
    return DealOffer(dict(zip(keys, chop)), dict(zip(keys, equity)))


def ballot_result(votes: Mapping[Hashable, bool | None], players: Collection[Hashable]) -> DealStatus:
    """The deal ballot's state (R-PAY-2): "agreed", "void" or "open".

    Unanimous or void: "void" as soon as one player votes no, "agreed" only when every
    player left voted yes, "open" while votes are missing (None or absent). Only the
    players left vote.
    """
    if not players:
        raise ValueError("Nobody is left to vote")
    if any(key not in players for key in votes):
        raise ValueError("Only the players left in the game can vote on a deal")
    cast = [votes.get(key) for key in players]
    if any(vote is False for vote in cast):
        return DealStatus.VOID
    if all(vote is True for vote in cast):
        return DealStatus.AGREED
    return DealStatus.OPEN
