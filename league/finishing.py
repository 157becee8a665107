"""Finishing positions: one hand's bust-outs and a disqualification checked and placed, and the
night's whole record placed in the field as it finally stands (R-PTS-5, R-PTS-6, R-PTS-7, R-LATE-2,
R-LATE-3, R-ENTRY-2).

One derivation, redone from the whole record whenever it changes (a bust-out, a late entrant, a
disqualification, a deal, an undo): the caller gives the field and the eliminations in order,
and gets every position back. Positions depend only on the order of elimination and the size of
the final field, never on when each player checked in: of a field of N the first player out
finishes N-th, so a late entrant who takes a seat after someone has busted pushes that earlier
bust-out one place down (R-PTS-5). Each step reuses a one-step rule (`bust_positions`,
`dq_position`, and league.deals' `deal_positions`), so a night without late entrants gets exactly
the positions it got before.

Pure functions over plain values; refusals raise ValueError in words fit for a phone screen.

House decisions:
- The field is the distinct players who have taken a seat so far: the starting field, late
  entrants (R-LATE-2) and pre-registered players once they arrive (R-LATE-3). A pre-registered
  player still awaited is not in it, and one removed as a no-show at the final table never is:
  they have no position (`Finishing.finishes` lists them as no-shows). A player listed twice
  counts once: the field counts players, not entries (R-ENTRY-2).
- Check-ins are not part of the record, since their timing changes no position. So a record is
  checked against the field as given: a hand must leave at least one player of that field in.
- A disqualification is a one-player elimination: it takes the worst position still open at
  that point of the elimination order (R-PTS-5), and moves down like a bust-out when late
  entrants arrive. Disqualifying the last player left gives them 1st (0 points, and their prize
  goes down the order: payouts.prizes_for). A disqualified player cannot re-enter.
- Players still in have no position yet: they are returned apart (`Finishing.still_in`).
  Together they cover the best places, so the positions given plus the players still in sharing
  1st always form a valid finishing order. Once one player alone is left they are 1st; a deal
  (R-PTS-7) gives every player left a position from the chip count; after either the night is
  `over` and its finishes feed points.award_points.
- A deal ends the record: it is given apart, for the two or more players left, each with at
  least one chip. Play after a deal changes no points position, so no hand follows it.
- A lone bust-out's stack may be unknown (None): it decides nothing. Several out in one hand
  need each one's stack at the start of the hand (R-PTS-6).
- Re-entry (R-ENTRY-1, R-ENTRY-2): a `ReEntry` in the record supersedes the player's earlier
  elimination, so they have one position, from their last entry, and the field does not grow.
  A rebuy is not an elimination: record nothing for it.
- Positions are provisional while registration is open, while re-entry is open, and while a
  pre-registered player is still awaited: they may arrive after registration closes (R-LATE-3)
  and then push earlier bust-outs down like any late entrant (`positions_provisional`).
- Deterministic: positions are listed best first, players sharing a position and the players
  still in by points.key_order, whatever order the field was given in.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from league.deals import deal_positions
from league.numbers import is_whole
from league.points import Finish, key_order, rank_by_chips
from league.statuses import EntryStatus


def _name(key: Hashable, names: Mapping[Hashable, str] | None) -> str:
    if names and key in names:
        return names[key]
    return "That player"


# --- One hand, one disqualification (R-PTS-5, R-PTS-6) -----------------------------------


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
    (payouts.prizes_for).
    """
    if not is_whole(players_left) or players_left < 1:
        raise ValueError("Nobody is left in the game to disqualify")
    return players_left


# --- The whole record (R-PTS-5..7, R-LATE-2, R-LATE-3, R-ENTRY-2) ---------------------------


@dataclass(frozen=True)
class Hand:
    """Players out in one hand, each with their chips at the start of that hand (R-PTS-6).

    A player alone may have stack None (unknown: it decides nothing).
    """

    stacks: Mapping[Hashable, int | None]

    @classmethod
    def alone(cls, player: Hashable, stack: int | None = None) -> Hand:
        """One player out on their own in a hand (R-PTS-5)."""
        return cls({player: stack})


