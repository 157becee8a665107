"""Seats in the database (R-SEAT-1..4, R-LATE-2): the draw, late arrivals, balancing moves, breaking a
table and the final table."""
from __future__ import annotations

import random

from flask import current_app

from league import seating
from league.push import Moved
from league.statuses import EntryStatus
from services import Refused, push
from services.journal import Journal
from services.models import Entry
from services.night_snapshot import NightSnapshot
from services.places import place
from services.prereg import remove_absentees


def rng() -> random.Random:
    """The seat draw's randomness: the system's, unless a test fixes the seed."""
    seed = current_app.config.get("SEAT_RNG_SEED")
    return random.Random(seed) if seed is not None else random.SystemRandom()


def _seat(entries: dict[Entry, seating.Seat], journal: Journal, why: str = Moved.BALANCING,
          broken: int | None = None) -> None:
    """Write the seats; a player who had a seat and has a new one is told on their phone (R-SEAT-2..4;
    at the final table every player, each named their seat there)."""
    told = []
    for entry, seat in entries.items():
        moved = (entry.table_no, entry.seat_no) != (seat.table, seat.seat)
        if (moved and entry.table_no is not None) or why == Moved.FINAL_TABLE:
            told.append((entry.member_id, seat.table, seat.seat))
        if moved:
            journal.touch(entry)
            entry.table_no, entry.seat_no = seat.table, seat.seat
    if told:
        event_id = next(iter(entries)).event_id
        push.tell_seats(event_id, told, why, broken)


def _reseat(night: NightSnapshot, new: dict[Entry, seating.Seat], journal: Journal, why: str = Moved.LATE_TABLE,
            broken: int | None = None) -> None:
    """R-SEAT-1..4: a draw that moves seated players: the new seats are theirs at once (their phones
    say so), and each who moved joins the walk the host goes through one at a time (`walk`), from
    the seat they sat in when the host last saw them seated (a move not yet walked keeps its start)."""
    old = night.seated
    _seat(new, journal, why, broken)
    for entry, before, _ in seating.moves_between(old, new):
        if before is None:
            entry.moved_from_table = entry.moved_from_seat = None
        elif entry.moved_from_table is None:
            entry.moved_from_table, entry.moved_from_seat = before.table, before.seat
    for entry, seat in new.items():  # drawn back to the seat they never left: nothing to walk
        if (entry.moved_from_table, entry.moved_from_seat) == (seat.table, seat.seat):
            entry.moved_from_table = entry.moved_from_seat = None


def walk(night: NightSnapshot) -> list[Entry]:
    """R-SEAT-1..4: the players a draw moved whom the host has still to see sat down at their new
    seats, in the order of those seats, table by table (a player out since has nothing left to walk)."""
    return sorted((e for e in night.entries if e.moved_from_table is not None and e.status == EntryStatus.PLAYING
                   and e.table_no is not None), key=lambda e: (e.table_no, e.seat_no))


def walk_done(night: NightSnapshot, entry_id: int | None, journal: Journal) -> tuple[seating.Seat, Entry]:
    """R-SEAT-1..4: the host saw the player sit down where the draw put them: they leave the walk.
    The seat they came from."""
    entry = next((e for e in walk(night) if e.id == entry_id), None)
    if entry is None:
        raise Refused("That move is done already, or no longer due: look at the tables again.")
    came_from = seating.Seat(entry.moved_from_table, entry.moved_from_seat)
    journal.touch(entry)
    entry.moved_from_table = entry.moved_from_seat = None
    return came_from, entry


def draw(night: NightSnapshot, journal: Journal) -> None:
    """R-SEAT-1: draw every player in the game a random seat; table sizes differ by at most one."""
    players = night.with_status(EntryStatus.PLAYING)
    if not players:
        raise Refused("Nobody is in the game yet.")
    if night.seated:
        raise Refused("Seats are already drawn: late arrivals get theirs when you confirm them.")
    _seat(seating.draw_seats(players, rng(), night.event.max_seats), journal)


def seat_late_arrival(night: NightSnapshot, entry: Entry, journal: Journal) -> None:
    """R-LATE-2, R-SEAT-1: once seats are drawn, an arrival draws from the same pool; one who finds every
    table full opens a new one, filled at once by a draw with the fewest moves (seating.open_table)."""
    current = {e: seat for e, seat in night.seated.items() if e is not entry}
    if current and entry.table_no is None:
        _reseat(night, seating.late_entry(current, entry, rng(), night.event.max_seats), journal)


def table_plan(night: NightSnapshot) -> dict:
    """What the tables need now: a table to break (R-SEAT-3), the final-table redraw (R-SEAT-4),
    or balancing moves (R-SEAT-2), with the players at each table for the map."""
    current, event = night.seated, night.event
    tables: dict[int, list[tuple[int, Entry]]] = {}
    for entry, seat in current.items():
        tables.setdefault(seat.table, []).append((seat.seat, entry))
    return {
        "tables": {t: sorted(rows, key=lambda r: r[0]) for t, rows in sorted(tables.items())},
        "break": seating.table_to_break(current, event.max_seats) if current else None,
        "final": seating.final_table_due(current, event.max_seats) if current else False,
        "moves": seating.balance_proposals(current, event.max_seats) if current else [],
    }


def break_table(night: NightSnapshot, journal: Journal) -> int:
    """R-SEAT-3: break the table that is due; its players draw new seats (table, then seat)."""
    current, seats = night.seated, night.event.max_seats
    table = seating.table_to_break(current, seats)
    if table is None:
        raise Refused("No table needs breaking.")
    _reseat(night, seating.break_table(current, table, rng(), seats), journal, Moved.TABLE_BREAK, table)
    return table


def final_table(night: NightSnapshot, journal: Journal) -> None:
    """R-SEAT-4: everyone fits at one table: a fresh random draw to the final table; pre-registered
    players who never arrived leave the field first (R-LATE-3), and the positions are placed again."""
    current, seats = night.seated, night.event.max_seats
    if not seating.final_table_due(current, seats):
        raise Refused("It isn't time for the final table yet.")
    if remove_absentees(night, journal):
        place(night, journal)
    _reseat(night, seating.final_table(list(current), rng(), seats), journal, Moved.FINAL_TABLE)


def move(night: NightSnapshot, entry: Entry, table: int, seat: int, journal: Journal) -> None:
    """R-SEAT-2: carry out a balancing move to an empty seat."""
    try:
        new = seating.apply_move(night.seated, entry, table, seat, night.event.max_seats)
    except ValueError as problem:
        raise Refused(str(problem)) from None
    _seat(new, journal)
    entry.moved_from_table = entry.moved_from_seat = None  # moved by hand: nothing left to walk

