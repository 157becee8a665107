"""The player's phone: their seat, and telling them when it changes (R-SEAT-1..4). The clock payload
carries a digest of every entry's seat; a phone refetches its own entry only when its bucket changes."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

from league.statuses import EntryStatus
from services.models import Entry, Event
from services.night_snapshot import NightSnapshot

SEAT_BUCKETS = 64  # entries hash into buckets by id: a phone compares its own bucket only


SEAT_HASH_CHARS = 3  # per bucket: a change goes unseen (until the 60 s fallback) once in 4,096


UNSEATED = "unseated"  # seat_token for a phone that shows no seat (waiting, not drawn yet, out)


def _seat_prefix(event: Event, final: bool) -> str:
    # The event's status and deal state go into every bucket: they change what every phone shows
    # (the points once settled, "Vote on the deal"), and only a few times a night. So does the final
    # table (R-SEAT-4): a phone still showing an old alert hears "Final table" even when its seat
    # stays the same.
    return f"{event.status},{event.deal_status},{'final' if final else ''};"


def _bucket_hash(prefix: str, rows) -> str:
    # One string hashed per bucket, not one update per row: a quarter of the time at 200 entries.
    text = prefix + "".join(f"{id_},{status},{table},{seat},{position},{away};"
                            for id_, status, table, seat, position, away in rows)
    return hashlib.blake2b(text.encode(), digest_size=2).hexdigest()[:SEAT_HASH_CHARS]


def _rows(entries) -> list[tuple]:
    # R-PEN-2: a penalty's return time goes in too, so the player's phone hears of a penalty like a seat.
    return [(e.id, e.status, e.table_no, e.seat_no, e.position, e.penalty_until) for e in entries]


def seat_digest(night: NightSnapshot) -> str:
    """R-SEAT-1..4, R-PTS-5: every entry's status, table, seat and position as SEAT_BUCKETS hashes
    of SEAT_HASH_CHARS hex digits (bucket = entry id % SEAT_BUCKETS), for the clock payload. A phone refetches
    its own entry only when its bucket changes: a bust-out changes one bucket, a table break at
    most as many as players moved."""
    buckets: list[list] = [[] for _ in range(SEAT_BUCKETS)]
    for row in _rows(night.entries):
        buckets[row[0] % SEAT_BUCKETS].append(row)
    prefix = _seat_prefix(night.event, night.final_table_drawn)
    return "".join(_bucket_hash(prefix, rows) for rows in buckets)


def seat_bucket(night: NightSnapshot, entry: Entry) -> tuple[int, str]:
    """R-SEAT-1..4: (index, hash) of the entry's bucket, as seat_digest gives it: what its phone
    compares with each new digest."""
    index = entry.id % SEAT_BUCKETS
    rows = _rows(e for e in night.entries if e.id % SEAT_BUCKETS == index)
    return index, _bucket_hash(_seat_prefix(night.event, night.final_table_drawn), rows)


@dataclass(frozen=True)
class SeatNotice:
    """R-SEAT-1..4: what a player's phone announces: `kind` is "drawn" (their first seat), "moved"
    (a balancing move or a broken table) or "final" (the final table redraw); then the seat to go to."""
    kind: str
    table: int
    seat: int


def seat_token(entry: Entry) -> str:
    """R-SEAT-1..4: the seat a phone shows, as it sends it back (`was`): "table-seat", or UNSEATED."""
    if entry.status == EntryStatus.PLAYING and entry.table_no is not None and entry.seat_no is not None:
        return f"{entry.table_no}-{entry.seat_no}"
    return UNSEATED


def _seat_of(token: str) -> tuple[int, int] | None:
    """A seat token's (table, seat), or None for UNSEATED or anything that is not one."""
    table, dash, seat = token.partition("-")
    if not (dash and len(token) <= 9 and table.isascii() and table.isdigit() and seat.isascii() and seat.isdigit()):
        return None
    return int(table), int(seat)


def seat_notice(night: NightSnapshot, entry: Entry, was: str | None, shown: str | None = None) -> SeatNotice | None:
    """R-SEAT-1..4: what to tell a player whose phone last showed `was` (a seat_token: the seat its
    player acknowledged) and, while an alert is up that nobody tapped "Got it" on, `shown` (the seat
    that alert names): their first seat (R-SEAT-1 draw, a late arrival's seat), a move (R-SEAT-2
    balancing, R-SEAT-3 a broken table) or the final table (R-SEAT-4, once its redraw is in the
    journal and not undone).
    While an alert is up it stays, or names the new seat when the player moved again, even back to
    the seat acknowledged before it (she may have gone to the seat the alert named).
    A phone that never dismissed its first-seat alert still sends UNSEATED: at the final table it
    hears "Final table", not "Your seat" again. None when the seat is the one acknowledged and no
    alert is up, the player has no seat (waiting, or out: the phone shows where they finished), or
    `was` is missing or not a seat token (ignored, never an error; so is a `shown` that is not one)."""
    if not was or seat_token(entry) == UNSEATED or (was != UNSEATED and _seat_of(was) is None):
        return None
    alert_up = shown is not None and _seat_of(shown) is not None
    if not alert_up and _seat_of(was) == (entry.table_no, entry.seat_no):
        return None
    final = night.final_table_drawn
    if was == UNSEATED:
        return SeatNotice("final" if final else "drawn", entry.table_no, entry.seat_no)
    return SeatNotice("final" if final else "moved", entry.table_no, entry.seat_no)


def seating_list(night: NightSnapshot) -> dict:
    """R-SEAT-1..4: who sits where tonight, table by table, for the room's big screen (its voice says
    each move by name: "Wren: table 1, seat 8"). Only the players in the game with a seat; what the
    room already sees at the tables, nothing more (no member id, no card)."""
    seated = sorted(((e.table_no, e.seat_no, e.member.name) for e in night.entries
                     if seat_token(e) != UNSEATED), key=lambda row: row[:2])
    return {"event_id": night.event.id, "final_table": night.final_table_drawn,
            "seats": [{"table": table, "seat": seat, "name": name} for table, seat, name in seated]}