@dataclass(frozen=True)
class Disqualification:
    """A player disqualified: out at this point of the elimination order (R-PTS-5, R-PEN-1)."""

    player: Hashable


@dataclass(frozen=True)
class ReEntry:
    """A busted player buying a new stack and a new seat (R-ENTRY-1): their earlier elimination
    no longer counts, and they finish where their last entry does (R-ENTRY-2)."""

    player: Hashable


Step = Hand | Disqualification | ReEntry


@dataclass(frozen=True)
class Finishing:
    """The night's finishing positions as the record stands (R-PTS-5..7).

    `positions` has everyone who has a position, best first (shared numbers skip: 1, 2, 2, 4);
    `still_in` the players with none yet (they cover the best `len(still_in)` places);
    `disqualified` those whose position came from a disqualification; `field_size` the
    players who took a seat.
    """

    positions: dict[Hashable, int]
    still_in: tuple[Hashable, ...]
    disqualified: frozenset[Hashable]
    field_size: int

    @property
    def over(self) -> bool:
        """True once nobody is left without a position: one winner, or a deal (R-PTS-5, R-PTS-7)."""
        return not self.still_in

    def finishes(self, no_shows: Iterable[Hashable] = ()) -> tuple[Finish, ...]:
        """The night's results for points.award_points (R-PTS-5): "played" or "dq" with a position,
        then `no_shows` (pre-registered players removed at the final table, R-LATE-3) with none.

        Refused while players are still in: their positions are not known yet.
        """
        if self.still_in:
            raise ValueError(f"The game isn't over: {len(self.still_in)} players are still in")
        absent = list(dict.fromkeys(no_shows))
        if any(player in self.positions for player in absent):
            raise ValueError("A player who took a seat can't be a no-show")
        order = key_order(absent)
        absent.sort(key=order.__getitem__)
        rows = [
            Finish(player, position, EntryStatus.DQ if player in self.disqualified else EntryStatus.PLAYED)
            for player, position in self.positions.items()
        ]
        return (*rows, *(Finish(player, None, EntryStatus.NO_SHOW) for player in absent))


def _check_out(
    players: Iterable[Hashable], in_field: Collection[Hashable], out: Collection[Hashable],
    names: Mapping[Hashable, str] | None,
) -> None:
    for player in players:
        if player not in in_field:
            raise ValueError(f"{_name(player, names)} isn't playing in this game")
        if player in out:
            raise ValueError(f"{_name(player, names)} is already out")


def _check_hand(
    hand: Hand, in_field: Collection[Hashable], out: Collection[Hashable], names: Mapping[Hashable, str] | None,
) -> dict[Hashable, int]:
    stacks = dict(hand.stacks)
    if not stacks:
        raise ValueError("Choose who went out")
    _check_out(stacks, in_field, out, names)
    remaining = len(in_field) - len(out)
    if remaining == 1:
        raise ValueError(f"{_name(next(iter(stacks)), names)} is the last player standing: the game is over")
    if len(stacks) >= remaining:
        raise ValueError("Not everyone left can go out in one hand: someone wins the pot")
    if len(stacks) > 1 and any(stack is None for stack in stacks.values()):
        raise ValueError("Several out in one hand: give each one's chips at the start of the hand")
    for player, stack in stacks.items():
        if stack is not None and (not is_whole(stack) or stack < 0):
            raise ValueError(f"{_name(player, names)}'s chips at the start of the hand must be 0 or more")
    return {player: stack or 0 for player, stack in stacks.items()}


