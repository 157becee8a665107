"""Warnings and penalties on the floor (R-PEN-1..3): how many hands a penalty keeps a player away,
when they are estimated back, and their earlier infractions as the host sees them before a new one.

Hands are not counted in a self-dealt pub game (R-PEN-2), so a penalty's length is turned into a
time from the hands-per-hour league setting: hands × 60 / hands per hour minutes, rounded up to a
whole minute (an estimate the host may end early or extend)."""
from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from league.statuses import PenaltyKind

DEFAULT_HANDS_PER_HOUR = 30  # R-PEN-2's default; league setting settings["hands_per_hour"]
MAX_HANDS_PER_HOUR = 200
MAX_ROUNDS = 4  # R-PEN-1: 1–4 rounds in THPA's conditions
MAX_PENALTY_HANDS = 100  # a missed-hand penalty or an extension longer than this is a typing slip

LABELS: dict[str, str] = {
    PenaltyKind.WARNING: "Verbal warning",
    PenaltyKind.MISSED_HANDS: "Missed-hand penalty",
    PenaltyKind.MISSED_ROUNDS: "Missed-round penalty",
    PenaltyKind.DISQUALIFICATION: "Disqualification",
}


def hands_per_hour(settings: Mapping[str, Any] | None) -> int:
    """R-PEN-2: the league's hands-per-hour setting (`settings["hands_per_hour"]`), a whole number
    from 1 to 200; the default 30 when it is missing or not one."""
    value = (settings or {}).get("hands_per_hour", DEFAULT_HANDS_PER_HOUR)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_HANDS_PER_HOUR:
        return DEFAULT_HANDS_PER_HOUR
    return value


def round_hands(table_size: int, rounds: int) -> int:
    """R-PEN-1: a missed-round penalty is one hand for every player at the table when it is given,
    times the number of rounds (1–4): 2 rounds at a table of 9 are 18 hands."""
    if not 1 <= rounds <= MAX_ROUNDS:
        raise ValueError(f"A missed-round penalty is 1 to {MAX_ROUNDS} rounds, not {rounds}.")
    if table_size < 1:
        raise ValueError("A table has at least the player on it.")
    return table_size * rounds


def penalty_hands(kind: str, *, hands: int | None = None, rounds: int | None = None,
                  table_size: int | None = None) -> int:
    """R-PEN-1: the hands a penalty keeps the player away: none for a warning or a disqualification,
    `hands` (1–100) for a missed-hand penalty, round_hands for a missed-round one. ValueError, in the
    host's words, for anything else."""
    if kind in (PenaltyKind.WARNING, PenaltyKind.DISQUALIFICATION):
        return 0
    if kind == PenaltyKind.MISSED_HANDS:
        if hands is None or not 1 <= hands <= MAX_PENALTY_HANDS:
            raise ValueError(f"Give the hands to miss as a whole number from 1 to {MAX_PENALTY_HANDS}.")
        return hands
    if kind == PenaltyKind.MISSED_ROUNDS:
        if rounds is None:
            raise ValueError(f"Give the rounds to miss, 1 to {MAX_ROUNDS}.")
        return round_hands(table_size or 1, rounds)
    raise ValueError("Pick a warning, a missed-hand or missed-round penalty, or a disqualification.")


def away_minutes(hands: int, per_hour: int = DEFAULT_HANDS_PER_HOUR) -> int:
    """R-PEN-2: the estimated minutes `hands` hands take at `per_hour` hands an hour, rounded up to a
    whole minute: 18 hands at 30 an hour are 36 minutes; 5 hands are 10."""
    if hands < 0 or per_hour < 1:
        raise ValueError("hands cannot be negative and a table plays at least a hand an hour")
    return math.ceil(hands * 60 / per_hour)


def return_time(given_at: dt.datetime, hands: int, per_hour: int = DEFAULT_HANDS_PER_HOUR) -> dt.datetime:
    """R-PEN-2: when a player given a penalty of `hands` hands at `given_at` is estimated back."""
    return given_at + dt.timedelta(minutes=away_minutes(hands, per_hour))


def in_force(until: dt.datetime | None, ended_at: dt.datetime | None, now: dt.datetime) -> bool:
    """R-PEN-2: whether a penalty still keeps its player away at `now`: it has a return time still
    ahead and the host has not ended it early."""
    return until is not None and ended_at is None and now < until


def describe(kind: str, hands: int | None = None, rounds: int | None = None) -> str:
    """R-PEN-1: a penalty in the host's words: "Verbal warning", "Missed 3 hands", "Missed 2 rounds
    (18 hands)", "Disqualified"."""
    if kind == PenaltyKind.MISSED_HANDS:
        return f"Missed {hands} hand{'s' if hands != 1 else ''}"
    if kind == PenaltyKind.MISSED_ROUNDS:
        return f"Missed {rounds} round{'s' if rounds != 1 else ''} ({hands} hands)"
    if kind == PenaltyKind.DISQUALIFICATION:
        return "Disqualified"
    return LABELS.get(kind, kind)


@dataclass(frozen=True)
class Infraction:
    """One earlier warning or penalty of a player (R-PEN-3), as its record has it."""
    kind: str
    at: dt.datetime
    event_id: int
    reason: str
    hands: int | None = None
    rounds: int | None = None
    where: str = ""  # the night's venue and date, for one from another night

    @property
    def label(self) -> str:
        return describe(self.kind, self.hands, self.rounds)


@dataclass(frozen=True)
class History:
    """R-PEN-3: a player's earlier infractions, newest first: tonight's, and the rest of the month's."""
    tonight: tuple[Infraction, ...]
    this_month: tuple[Infraction, ...]

    @property
    def count(self) -> int:
        return len(self.tonight) + len(self.this_month)

    @property
    def summary(self) -> str:
        """What the host reads first: "First infraction" or "2 tonight, 1 earlier this month"."""
        if not self.count:
            return "No earlier warnings or penalties this month."
        parts = []
        if self.tonight:
            parts.append(f"{len(self.tonight)} tonight")
        if self.this_month:
            parts.append(f"{len(self.this_month)} earlier this month")
        return "Earlier warnings and penalties: " + ", ".join(parts) + "."


def history(infractions: Iterable[Infraction], event_id: int) -> History:
    """R-PEN-3: shape a player's infractions this month (those of event `event_id`, tonight, and of
    the month's other nights) for the host giving a new one, newest first in each."""
    ordered = sorted(infractions, key=lambda i: i.at, reverse=True)
    return History(tuple(i for i in ordered if i.event_id == event_id),
                   tuple(i for i in ordered if i.event_id != event_id))
