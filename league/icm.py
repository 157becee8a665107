"""ICM (Malmuth-Harville) deal equity for the final table (R-PAY-2)."""

from __future__ import annotations

from collections.abc import Sequence


def icm(stacks: Sequence[int], prizes: Sequence[float]) -> list[float]:
    """Each player's Malmuth-Harville prize equity (R-PAY-2).

    A player with stack s finishes first among the players still to be placed, S, with
    probability s / sum(S); the rest are then placed the same way. Computed exactly by
    dynamic programming over the set of players already placed (O(2^n * n)), not by
    enumerating the n! finishing orders. `prizes` (1st first) shorter than the players
    are padded with 0, longer ones cut. When only players with no chips are left to
    place, each is equally likely to take the next place, so empty stacks share the
    lowest places. ValueError for a negative stack or prize.
    """
    chips = list(stacks)
    if any(stack < 0 for stack in chips):
        raise ValueError("a stack cannot be negative")
    if any(prize < 0 for prize in prizes):
        raise ValueError("a prize cannot be negative")
    players = len(chips)
    paid = [float(prize) for prize in prizes[:players]] + [0.0] * (players - len(prizes))
    # Places after the last paying one change nobody's equity, so stop there.
    places = players
    while places and paid[places - 1] == 0.0:
        places -= 1
    equity = [0.0] * players
    if places == 0:
        return equity

    bits = [1 << player for player in range(players)]
    total = sum(chips)
    placed_chips = [0] * (1 << players)
    for placed in range(1, 1 << players):
        lowest = placed & -placed
        placed_chips[placed] = placed_chips[placed ^ lowest] + chips[lowest.bit_length() - 1]

    # reach[placed]: probability that exactly the players in `placed` took the top places.
    # Masks only grow, so visiting them in increasing order sees each one complete.
    reach = [0.0] * (1 << players)
    reach[0] = 1.0
    for placed in range(1 << players):
        chance = reach[placed]
        if chance == 0.0:
            continue
        place = placed.bit_count()
        if place >= places:
            continue
        prize = paid[place]
        left = total - placed_chips[placed]
        if left > 0:
            for player in range(players):
                bit = bits[player]
                if placed & bit or not chips[player]:
                    continue
                step = chance * chips[player] / left
                equity[player] += step * prize
                reach[placed | bit] += step
        else:
            empty = [player for player in range(players) if not placed & bits[player]]
            step = chance / len(empty)
            for player in empty:
                equity[player] += step * prize
                reach[placed | bits[player]] += step
    return equity