def finishing_positions(
    field: Iterable[Hashable], record: Sequence[Step], deal: Mapping[Hashable, int] | None = None,
    *, names: Mapping[Hashable, str] | None = None,
) -> Finishing:
    """Every finishing position from the field and the elimination record (R-PTS-5..7, R-ENTRY-2).

    `field` is the players who took a seat (late entrants included, no-shows not); `record`
    the hands, disqualifications and re-entries in the order they happened; `deal` the chip
    count of every player left when a deal was agreed; `names` what to call players in
    messages. Of a field of N, the first out finishes N-th; several out in one hand take the
    worst places open, larger stack higher, equal stacks sharing (R-PTS-6); the last player
    left is 1st, or a deal's count fixes the places of the players left (R-PTS-7). So 20
    players, one busts, 2 late entrants arrive: the first bust-out finishes 22nd.

    Refused: a hand with nobody, or leaving nobody in; a player out twice (without a re-entry
    between), or not in the field; a re-entry of a player still in or disqualified; a deal
    missing a player left, counting one who is out, or with fewer than two players left.
    """
    players = list(dict.fromkeys(field))
    in_field = set(players)
    size = len(players)
    # Who is out, and at which of `steps` (the hands and disqualifications, in order: whether it
    # was a disqualification, and the stacks of the players it put out).
    out_at: dict[Hashable, int] = {}
    disqualified: set[Hashable] = set()
    steps: list[tuple[bool, dict[Hashable, int]]] = []
    for step in record:
        if isinstance(step, Hand):
            stacks = _check_hand(step, in_field, out_at, names)
            steps.append((False, stacks))
        elif isinstance(step, Disqualification):
            _check_out([step.player], in_field, out_at, names)
            stacks = {step.player: 0}
            steps.append((True, stacks))
            disqualified.add(step.player)
        elif isinstance(step, ReEntry):
            player = step.player
            if player not in in_field:
                raise ValueError(f"{_name(player, names)} isn't playing in this game")
            if player in disqualified:
                raise ValueError(f"{_name(player, names)} was disqualified and can't re-enter")
            if player not in out_at:
                raise ValueError(f"{_name(player, names)} is still in: only a player who is out can re-enter")
            del out_at[player]
            continue
        else:
            raise TypeError(f"{step!r} is not a Hand, a Disqualification or a ReEntry")
        for player in stacks:
            out_at[player] = len(steps) - 1

    positions: dict[Hashable, int] = {}
    gone = 0
    for index, (is_dq, stacks) in enumerate(steps):
        # A re-entry supersedes the elimination: only each player's last one counts (R-ENTRY-2).
        counted = {player: stack for player, stack in stacks.items() if out_at.get(player) == index}
        if not counted:
            continue
        if is_dq:
            (player,) = counted
            positions[player] = dq_position(size - gone)
        else:
            positions.update(bust_positions(size - gone, counted))
        gone += len(counted)

    left = [player for player in players if player not in out_at]
    if deal is not None:
        positions.update(_deal(deal, left, in_field, names))
        left = []
    elif len(left) == 1:
        positions[left[0]] = 1
        left = []

    order = key_order(players)
    ranked = sorted(positions.items(), key=lambda item: (item[1], order[item[0]]))
    return Finishing(
        positions=dict(ranked),
        still_in=tuple(sorted(left, key=order.__getitem__)),
        disqualified=frozenset(disqualified),
        field_size=size,
    )


def _deal(
    chips: Mapping[Hashable, int], left: Sequence[Hashable], in_field: Collection[Hashable],
    names: Mapping[Hashable, str] | None,
) -> dict[Hashable, int]:
    if len(left) < 2:
        raise ValueError("A deal needs two or more players left")
    for player in chips:
        if player not in in_field:
            raise ValueError(f"{_name(player, names)} isn't playing in this game")
        if player not in left:
            raise ValueError(f"{_name(player, names)} is out: only the players left are counted for a deal")
    return deal_positions(chips, len(left))


def positions_provisional(registration_open: bool, *, awaited: int = 0, re_entry_open: bool = False) -> bool:
    """Whether positions shown now may still change, so must say "provisional" (R-PTS-5, R-LATE-3).

    They may while registration is open (a late entrant pushes earlier bust-outs down), while
    `awaited` pre-registered players have neither arrived nor been removed as no-shows (they
    may still arrive after registration closes, R-LATE-3), and while re-entry is open (a
    re-entry cancels that player's bust-out, pushing the later ones down, R-ENTRY-2).
    """
    if not is_whole(awaited) or awaited < 0:
        raise ValueError(f"impossible number of awaited players {awaited!r}")
    return bool(registration_open or awaited or re_entry_open)
