"""Seats in the database (R-SEAT-1..4, R-LATE-2): the draw, late arrivals, balancing moves, breaking a
table and the final table."""
from __future__ import annotations

import random

from flask import current_app

from league import seating
from league.statuses import EntryStatus
from services import Refused
from services.journal import Journal
from services.models import Entry, SeatMove, utcnow
from services.night_snapshot import NightSnapshot
from services.places import place
from services.prereg import remove_absentees
from wiring.extensions import db


def rng() -> random.Random:
    """The seat draw's randomness: the system's, unless a test fixes the seed."""
    seed = current_app.config.get("SEAT_RNG_SEED")
    return random.Random(seed) if seed is not None else random.SystemRandom()


def _seat(entries: dict[Entry, seating.Seat], journal: Journal) -> None:
    for entry, seat in entries.items():
        if (entry.table_no, entry.seat_no) != (seat.table, seat.seat):
            journal.touch(entry)
            entry.table_no, entry.seat_no = seat.table, seat.seat


def _reseat(night: NightSnapshot, new: dict[Entry, seating.Seat], journal: Journal) -> None:
    """R-SEAT-1..4: a draw that moves seated players: the new seats are theirs at once (their phones
    say so), and each move joins the walk the host goes through one at a time (`walk`). A player who
    moves again leaves the walk's earlier move behind."""
    old = night.seated
    _seat(new, journal)
    moves = [(entry, before, after) for entry, before, after in seating.moves_between(old, new) if before]
    moving = {entry.id for entry, _, _ in moves}
    for earlier in night.seat_moves:
        if earlier.entry_id in moving:
            journal.touch(earlier).done_at = utcnow()
    for entry, before, after in moves:
        db.session.add(journal.created(SeatMove(event_id=night.event.id, entry_id=entry.id, from_table=before.table,
                                                from_seat=before.seat, to_table=after.table, to_seat=after.seat)))
    night.__dict__.pop("seat_moves", None)


def walk(night: NightSnapshot) -> list[SeatMove]:
    """R-SEAT-1..4: the moves draws gave that the host has still to see made, in the order given: those
    whose player is still in the game at the seat the draw gave (a player out since, or moved by hand,
    has nothing left to walk)."""
    seats = {entry.id: seat for entry, seat in night.seated.items()}
    return [move for move in night.seat_moves if seats.get(move.entry_id) == seating.Seat(move.to_table, move.to_seat)]


def walk_done(night: NightSnapshot, move_id: int | None, journal: Journal) -> tuple[SeatMove, Entry]:
    """R-SEAT-1..4: the host saw the player sit down where the draw put them: the move leaves the walk."""
    move = next((m for m in walk(night) if m.id == move_id), None)
    entry = night.entry(move.entry_id) if move else None
    if move is None or entry is None:
        raise Refused("That move is done already, or no longer due: look at the tables again.")
    journal.touch(move).done_at = utcnow()
    night.__dict__.pop("seat_moves", None)
    return move, entry


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
    _reseat(night, seating.break_table(current, table, rng(), seats), journal)
    return table


def final_table(night: NightSnapshot, journal: Journal) -> None:
    """R-SEAT-4: everyone fits at one table: a fresh random draw to the final table; pre-registered
    players who never arrived leave the field first (R-LATE-3), and the positions are placed again."""
    current, seats = night.seated, night.event.max_seats
    if not seating.final_table_due(current, seats):
        raise Refused("It isn't time for the final table yet.")
    if remove_absentees(night, journal):
        place(night, journal)
    _reseat(night, seating.final_table(list(current), rng(), seats), journal)


def move(night: NightSnapshot, entry: Entry, table: int, seat: int, journal: Journal) -> None:
    """R-SEAT-2: carry out a balancing move to an empty seat."""
    try:
        new = seating.apply_move(night.seated, entry, table, seat, night.event.max_seats)
    except ValueError as problem:
        raise Refused(str(problem)) from None
    _seat(new, journal)

