"""The finals: buy-ins, starting stacks, bonus chips and prizes (R-FIN)."""

from __future__ import annotations

from dataclasses import dataclass

LEAGUE_KINDS = ("cash", "free")

# Spelled out rather than imported from league.chips, which builds its defaults from
# FINALS (importing back would be circular); tests check these are chips.BONUS_KINDS.
_ALL_BUT_MEMBERSHIP = frozenset({"food", "drink", "early_registration", "promotional"})

# R-FIN: High-roller Final regulars (2+ events that month) start deeper.
HIGHROLLER_REGULAR_EVENTS = 2
HIGHROLLER_REGULAR_STACK = 25_000


@dataclass(frozen=True)
class FinalSpec:
    """How one final is run in one kind of league (R-FIN). Money in whole dollars.

    `early_registration_bonus` is the chips added to the starting stack for registering
    24 h before (High-roller Final only); it is not a bonus card, so it is not among
    `bonus_kinds` and cannot be claimed twice. `paid_percent` is None when the prizes
    are fixed (`fixed_prizes`, 1st first).
    """

    event_type: str
    league_kind: str
    buy_in: int
    starting_stack: int
    bonus_kinds: frozenset[str]
    early_registration_bonus: int
    guarantee: int
    paid_percent: int | None
    fixed_prizes: tuple[int, ...]


def _highroller_final(league_kind: str) -> FinalSpec:
    # The rule sheet describes one High-roller Final for both kinds of league.
    return FinalSpec("highroller_final", league_kind, buy_in=105, starting_stack=20_000,
                     bonus_kinds=frozenset(), early_registration_bonus=2_000,
                     guarantee=500, paid_percent=10, fixed_prizes=())


def _shootout(league_kind: str) -> FinalSpec:
    return FinalSpec("top10_shootout", league_kind, buy_in=55, starting_stack=40_000,
                     bonus_kinds=frozenset(), early_registration_bonus=0,
                     guarantee=0, paid_percent=None, fixed_prizes=(1_000, 500))


FINALS: dict[tuple[str, str], FinalSpec] = {
    (spec.event_type, spec.league_kind): spec
    for spec in (
        FinalSpec("monthly_final", "cash", buy_in=30, starting_stack=10_000,
                  bonus_kinds=_ALL_BUT_MEMBERSHIP, early_registration_bonus=0,
                  guarantee=500, paid_percent=10, fixed_prizes=()),
        # Free-to-play: $300 cash to the winner, a prize worth $100 (a massage) to 2nd.
        FinalSpec("monthly_final", "free", buy_in=0, starting_stack=6_000,
                  bonus_kinds=_ALL_BUT_MEMBERSHIP, early_registration_bonus=0,
                  guarantee=0, paid_percent=None, fixed_prizes=(300, 100)),
        _highroller_final("cash"),
        _highroller_final("free"),
        _shootout("cash"),
        _shootout("free"),
    )
}


def final_spec(event_type: str, league_kind: str) -> FinalSpec:
    """The spec of final `event_type` in a `league_kind` ("cash"/"free") league (R-FIN)."""
    try:
        return FINALS[(event_type, league_kind)]
    except KeyError:
        finals = sorted({name for name, _ in FINALS})
        raise ValueError(
            f"no final {event_type!r} for a {league_kind!r} league "
            f"(finals: {', '.join(finals)}; leagues: {', '.join(LEAGUE_KINDS)})"
        ) from None


def starting_stack(
    event_type: str,
    league_kind: str,
    events_played_in_month: int = 0,
    registered_24h_before: bool = False,
) -> int:
    """A player's starting stack in a final, before bonus cards (R-FIN).

    High-roller Final: 25,000 instead of 20,000 for a player with 2+ events that month,
    plus 2,000 for registering 24 h before. Other finals: their spec's stack.
    """
    if events_played_in_month < 0:
        raise ValueError(f"events played cannot be negative, not {events_played_in_month}")
    spec = final_spec(event_type, league_kind)
    stack = spec.starting_stack
    if event_type == "highroller_final" and events_played_in_month >= HIGHROLLER_REGULAR_EVENTS:
        stack = HIGHROLLER_REGULAR_STACK
    if registered_24h_before:
        stack += spec.early_registration_bonus
    return stack
