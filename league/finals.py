"""The finals: buy-ins, starting stacks, bonus chips and prizes (R-FIN)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from league.qualify import may_enter_final
from league.statuses import LeagueKind, TicketState, values

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
        FinalSpec("monthly_final", LeagueKind.CASH, buy_in=30, starting_stack=10_000,
                  bonus_kinds=_ALL_BUT_MEMBERSHIP, early_registration_bonus=0,
                  guarantee=500, paid_percent=10, fixed_prizes=()),
        # Free-to-play: $300 cash to the winner, a prize worth $100 (a massage) to 2nd.
        FinalSpec("monthly_final", LeagueKind.FREE, buy_in=0, starting_stack=6_000,
                  bonus_kinds=_ALL_BUT_MEMBERSHIP, early_registration_bonus=0,
                  guarantee=0, paid_percent=None, fixed_prizes=(300, 100)),
        _highroller_final(LeagueKind.CASH),
        _highroller_final(LeagueKind.FREE),
        _shootout(LeagueKind.CASH),
        _shootout(LeagueKind.FREE),
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
            f"(finals: {', '.join(finals)}; leagues: {', '.join(values(LeagueKind))})"
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


# --- Who may enter a final (R-QUAL-3..5) ---------------------------------------------------

FINAL_LABELS = {"monthly_final": "Monthly Final", "highroller_final": "High-roller Final",
                "top10_shootout": "Top-10 Shoot-out"}


def qualifying_month(event_date: dt.date, stored_month: str | None = None) -> str:
    """The month (YYYY-MM) whose qualifiers a final is for (R-QUAL-1..5).

    House decision: a final is held after the month it closes, so by default it is for the
    calendar month before its date; an organiser may store another month on the event.
    """
    if stored_month:
        return stored_month
    previous = event_date.replace(day=1) - dt.timedelta(days=1)
    return previous.strftime("%Y-%m")


def final_month_problem(event_date: dt.date, month: str) -> str | None:
    """Why `month` (YYYY-MM, as typed) cannot be the month a final on `event_date` is for, or None
    (R-QUAL-1..5): it must be a real month, and one that has begun by the final's date (its
    qualifiers are known from nights already played)."""
    text = month.strip()
    try:
        first = dt.date.fromisoformat(f"{text}-01") if len(text) == 7 and text[4] == "-" else None
    except ValueError:
        first = None
    if first is None:
        return f"{text!r} is not a month: give it as YYYY-MM (2026-11 for November 2026)"
    if first > event_date.replace(day=1):
        return (f"the final on {event_date.isoformat()} can't be for {month_label(text)}: "
                "that month's nights are not played yet")
    if event_date.year - first.year > 1:
        return f"{month_label(text)} is more than a year before the final"
    return None


def month_label(month: str) -> str:
    """"2026-11" as "November 2026"."""
    return dt.date.fromisoformat(f"{month}-01").strftime("%B %Y")


@dataclass(frozen=True)
class Standing:
    """What a player holds for one month, read by the caller (R-QUAL-1..5).

    `ticket` is a TicketState: none, unused or used (presented at a final already, R-QUAL-3);
    `events_played` counts the league events they played that month (R-QUAL-5);
    `shootout` says whether they are among the Top-10 Shoot-out's qualifiers (R-QUAL-4);
    `new_member` is a member with no game behind them at all.
    """

    events_played: int = 0
    ticket: str = TicketState.NONE
    shootout: bool = False
    new_member: bool = False


@dataclass(frozen=True)
class Admission:
    """Whether a player may enter a final, and if not why (said to them) under which rule."""

    admitted: bool
    reason: str = ""
    rule_id: str = ""


ADMITTED = Admission(True)


def admission(event_type: str, month: str, standing: Standing) -> Admission:
    """Whether a player may enter final `event_type` for `month` (R-QUAL-3, R-QUAL-4, R-QUAL-5).

    Monthly Final: an unused ticket of that month (presented once, R-QUAL-3). Top-10 Shoot-out:
    a qualifier of that month's table (R-QUAL-4). High-roller Final: at least one event that
    month (R-QUAL-5), which every final asks. A brand-new member qualifies for none. Every
    refusal is one the host may override with a reason (the caller records the ruling).
    """
    label = FINAL_LABELS.get(event_type)
    if label is None:
        raise ValueError(f"{event_type!r} is not a final (finals: {', '.join(FINAL_LABELS)})")
    when = month_label(month)
    if standing.new_member:
        return Admission(False, f"New members can't enter the {label}: it is for {when}'s qualifiers. "
                                "Join at a nightly game.", "R-QUAL-5")
    if event_type == "monthly_final":
        if standing.ticket == TicketState.NONE:
            return Admission(False, f"No Monthly Final ticket for {when}: tickets come from a top-5 "
                                    "finish in a nightly game", "R-QUAL-3")
        if standing.ticket == TicketState.USED:
            return Admission(False, f"The Monthly Final ticket for {when} has already been presented: "
                                    "a ticket admits once", "R-QUAL-3")
    if event_type == "top10_shootout" and not standing.shootout:
        return Admission(False, f"Not in the Top-10 Shoot-out for {when}: it is for the ten highest "
                                "monthly point scorers, and anyone tied with 10th", "R-QUAL-4")
    if not may_enter_final(standing.events_played):
        return Admission(False, f"No games played in {when}: the {label} needs at least one event "
                                "that month", "R-QUAL-5")
    return ADMITTED


EARLY_REGISTRATION_AHEAD = dt.timedelta(hours=24)


def registered_early(registered_at: dt.datetime, starts_at: dt.datetime) -> bool:
    """Whether a registration at `registered_at` was 24 h or more before the start (R-FIN's
    High-roller Final +2,000). Both in the same clock (the caller's, e.g. UTC)."""
    return registered_at <= starts_at - EARLY_REGISTRATION_AHEAD
