"""Stacks and bonus chips: the default stacks and bonus values, the host's decision on a bonus
claim, and the chips in play (R-CHIP-1..3).

The bonus windows of R-CHIP-2 are read off the clock (clock.bonus_window_open). Refusals a host can
trigger raise ValueError, or return a decision with the reason, in words fit for a phone screen.

House decision: one claim of each bonus kind per player per event (R-CHIP-1): a card is handed in once.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from fractions import Fraction

from league.clock import ClockView, bonus_window_open
from league.events import event_type as lookup_event_type
from league.finals import FINALS
from league.numbers import is_whole
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


def chip_count(
    starting_stack: int, entries_in_play: int, bonus_chips: int, removed: int, players_remaining: int,
) -> tuple[int, int | None]:
    """Chips in play and the average stack (R-CHIP-3).

    Chips in play = starting stack x entries whose stacks went into play (busted players'
    chips stay in play: someone won them) + accepted bonuses - chips removed (no-shows,
    disqualifications). Average = chips in play / players remaining, halves up; None when
    nobody remains.
    """
    if starting_stack < 0 or entries_in_play < 0:
        raise ValueError("starting stack and entries cannot be negative")
    chips = chips_in_play(starting_stack * entries_in_play, bonus_chips, removed)
    return chips, average_stack(chips, players_remaining)


# --- Bonus claims (R-CHIP-1, R-CHIP-2) ----------------------------------------------------


WINDOWED_BONUSES = frozenset({"food", "drink"})
WINDOW_REFUSAL = "Food and drink bonuses are taken only before play starts or during the major break"


@dataclass(frozen=True)
class BonusDecision:
    """Whether a bonus claim is accepted, for how many chips, and why (R-CHIP-1, R-CHIP-2)."""

    accepted: bool
    chips: int
    reason: str


def _bonus_value(kind: str, bonus_values: Mapping[str, int]) -> int:
    if kind not in BONUS_KINDS:
        raise ValueError(f"There is no {kind!r} bonus")
    value = bonus_values.get(kind, 0)
    if not is_whole(value) or value < 0:
        raise ValueError(f"The {BONUS_LABELS[kind].lower()} bonus is set to {value!r} chips; fix the league settings")
    return value


def decide_bonus(
    kind: str, event_type: str, bonus_values: Mapping[str, int] | None, clock_view: ClockView | None,
    already_claimed: Collection[str],
) -> BonusDecision:
    """Accept or refuse one player's bonus claim (R-CHIP-1, R-CHIP-2).

    `bonus_values` are the league's chip values for this event type (None: the defaults,
    DEFAULT_BONUS_VALUES); a kind missing or worth 0 is not taken. Food and drink only
    while clock.bonus_window_open (before the clock first starts, or during the major
    break; `clock_view` None means no clock has started). `already_claimed` are the kinds
    this player already had accepted this event: house decision, one of each kind per
    player per event. Refusals say why; an override is `override_bonus`.
    """
    event = lookup_event_type(event_type)
    if bonus_values is None:
        bonus_values = DEFAULT_BONUS_VALUES[event.name]
    value = _bonus_value(kind, bonus_values)
    label = BONUS_LABELS[kind]
    if value == 0:
        return BonusDecision(False, 0, f"{event.label} games don't take {label.lower()} bonuses")
    if kind in already_claimed:
        return BonusDecision(False, 0, f"Already claimed: one {label.lower()} bonus per player per game")
    if kind in WINDOWED_BONUSES and clock_view is not None and not bonus_window_open(clock_view):
        return BonusDecision(False, 0, WINDOW_REFUSAL)
    return BonusDecision(True, value, f"{label} bonus: +{value:,} chips")


def override_bonus(kind: str, bonus_values: Mapping[str, int]) -> BonusDecision:
    """Accept a refused bonus on the host's ruling (R-CHIP-2, R-MEM-2).

    The chips are the kind's value for this event type; the caller records who overrode and
    why. Refused when the kind has no value here: an override needs a chip value.
    """
    value = _bonus_value(kind, bonus_values)
    label = BONUS_LABELS[kind]
    if value == 0:
        raise ValueError(f"{label} bonuses have no chip value in this game; set one in the league settings")
    return BonusDecision(True, value, f"{label} bonus: +{value:,} chips (host's ruling)")
