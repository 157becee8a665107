"""Seats and tables through the night: draw, late entrants, balancing, breaking, final table (R-SEAT-1..4, R-LATE-2).

A seating maps each player still in (any hashable key) to a Seat. Every function is pure:
it takes a seating and returns a new one (or a proposal), never changing what it was given.
Randomness comes only from the `random.Random` passed in, so a stored seed replays a draw.

House decisions (settings with the defaults given here, R-SEAT):
- Tables are numbered from 1; a draw gives the extra players of an uneven split to the
  lowest-numbered tables (who sits where is random, so this favours nobody).
- Seats at a table that is not full are spread around it (see `spread_seats`).
- A late entrant who finds every table full opens the lowest free table number, and the
  players who join them there are drawn at random from the full tables, as few as keep the
  tables within one (see `open_table`): a draw, not balancing moves one by one.
- Balancing moves a player from the largest table (ties: the lowest number) to the
  shortest (ties: the lowest number), and is not proposed while a break or the final-table
  redraw is due, since those reseat players anyway.
- The table to break is the one with the fewest players, ties going to the highest number,
  so play draws in toward table 1 (the one nearest the host and the screen).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from league.numbers import is_whole
from league.points import key_order

DEFAULT_MAX_SEATS = 10
FINAL_TABLE = 1


@dataclass(frozen=True, order=True)
class Seat:
    """A player's place: table number (1, 2, ...) and seat number 1..max seats (R-SEAT-1)."""

    table: int
    seat: int


Seating = dict[Hashable, Seat]


@dataclass(frozen=True)
class Move:
    """A proposed balancing move (R-SEAT-2).

    `player` is None when the app cannot know who moves (the player due the big blind next at
    `from_table`, which depends on the button): the host confirms who. `to_seat` is an empty
    seat at `to_table`, a suggestion: the host may seat the player in another empty seat there
    (the worst position, TDA 12-A). `reason` is the text for the host's screen.
    """

    player: Hashable | None
    from_table: int
    to_table: int
    to_seat: int
    reason: str




def _check_max_seats(max_seats: int) -> None:
    if not is_whole(max_seats) or max_seats < 2:
        raise ValueError(f"A table needs at least 2 seats, not {max_seats!r}")


def _check_seating(seating: Mapping[Hashable, Seat], max_seats: int) -> None:
    """Refuse a seating no draw could have made: a shared seat, or a seat off the table.

    Stored seatings are checked on the way in because a league may lower its max seats
    between nights, or an edit may go wrong; every later step assumes a sound seating.
    """
    _check_max_seats(max_seats)
    taken: set[Seat] = set()
    for seat in seating.values():
        if not isinstance(seat, Seat) or not is_whole(seat.table) or not is_whole(seat.seat):
            raise ValueError(f"{seat!r} is not a table and seat")
        if seat.table < 1:
            raise ValueError(f"There is no table {seat.table}")
        if not 1 <= seat.seat <= max_seats:
            raise ValueError(f"Table {seat.table} has seats 1 to {max_seats}, not seat {seat.seat}")
        if seat in taken:
            raise ValueError(f"Two players are in table {seat.table}, seat {seat.seat}")
        taken.add(seat)


def _ordered(players: Iterable[Hashable]) -> list[Hashable]:
    # A fixed order before shuffling, so the same seed gives the same seats whatever order
    # the players came from the database in.
    order = key_order(players)
    return sorted(order, key=order.__getitem__)


def table_sizes(seating: Mapping[Hashable, Seat]) -> dict[int, int]:
    """Players at each table in use, by table number (R-SEAT-1..3)."""
    sizes = Counter(seat.table for seat in seating.values())
    return dict(sorted(sizes.items()))


def tables_needed(players: int, max_seats: int = DEFAULT_MAX_SEATS) -> int:
    """The fewest tables that seat `players` (R-SEAT-1, R-SEAT-3)."""
    _check_max_seats(max_seats)
    if not is_whole(players) or players < 0:
        raise ValueError(f"impossible number of players {players!r}")
    return math.ceil(players / max_seats)


