"""Bust-outs and disqualifications in the database (R-PTS-5, R-PTS-6, R-CHIP-3, R-MEM-2)."""
from __future__ import annotations

from league import finishing, hand_for_hand
from league.statuses import PARTICIPANT_STATUSES, EntryStatus, RulingKind
from services import MAX_REASON_LENGTH, Refused, typed_text
from services.journal import Journal
from services.models import Entry, Ruling
from services.night_snapshot import NightSnapshot
from services.places import place
from wiring.extensions import db


def bust(night: NightSnapshot, stacks: dict[Entry, int | None], journal: Journal) -> dict[Entry, int]:
    """R-PTS-5/6, R-HFH-1/3: players out in one hand, each with their chips at the start of it (needed
    when several go out together). The hand joins the night's elimination record, and every position
    is derived again from the field as it stands (services.places): they take the worst places still
    open, larger stack higher, equal stacks sharing. During a hand-for-hand hand they are recorded
    against it, in the same step as everyone out in it at any table, and all share, whatever their
    stacks (R-HFH-3), until the clock runs again: a table finishing the hand after the bubble burst at
    another still shares. Once the players left are the paid places, hand-for-hand ends by itself
    (R-HFH-1). Returns their positions."""
    event = night.event
    # R-HFH-3: the last hand-for-hand hand until the clock runs again (services.clocks), so a table
    # finishing the hand after the bubble burst at another still shares
    hand = event.hand_number
    if hand is not None:
        stacks = dict.fromkeys(stacks)  # R-HFH-3 replaces the order by stacks: none is needed
    status = {e.id: e.status for e in night.entries}
    try:
        finishing.check_bust([e.id for e in stacks], {i for i, s in status.items() if s == EntryStatus.PLAYING},
                         out={i for i, s in status.items() if s in PARTICIPANT_STATUSES},
                         names={e.id: e.member.name for e in stacks},
                         stacks=None if hand is not None else {e.id: c for e, c in stacks.items()})
    except ValueError as problem:
        raise Refused(str(problem)) from None
    step = _step_of(night, hand)
    for entry, stack in stacks.items():
        journal.touch(entry)
        entry.status, entry.bust_hand, entry.stack_at_bust = EntryStatus.PLAYED, step, stack
        entry.hfh_hand = hand
    positions = place(night, journal).positions
    _end_at_the_bubble(night, journal)
    return {entry: positions[entry.id] for entry in stacks}


def _step_of(night: NightSnapshot, hand: int | None) -> int:
    """The `bust_hand` step for players out now: during hand-for-hand hand `hand`, the step of anyone
    already out in it at another table (R-HFH-3: one hand, one step); otherwise a new one."""
    if hand is not None:
        for entry in night.entries:
            if entry.hfh_hand == hand and entry.bust_hand is not None:
                return entry.bust_hand
    return night.next_step


def _end_at_the_bubble(night: NightSnapshot, journal: Journal) -> None:
    """R-HFH-1: hand-for-hand switches itself off once the players left are the paid places (the bubble
    has burst), within the bust-out's action, so its Undo switches it on again. The clock stays
    stopped until the host resumes it, as after a pause."""
    event = night.event
    if not event.hand_for_hand:
        return
    left = sum(1 for e in night.entries if e.status == EntryStatus.PLAYING)
    if hand_for_hand.bubble_burst(left, night.paid_places):
        journal.touch(event)
        event.hand_for_hand = False  # its last hand stays, for the other tables finishing it (R-HFH-3)


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
