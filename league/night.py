"""The host's decisions through one night: bust-outs, disqualifications, deals, bonus chips,
late entry, chips in play and prizes (R-PTS-5..7, R-PAY-1..2, R-CHIP-1..3, R-LATE-1..4).

Pure functions over plain values; the web layer stores what they decide and records who did
it. Refusals a host (or a player's phone) can trigger raise ValueError, or return a decision
with the reason, in words fit for a phone screen.

House decisions:
- One claim of each bonus kind per player per event (R-CHIP-1): a card is handed in once.
- A disqualified player's prize stays in the pool: prizes are paid down the order of the
  players who were not disqualified (R-PTS-5).
- A deal is offered to 2 to MAX_DEAL_PLAYERS players (R-PAY-2: the final table).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from league import payouts
from league.chips import BONUS_KINDS, BONUS_LABELS, DEFAULT_BONUS_VALUES, average_stack, chips_in_play
from league.clock import ClockView, bonus_window_open, missed_blinds
from league.events import event_type as lookup_event_type
from league.icm import icm
from league.numbers import is_whole
from league.points import Finish, check_finishing_order, key_order, rank_by_chips
from league.statuses import DealStatus, EntryStatus
from league.structures import Level, Structure, play_starts_ms

# R-PAY-2 deals are made at the final table; ICM's exact computation doubles in cost with
# every player (2^n), and 12 is more than any final table while still instant.
MAX_DEAL_PLAYERS = 12
WINDOWED_BONUSES = frozenset({"food", "drink"})
WINDOW_REFUSAL = "Food and drink bonuses are taken only before play starts or during the major break"




def _name(key: Hashable, names: Mapping[Hashable, str] | None) -> str:
    if names and key in names:
        return names[key]
    return "That player"


def _chips(amount: int) -> str:
    return f"{amount:,}"


# --- Bust-outs and disqualification (R-PTS-5, R-PTS-6) ------------------------------------


# One wording per refusal: the host's phone shows these as they are.
NOBODY_OUT = "Tap the players who are out."
SOMEONE_WINS = "Someone has to win: leave at least one player in."
STACKS_NEEDED = "Several out in one hand: give each one's chips at the start of the hand."


def check_bust(
    busted: Collection[Hashable], remaining: Collection[Hashable], out: Collection[Hashable] = (),
    names: Mapping[Hashable, str] | None = None, stacks: Mapping[Hashable, int | None] | None = None,
) -> None:
    """Refuse an impossible bust-out before any position is given (R-PTS-5, R-PTS-6).

    `busted` are the players the host taps out in one hand, `remaining` everyone still playing
    (them included), `out` those already out, `names` what to call players in messages, `stacks`
    their chips at the start of the hand. Refused: nobody chosen; a player chosen twice; a player
    already out (two hosts tapping at once: the second is refused) or not in this game; everyone
    left (someone wins the pot, so the last player standing can't go out); several out in one hand
    without each one's stack (R-PTS-6 orders them by it).
    """
    busted = list(busted)
    if not busted:
        raise ValueError(NOBODY_OUT)
    if len(set(busted)) != len(busted):
        raise ValueError("A player is chosen twice.")
    remaining = set(remaining)
    for key in busted:
        if key in remaining:
            continue
        if key in out:
            raise ValueError(f"{_name(key, names)} is already out: not in the game.")
        raise ValueError(f"{_name(key, names)} is not in the game.")
    if len(busted) >= len(remaining):
        raise ValueError(SOMEONE_WINS)
    if len(busted) > 1 and stacks is not None and any(
            not is_whole(stacks.get(key)) or stacks[key] < 0 for key in busted):
        raise ValueError(STACKS_NEEDED)


def bust_positions(players_left: int, stacks: Mapping[Hashable, int]) -> dict[Hashable, int]:
    """Finishing positions for the players busted in one hand (R-PTS-5, R-PTS-6).

    `players_left` is the count before the hand; `stacks` each busted player's chips at the
    start of the hand. They take the worst positions still open: one bust-out takes position
    `players_left`; k of them take players_left - k + 1 .. players_left, the larger stack
    finishing higher and equal stacks sharing the best of the positions they cover (TDA 22).
    With 8 left, stacks 5,000 and 3,000 finish 7th and 8th; two of 4,000 both finish 7th.
    """
    if not is_whole(players_left) or players_left < 1:
        raise ValueError(f"impossible number of players left {players_left!r}")
    if not stacks:
        raise ValueError(NOBODY_OUT)
    if len(stacks) >= players_left:
        raise ValueError(SOMEONE_WINS)
    return rank_by_chips(stacks, best_position=players_left - len(stacks) + 1)


def dq_position(players_left: int) -> int:
    """A disqualified player's position: the worst still open, `players_left` (R-PTS-5).

    They count in the field with 0 points (points.award_points, status "dq") and no prize
    (`prizes_for`).
    """
    if not is_whole(players_left) or players_left < 1:
        raise ValueError("Nobody is left in the game to disqualify")
    return players_left


# --- Deals (R-PTS-7, R-PAY-2) --------------------------------------------------------------


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


# --- Bonus chips (R-CHIP-1, R-CHIP-2) ------------------------------------------------------


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
    chips.DEFAULT_BONUS_VALUES); a kind missing or worth 0 is not taken. Food and drink only
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
    return BonusDecision(True, value, f"{label} bonus: +{_chips(value)} chips")


def override_bonus(kind: str, bonus_values: Mapping[str, int]) -> BonusDecision:
    """Accept a refused bonus on the host's ruling (R-CHIP-2, R-MEM-2).

    The chips are the kind's value for this event type; the caller records who overrode and
    why. Refused when the kind has no value here: an override needs a chip value.
    """
    value = _bonus_value(kind, bonus_values)
    label = BONUS_LABELS[kind]
    if value == 0:
        raise ValueError(f"{label} bonuses have no chip value in this game; set one in the league settings")
    return BonusDecision(True, value, f"{label} bonus: +{_chips(value)} chips (host's ruling)")


# --- Late entry (R-LATE-1..4) --------------------------------------------------------------


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
        parts.append("+".join(_chips(amount) for amount in blinds))
    levels = "Level 1" if len(begun) == 1 else f"Levels 1–{len(begun)}"
    return owed, f"{levels} started before you arrived: {', '.join(parts)} = {_chips(owed)} chips"


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


# --- Chips in play (R-CHIP-3) --------------------------------------------------------------


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


# --- Settling: prizes (R-PAY-1, R-PTS-5, R-PTS-6) ------------------------------------------


def prize_table(field_size: int, pool: int, percent: int = 10, table: Mapping | None = None) -> list[int]:
    """Whole-dollar prizes for the paid places, 1st first (R-PAY-1).

    Paid places = `percent` % of the field rounded down, at least 1 (payouts.paid_places),
    split by the league's payout table or the house's (payouts.payouts), remainder to 1st.
    """
    return payouts.payouts(pool, payouts.paid_places(field_size, percent), table)


def prizes_for(
    positions: Mapping[Hashable, int], statuses: Mapping[Hashable, str], prize_table: Sequence[int],
) -> dict[Hashable, int]:
    """Each finisher's prize in whole dollars (R-PAY-1, R-PTS-5, R-PTS-6).

    `positions` are the finishing positions (ties shared, 1, 2, 2, 4) of everyone who took a
    seat; `statuses` "played" (the default when missing) or "dq". A disqualified player gets
    0. House decision: their prize stays in the pool, paid down the order of the others:
    the players who were not disqualified are re-ranked among themselves, keeping their
    order and ties, and paid by that rank, tied players sharing the prizes of the places
    they cover (payouts.share_tied_prizes).
    """
    check_finishing_order(positions.values())
    for status in statuses.values():
        if status not in (EntryStatus.PLAYED, EntryStatus.DQ):
            raise ValueError(f"A prize needs status played or dq, not {status!r}")
    if any(not is_whole(amount) or amount < 0 for amount in prize_table):
        raise ValueError("Prizes are whole dollars, 0 or more")
    paid = {key: position for key, position in positions.items()
            if statuses.get(key, EntryStatus.PLAYED) != EntryStatus.DQ}
    ranks = sorted(paid.values())
    # Rank among the paid = 1 + how many of them finished strictly higher: order and ties kept.
    first_index = {}
    for index, position in enumerate(ranks):
        first_index.setdefault(position, index)
    reranked = {key: first_index[position] + 1 for key, position in paid.items()}
    prizes = payouts.share_tied_prizes(prize_table, reranked)
    return {key: prizes.get(key, 0) for key in positions}