def spread_seats(players: int, max_seats: int = DEFAULT_MAX_SEATS) -> list[int]:
    """The seats a table of `players` uses: spread evenly around it (R-SEAT-1).

    Player i (0-based) of k takes seat floor(i * max_seats / k) + 1, so the empty seats fall
    between players rather than in a block at one end: everyone gets elbow room, and late
    entrants and moved players sit down in different parts of the table. A full table uses
    every seat; 7 of 10 use seats 1, 2, 3, 5, 6, 8, 9.
    """
    _check_max_seats(max_seats)
    if not 0 <= players <= max_seats:
        raise ValueError(f"{players} players don't fit at a table of {max_seats}")
    return [index * max_seats // players + 1 for index in range(players)]


def draw_seats(
    players: Sequence[Hashable], rng: random.Random, max_seats: int = DEFAULT_MAX_SEATS
) -> Seating:
    """Draw every player a random seat (R-SEAT-1).

    The fewest tables that fit everyone, numbered from 1; sizes differ by at most one (the
    lowest-numbered tables take the extra players of an uneven split); seats at each table
    spread as `spread_seats`. The players are shuffled with `rng` into those seats, so every
    player is equally likely to get any of them.
    """
    _check_max_seats(max_seats)
    if len(set(players)) != len(players):
        raise ValueError("A player is on the list twice")
    count = len(players)
    tables = tables_needed(count, max_seats)
    seats: list[Seat] = []
    for table in range(1, tables + 1):
        size = count // tables + (1 if table <= count % tables else 0)
        seats.extend(Seat(table, seat) for seat in spread_seats(size, max_seats))
    shuffled = _ordered(players)
    rng.shuffle(shuffled)
    return dict(zip(shuffled, seats))


def _empty_seats(seating: Mapping[Hashable, Seat], table: int, max_seats: int) -> list[int]:
    taken = {seat.seat for seat in seating.values() if seat.table == table}
    return [seat for seat in range(1, max_seats + 1) if seat not in taken]


def empty_seats(seating: Mapping[Hashable, Seat], max_seats: int = DEFAULT_MAX_SEATS) -> list[Seat]:
    """The empty seats at the tables in play, table by table (R-SEAT-2): where the host may move a
    player; a table nobody sits at is not in play."""
    _check_max_seats(max_seats)
    return [Seat(table, seat) for table in sorted(table_sizes(seating))
            for seat in _empty_seats(seating, table, max_seats)]


def seat_late_entrant(
    seating: Mapping[Hashable, Seat], player: Hashable, rng: random.Random,
    max_seats: int = DEFAULT_MAX_SEATS,
) -> Seat:
    """A random empty seat for a late entrant, from the same pool as everyone's (R-LATE-2, R-SEAT-1).

    The pool is every empty seat at the tables with the fewest players, so sizes stay within
    one; the seat is drawn from it with `rng`. When every table is full this is a random seat at
    the lowest free table number, alone there: `late_entry` fills that table at once instead.
    """
    _check_seating(seating, max_seats)
    if player in seating:
        seat = seating[player]
        raise ValueError(f"That player already has a seat: table {seat.table}, seat {seat.seat}")
    sizes = table_sizes(seating)
    if sizes and min(sizes.values()) < max_seats:
        fewest = min(sizes.values())
        pool = [Seat(table, seat) for table, size in sizes.items() if size == fewest
                for seat in _empty_seats(seating, table, max_seats)]
        return rng.choice(pool)
    return Seat(_free_table(sizes), rng.randint(1, max_seats))


def _free_table(sizes: Mapping[int, int]) -> int:
    return next(number for number in range(1, len(sizes) + 2) if number not in sizes)


def open_table(
    seating: Mapping[Hashable, Seat], player: Hashable, rng: random.Random,
    max_seats: int = DEFAULT_MAX_SEATS,
) -> Seating:
    """The seating after a late entrant who finds every table full opens a new one (R-LATE-2, R-SEAT-1).

    Alone at a new table (10/10/1) the entrant would leave the tables out of balance until the host
    made one balancing move after another; instead the new table is filled at once by a draw, with
    the fewest moves that bring every table within one of the others. With n players on t tables
    (the new one counted), every table must end with at least n // t players, so the new table needs
    n // t - 1 players from the full ones, and that many move: the extra players of an uneven split
    stay at the full tables (the lowest-numbered ones). Who leaves each full table is drawn at
    random with `rng`; the entrant and the players who join them are shuffled into the new table's
    seats, spread as `spread_seats`. Everyone else keeps their seat. Refused while a table has an
    empty seat (`seat_late_entrant` draws one of those) and for a player who already has a seat.
    """
    _check_seating(seating, max_seats)
    if player in seating:
        seat = seating[player]
        raise ValueError(f"That player already has a seat: table {seat.table}, seat {seat.seat}")
    sizes = table_sizes(seating)
    if any(size < max_seats for size in sizes.values()):
        raise ValueError("A table has an empty seat: the late entrant draws one of those")
    players = len(seating) + 1
    new_table = _free_table(sizes)
    per_table, extra = divmod(players, len(sizes) + 1)
    movers: list[Hashable] = []
    for index, table in enumerate(sizes):
        stays = per_table + (1 if index < extra else 0)
        at_table = _ordered(p for p, seat in seating.items() if seat.table == table)
        movers.extend(rng.sample(at_table, sizes[table] - stays))
    joining = [player, *movers]
    rng.shuffle(joining)
    moved = dict(seating)
    for who, seat in zip(joining, spread_seats(len(joining), max_seats)):
        moved[who] = Seat(new_table, seat)
    return moved


def late_entry(
    seating: Mapping[Hashable, Seat], player: Hashable, rng: random.Random,
    max_seats: int = DEFAULT_MAX_SEATS,
) -> Seating:
    """The seating once a late entrant sits down (R-LATE-2, R-SEAT-1): a seat drawn from the
    shortest tables' empty ones (`seat_late_entrant`), or, every table full, a new table filled
    by a draw with the fewest moves that keep the tables within one (`open_table`)."""
    if any(size < max_seats for size in table_sizes(seating).values()):
        return {**seating, player: seat_late_entrant(seating, player, rng, max_seats)}
    return open_table(seating, player, rng, max_seats)


def apply_move(
    seating: Mapping[Hashable, Seat], player: Hashable, to_table: int, to_seat: int,
    max_seats: int = DEFAULT_MAX_SEATS,
) -> Seating:
    """The seating after the host moves `player` to an empty seat (R-SEAT-2).

    Refused when the player has no seat or the seat is taken or off the table.
    """
    _check_seating(seating, max_seats)
    if player not in seating:
        raise ValueError("That player has no seat to move from")
    if not is_whole(to_table) or to_table < 1:
        raise ValueError(f"There is no table {to_table}")
    if not is_whole(to_seat) or not 1 <= to_seat <= max_seats:
        raise ValueError(f"Table {to_table} has seats 1 to {max_seats}, not seat {to_seat}")
    target = Seat(to_table, to_seat)
    if seating[player] == target:
        raise ValueError(f"That player is already in table {to_table}, seat {to_seat}")
    if target in seating.values():
        raise ValueError(f"Table {to_table}, seat {to_seat} is taken")
    moved = dict(seating)
    moved[player] = target
    return moved


def table_to_break(seating: Mapping[Hashable, Seat], max_seats: int = DEFAULT_MAX_SEATS) -> int | None:
    """The table to break now, or None (R-SEAT-3).

    A break is due when the players left fit at one table fewer than are in use. House
    decision: the table with the fewest players breaks, ties going to the highest number.
    None when everyone fits at one table: R-SEAT-4's redraw replaces the last break (see
    `final_table_due`). After a break, ask again: heavy losses may free two tables.
    """
    _check_seating(seating, max_seats)
    sizes = table_sizes(seating)
    players = len(seating)
    if len(sizes) < 2 or players <= max_seats or players > (len(sizes) - 1) * max_seats:
        return None
    return min(sizes, key=lambda table: (sizes[table], -table))


def break_table(
    seating: Mapping[Hashable, Seat], table: int, rng: random.Random,
    max_seats: int = DEFAULT_MAX_SEATS,
) -> Seating:
    """The seating after breaking `table` (R-SEAT-3): its players reseated by a two-step draw.

    For each of its players, in an order shuffled by `rng`: step 1 draws a table at random
    among the other tables with the fewest players, step 2 a seat at random among that
    table's empty seats (TDA 11-B). Filling the shortest tables first keeps sizes within one
    when they were within one before. Players at other tables keep their seats. Refused when
    the table is not in use or its players don't fit at the others.
    """
    _check_seating(seating, max_seats)
    sizes = table_sizes(seating)
    if table not in sizes:
        raise ValueError(f"Table {table} has no players to move")
    others = {number: size for number, size in sizes.items() if number != table}
    room = sum(max_seats - size for size in others.values())
    if sizes[table] > room:
        raise ValueError(
            f"Table {table}'s {sizes[table]} players don't fit in the {room} empty seats "
            f"at the other tables"
        )
    moved = dict(seating)
    leaving = _ordered(player for player, seat in seating.items() if seat.table == table)
    rng.shuffle(leaving)
    for player in leaving:
        fewest = min(others.values())
        to_table = rng.choice([number for number, size in others.items() if size == fewest])
        to_seat = rng.choice(_empty_seats(moved, to_table, max_seats))
        moved[player] = Seat(to_table, to_seat)
        others[to_table] += 1
    return moved


def final_table_due(seating: Mapping[Hashable, Seat], max_seats: int = DEFAULT_MAX_SEATS) -> bool:
    """Whether the final-table redraw is due (R-SEAT-4).

    Due when 2 or more players are left, they fit at one table, and they are not all at
    table 1 already. A redraw puts everyone at table 1, and a night small enough for one
    table was drawn there, so neither is redrawn again; a lone table left some other way
    (a host breaking tables by hand) is.
    """
    _check_seating(seating, max_seats)
    return (2 <= len(seating) <= max_seats
            and any(seat.table != FINAL_TABLE for seat in seating.values()))


def final_table(
    players: Iterable[Hashable], rng: random.Random, max_seats: int = DEFAULT_MAX_SEATS
) -> Seating:
    """A fresh random draw of the players left to table 1 (R-SEAT-4); seats spread as `spread_seats`."""
    players = list(players)
    _check_max_seats(max_seats)
    if len(players) > max_seats:
        raise ValueError(
            f"{len(players)} players don't fit at one table of {max_seats}: it's not the final table yet"
        )
    return draw_seats(players, rng, max_seats)


def balance_proposals(seating: Mapping[Hashable, Seat], max_seats: int = DEFAULT_MAX_SEATS) -> list[Move]:
    """The moves that bring every table within one player of the largest (R-SEAT-2).

    While a table is 2 or more players short of the largest, propose moving the player due
    the big blind next at the largest table (ties: the lowest number) to the shortest table
    (ties: the lowest number). The app cannot see the button, so each Move has player=None:
    the host confirms who moves and then calls `apply_move`. Moves are listed in the order
    to make them, each counted after the ones before; the suggested seat is the
    lowest-numbered empty one at the short table. Empty when sizes are within one, and
    while a break or the final-table redraw is due (they reseat players anyway, so a move
    first would be wasted).
    """
    _check_seating(seating, max_seats)
    if table_to_break(seating, max_seats) is not None or final_table_due(seating, max_seats):
        return []
    sizes = table_sizes(seating)
    empty = {table: _empty_seats(seating, table, max_seats) for table in sizes}
    moves: list[Move] = []
    while sizes and max(sizes.values()) - min(sizes.values()) >= 2:
        largest = min(sizes, key=lambda table: (-sizes[table], table))
        shortest = min(sizes, key=lambda table: (sizes[table], table))
        to_seat = empty[shortest].pop(0)
        reason = (
            f"Table {shortest} has {sizes[shortest]} players, table {largest} has "
            f"{sizes[largest]}: move the player due the big blind next at table {largest} "
            f"to table {shortest} (seat {to_seat}, or the worst position there)"
        )
        moves.append(Move(None, largest, shortest, to_seat, reason))
        sizes[largest] -= 1
        sizes[shortest] += 1
    return moves


def moves_between(
    old: Mapping[Hashable, Seat], new: Mapping[Hashable, Seat]
) -> list[tuple[Hashable, Seat | None, Seat]]:
    """Who to tell about a new seat: (player, old seat or None when new, new seat) (R-SEAT-1..4).

    Players whose seat did not change are left out; so are players no longer seated.
    Ordered by new seat, so the host can read the list table by table.
    """
    changed = [(player, old.get(player), seat) for player, seat in new.items()
               if old.get(player) != seat]
    return sorted(changed, key=lambda row: row[2])
