"""Stacks and bonus chips: the parts that need no clock (R-CHIP-1, R-CHIP-3).

The bonus windows of R-CHIP-2 depend on the clock and live with it.
"""

from __future__ import annotations

from fractions import Fraction

from league.finals import FINALS
from league.points import round_half_up
from league.statuses import LeagueKind

BONUS_KINDS = ("membership", "food", "drink", "early_registration", "promotional")
BONUS_LABELS: dict[str, str] = {
    "membership": "Membership card",
    "food": "Food",
    "drink": "Drink",
    "early_registration": "Early registration",
    "promotional": "Promotional",
}

_NIGHTLY_BONUS_VALUES = {
    "membership": 1_000,
    "food": 1_000,
    "drink": 500,
    "early_registration": 1_000,
    "promotional": 1_000,
}

# League setting defaults (R-CHIP-1); an organiser may change any of them per league.
# Finals use the cash-league spec; a free-to-play league's Monthly Final starts at 6,000
# (see league.finals).
DEFAULT_STARTING_STACKS: dict[str, int] = {
    "nightly": 10_000,
    "highroller": 20_000,
    "monthly_final": FINALS[("monthly_final", LeagueKind.CASH)].starting_stack,
    "highroller_final": FINALS[("highroller_final", LeagueKind.CASH)].starting_stack,
    "top10_shootout": FINALS[("top10_shootout", LeagueKind.CASH)].starting_stack,
}


def _final_bonus_values(event_type: str) -> dict[str, int]:
    # The rule sheet gives finals a list of accepted cards but no values: house
    # decision, a card is worth what it is worth at a nightly game.
    accepted = FINALS[(event_type, LeagueKind.CASH)].bonus_kinds
    return {kind: value for kind, value in _NIGHTLY_BONUS_VALUES.items() if kind in accepted}


# League setting defaults (R-CHIP-1): chip value of each accepted bonus kind per event
# type; a kind missing from an event type is refused there. High-roller games take no
# bonus cards (R-FIN lists none for its final either).
DEFAULT_BONUS_VALUES: dict[str, dict[str, int]] = {
    "nightly": dict(_NIGHTLY_BONUS_VALUES),
    "highroller": {},
    "monthly_final": _final_bonus_values("monthly_final"),
    "highroller_final": _final_bonus_values("highroller_final"),
    "top10_shootout": _final_bonus_values("top10_shootout"),
}


def chips_in_play(starting_stacks: int, accepted_bonuses: int, removed: int) -> int:
    """Chips in play = starting stacks + accepted bonuses - chips removed (R-CHIP-3).

    Chips are removed for no-shows and disqualifications.
    """
    for name, value in (("starting stacks", starting_stacks),
                        ("accepted bonuses", accepted_bonuses), ("removed", removed)):
        if value < 0:
            raise ValueError(f"{name} cannot be negative, not {value}")
    total = starting_stacks + accepted_bonuses - removed
    if total < 0:
        raise ValueError(f"removing {removed} chips leaves fewer than none in play")
    return total


def average_stack(chips: int, players_remaining: int) -> int | None:
    """Average stack in whole chips, halves rounded up; None when nobody remains (R-CHIP-3)."""
    if chips < 0 or players_remaining < 0:
        raise ValueError("chips and players remaining cannot be negative")
    if players_remaining == 0:
        return None
    return round_half_up(Fraction(chips, players_remaining))
