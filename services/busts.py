"""Bust-outs and disqualifications in the database (R-PTS-5, R-PTS-6, R-CHIP-3, R-MEM-2)."""
from __future__ import annotations

from league import finishing
from league.statuses import PARTICIPANT_STATUSES, EntryStatus, RulingKind
from services import MAX_REASON_LENGTH, Refused, typed_text
from services.journal import Journal
from services.models import Entry, Ruling
from services.night_snapshot import NightSnapshot
from services.places import place
from wiring.extensions import db


def bust(night: NightSnapshot, stacks: dict[Entry, int | None], journal: Journal) -> dict[Entry, int]:
    """R-PTS-5/6: players out in one hand, each with their chips at the start of it (needed when
    several go out together). The hand joins the night's elimination record, and every position is
    derived again from the field as it stands (services.places): they take the worst places still
    open, larger stack higher, equal stacks sharing. Returns their positions."""
    status = {e.id: e.status for e in night.entries}
    try:
        finishing.check_bust([e.id for e in stacks], {i for i, s in status.items() if s == EntryStatus.PLAYING},
                         out={i for i, s in status.items() if s in PARTICIPANT_STATUSES},
                         names={e.id: e.member.name for e in stacks},
                         stacks={e.id: c for e, c in stacks.items()})
    except ValueError as problem:
        raise Refused(str(problem)) from None
    hand = night.next_step
    for entry, stack in stacks.items():
        journal.touch(entry)
        entry.status, entry.bust_hand, entry.stack_at_bust = EntryStatus.PLAYED, hand, stack
    positions = place(night, journal).positions
    return {entry: positions[entry.id] for entry in stacks}


def disqualify(night: NightSnapshot, entry: Entry, reason: str, journal: Journal, user_id: int | None,
               chips: int | None = None) -> int:
    """R-PTS-5, R-MEM-2, R-CHIP-3: a disqualified player is out at this point of the elimination
    order (a step of its own: services.places), so takes the worst open position and moves down
    like a bust-out when late entrants arrive; they earn 0 points and no prize, and their chips leave
    play: the stack the host counted, or, uncounted, the average stack; the ruling is recorded with
    its reason. Returns their position."""
    if entry.status != EntryStatus.PLAYING:
        raise Refused(f"{entry.member.name} is not in the game.")
    reason = typed_text(reason, MAX_REASON_LENGTH, "the reason")  # no NUL, controls or invisible marks
    if not reason:
        raise Refused("Give the reason for the disqualification.")
    if chips is not None and chips < 0:
        raise Refused("The chips they had can't be negative.")
    removed = chips if chips is not None else night.chip_count()[1] or 0
    journal.touch(entry)
    entry.status, entry.bust_hand, entry.stack_at_bust = EntryStatus.DQ, night.next_step, None
    entry.chips_removed += removed
    event = night.event
    db.session.add(Ruling(league_id=event.league_id, event_id=event.id, user_id=user_id,
                          kind=RulingKind.DISQUALIFICATION, rule_id="R-PTS-5", reason=reason,
                          detail={"member": entry.member.name, "table": entry.table_no, "seat": entry.seat_no}))
    return place(night, journal).positions[entry.id]
