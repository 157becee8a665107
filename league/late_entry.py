"""Late entry and pre-registration: whether a player may enter now, the missed blinds owed on
arrival, and the pre-registered players still absent at the final table (R-LATE-1..4).

Pure functions over plain values: a refusal a player or host can trigger comes back as a decision
with the reason, in words fit for a phone screen; impossible figures raise ValueError.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping
from dataclasses import dataclass, field

from league.clock import ClockView, missed_blinds
from league.numbers import is_whole
from league.points import Finish, key_order
from league.statuses import EntryStatus
from league.structures import Level, Structure, play_starts_ms

ENTRY_CLOSED = "Check-in is closed: the major break has started. The host can let you in with a reason."


def one_game_at_a_time(venue: str, name: str | None = None) -> str:
    """R-LATE-4's refusal, said to the player (`name` None: "You") or to the host about them."""
    who = "You are" if name is None else f"{name} is"
    return f"{who} still in the game at {venue}: one game at a time."


@dataclass(frozen=True)
class EntryDecision:
    """Whether a player may enter now (R-LATE-1, R-LATE-4): `reason` says why not, or that entries
    are open; `overridable` when the host may let them in anyway with a reason (R-LATE-1 only:
    one game at a time has no override)."""

    accepted: bool
    reason: str
    overridable: bool = False


def entry_decision(clock_view: ClockView | None, live_game_venue: str | None = None,
                   name: str | None = None) -> EntryDecision:
    """Whether a player may enter now, and the message (R-LATE-1, R-LATE-4).

    A player still in another live game (at `live_game_venue`) cannot enter: one game at a time.
    Otherwise entries close once the major break commences (clock_view.registration_open); the
    host may override that with a reason, which the caller records. `clock_view` None: no clock
    yet, so open. `name` is who the message speaks of (None: the player, "You").
    """
    if live_game_venue is not None:
        return EntryDecision(False, one_game_at_a_time(live_game_venue, name))
    if clock_view is not None and not clock_view.registration_open:
        return EntryDecision(False, ENTRY_CLOSED, overridable=True)
    if clock_view is None or not clock_view.started:
        return EntryDecision(True, "Entries are open")
    return EntryDecision(True, "Entries are open until the major break")


def missed_blinds_proposal(structure: Structure, clock_view: ClockView) -> tuple[int, str]:
    """The missed-blinds deduction for a pre-registered player arriving now, explained (R-LATE-3).

    The figure is clock.missed_blinds: small blind + big blind + ante of every level begun
    before arrival (one round per level). The text lists them for the host's screen, e.g.
    "Levels 1–3 started before you arrived: 25+50, 50+100, 100+200 = 525 chips". The host
    confirms or edits the figure.
    """
    owed = missed_blinds(structure, clock_view.play_elapsed_ms)
    begun: list[Level] = [
        item for item, start in zip(structure, play_starts_ms(structure))
        if isinstance(item, Level) and start < clock_view.play_elapsed_ms
    ]
    if not begun:
        return 0, "No level had started before you arrived: nothing to deduct"
    parts = []
    for level in begun:
        blinds = [level.small_blind, level.big_blind] + ([level.ante] if level.ante else [])
        parts.append("+".join(f"{amount:,}" for amount in blinds))
    levels = "Level 1" if len(begun) == 1 else f"Levels 1–{len(begun)}"
    return owed, f"{levels} started before you arrived: {', '.join(parts)} = {owed:,} chips"


@dataclass(frozen=True)
class Absentees:
    """Pre-registered players still absent when the final table forms (R-LATE-3, R-CHIP-3).

    `players` become no-shows (no points, not in the field); `chips_removed` leave play, each
    player's share in `removed` (their starting stack plus bonuses already accepted for them).
    """

    players: tuple[Hashable, ...]
    chips_removed: int
    removed: Mapping[Hashable, int] = field(default_factory=dict, compare=False)

    @property
    def finishes(self) -> tuple[Finish, ...]:
        """Their results: no-shows, with no position (R-PTS-5)."""
        return tuple(Finish(player, None, EntryStatus.NO_SHOW) for player in self.players)


def absent_at_final_table(
    preregistered: Iterable[Hashable], arrived: Collection[Hashable], starting_stack: int,
    bonus_chips: Mapping[Hashable, int] | None = None, own_stacks: Mapping[Hashable, int] | None = None,
) -> Absentees:
    """Remove the pre-registered players who have not arrived by the final table (R-LATE-3).

    Their stacks were in play from the start, untouched (missed blinds are deducted only on
    arrival), so each takes out the starting stack plus any bonus already accepted for them
    (early registration, say). They forfeit the buy-in, earn no points and do not count in
    the field. `own_stacks`: a player's own starting stack where it differs from `starting_stack`
    (R-FIN's High-roller Final).
    """
    bonus_chips, own_stacks = bonus_chips or {}, own_stacks or {}
    if not is_whole(starting_stack) or starting_stack < 0:
        raise ValueError(f"impossible starting stack {starting_stack!r}")
    absent = [player for player in dict.fromkeys(preregistered) if player not in arrived]
    order = key_order(absent)
    absent.sort(key=order.__getitem__)
    removed = {player: own_stacks.get(player, starting_stack) + bonus_chips.get(player, 0) for player in absent}
    return Absentees(tuple(absent), sum(removed.values()), removed)
