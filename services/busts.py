"""Bust-outs and disqualifications in the database (R-PTS-5, R-PTS-6, R-CHIP-3, R-MEM-2)."""
from __future__ import annotations

from sqlalchemy import func

from league import night
from league.points import PARTICIPANT_STATUSES
from league.statuses import EntryStatus
from services import Refused
from services.field import chip_count, players_left
from services.journal import Journal
from services.models import Entry, Event, Ruling
from wiring.extensions import db


def bust(event: Event, stacks: dict[Entry, int | None], journal: Journal) -> dict[Entry, int]:
    """R-PTS-5/6: players out in one hand take the worst positions still open; several are ordered
    by their stacks at the start of the hand (larger higher; equal share)."""
    status = dict(db.session.execute(db.select(Entry.id, Entry.status).where(Entry.event_id == event.id)).all())
    try:
        night.check_bust([e.id for e in stacks], {i for i, s in status.items() if s == EntryStatus.PLAYING},
                         out={i for i, s in status.items() if s in PARTICIPANT_STATUSES},
                         names={e.id: e.member.name for e in stacks},
                         stacks={e.id: c for e, c in stacks.items()})
    except ValueError as problem:
        raise Refused(str(problem)) from None
    left = players_left(event)
    positions = night.bust_positions(left, {e: (c or 0) for e, c in stacks.items()})
    hand = (db.session.scalar(db.select(func.max(Entry.bust_hand)).where(Entry.event_id == event.id)) or 0) + 1
    for entry, position in positions.items():
        journal.touch(entry)
        entry.status, entry.position, entry.bust_hand = EntryStatus.PLAYED, position, hand
        entry.stack_at_bust = stacks[entry]
    return positions


def disqualify(event: Event, entry: Entry, reason: str, journal: Journal, user_id: int | None,
               chips: int | None = None) -> int:
    """R-PTS-5, R-MEM-2, R-CHIP-3: a disqualified player takes the worst open position, earns 0
    points and no prize, and their chips leave play: the stack the host counted, or, uncounted, the
    average stack; the ruling is recorded with its reason."""
    if entry.status != "playing":
        raise Refused(f"{entry.member.name} is not in the game.")
    if not reason.strip():
        raise Refused("Give the reason for the disqualification.")
    if chips is not None and chips < 0:
        raise Refused("The chips they had can't be negative.")
    left = night.dq_position(players_left(event))
    removed = chips if chips is not None else chip_count(event)[1] or 0
    journal.touch(entry)
    entry.status, entry.position = EntryStatus.DQ, left
    entry.chips_removed += removed
    db.session.add(Ruling(league_id=event.league_id, event_id=event.id, user_id=user_id, kind="disqualification",
                          rule_id="R-PTS-5", reason=reason.strip()[:500], detail={"member": entry.member.name}))
    return left

