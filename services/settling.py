"""Settling a night in the database (R-PTS, R-QUAL-1/2, R-PAY-1): points, prizes, and the month's
Monthly Final tickets re-issued in date order."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import bindparam, update
from sqlalchemy.orm.attributes import set_committed_value

from league import payouts
from league.events import EVENT_TYPES
from league.finishing import Disqualification, Hand
from league.points import Finish, award_points
from league.statuses import FIELD, PARTICIPANT_STATUSES, WAITING, DealStatus, EntryStatus, EventStatus, RulingKind
from services import MAX_REASON_LENGTH, Refused, clocks, places, push, typed_text
from services.journal import Journal
from services.models import Entry, Event, Ruling, Ticket, utcnow
from services.night_snapshot import NightSnapshot, read_night
from services.night_snapshot import dealt as dealt_counts
from services.places import place
from services.prereg import remove_absentees
from services.standings import settle_tickets
from wiring.extensions import db


def settle(night: NightSnapshot, journal: Journal) -> None:
    """Settle the night once one player remains (or a deal was agreed): the clock stops (R-CLOCK-3:
    the night is over), the winner takes 1st, pre-registered no-shows leave the field (R-LATE-3),
    every position is placed from the field as it finally stands (R-PTS-5..7, services.places), then
    points (R-PTS), prizes for cash nights (R-PAY-1), and the month's tickets settled again in date
    order (R-QUAL-1/2). A settled night is corrected with `correct`. Whatever state the night is in,
    the answer is a settled night or Refused saying what to fix first."""
    if (problem := settle_problem(night)) is not None:
        raise Refused(problem)
    event, entries = night.event, night.entries
    # R-QUAL-4: who is told they made the Shoot-out is who this night put in (a night of points only)
    shootout_before = push.shootout_ids(event) if awards_points(event) else None
    playing = [e for e in entries if e.status == EntryStatus.PLAYING]
    journal.touch(event)
    for entry in entries:
        journal.touch(entry)
    if playing:
        playing[0].status = EntryStatus.PLAYED
    try:
        remove_absentees(night, journal)
        finished = place(night, journal)
    except Refused as problem:
        raise Refused(f"The night can't be settled yet: {problem} Fix that first (Undo takes back the last "
                      "action), then settle again.") from None
    if not finished.over:
        raise Refused(f"The night can't be settled yet: {len(finished.still_in)} players have no finishing "
                      "position. Record who went out (Undo takes back the last action), then settle again.")
    event.status, event.settled_at = EventStatus.SETTLED, utcnow()
    clocks.stop(event)  # the night is over: no screen counts levels for it any more
    try:
        tickets = _award(night, journal)
    except ValueError as problem:
        raise Refused(f"The night can't be settled: the results don't add up ({problem}). Fix that first "
                      "(Undo takes back the last action), then settle again.") from None
    # The players' phones hear once it is committed (a night settled the first time: its tickets are new).
    push.tell_results(event, entries, [t for t in tickets if t.event_id == event.id])
    if shootout_before is not None:
        db.session.flush()
        push.tell_shootout(event, shootout_before)


def settle_problem(night: NightSnapshot) -> str | None:
    """Why the night can't be settled yet, or None when Settle may be offered (R-PTS-5: one player
    remains, or a deal was agreed, R-PAY-2; R-LATE-3: nobody left waiting at the door). The host's
    screen offers Settle exactly when this says None, so the button and the refusal never disagree;
    what only placing the field can find (a missing finishing position) is still refused by settle."""
    event, entries = night.event, night.entries
    playing = sum(1 for e in entries if e.status == EntryStatus.PLAYING)
    dealt = event.deal_status == DealStatus.AGREED
    if event.status == EventStatus.SETTLED:
        return "This night is settled already: correct it from its settled screen instead."
    if event.status == EventStatus.CANCELLED:
        return "This night was cancelled: there is nothing to settle."
    if playing > 1 or (dealt and playing):
        return f"{playing} players are still in: settle when one remains."
    if any(e.status in WAITING for e in entries):
        return "Confirm or turn away the arrivals and pre-registration requests still waiting first."
    if not any(e.status in FIELD for e in entries):
        return "Nobody has played in this game yet: there is nothing to settle."
    return None


def _award(night: NightSnapshot, journal: Journal) -> list[Ticket]:
    """R-PTS, R-PAY-1, R-QUAL-1/2: points and prizes from the positions as placed, then the month's
    tickets issued again (each noted in the journal). Returns the tickets the event's month has now."""
    event, entries = night.event, night.entries
    points = event_points(event, entries)
    table = night.prizes
    counted = [e for e in entries if e.status in PARTICIPANT_STATUSES]
    shares = dealt_counts(event, entries)
    prizes = (payouts.prizes_for({e.id: e.position for e in counted}, {e.id: e.status for e in counted}, table)
              if table else {})
    # A deal's players keep their shares.
    _write(entries, {e.id: (points.get(e.id, 0), e.prize if e.id in shares else prizes.get(e.id, 0))
                     for e in entries})
    before = {t.id: t for t in db.session.scalars(db.select(Ticket).where(
        Ticket.league_id == event.league_id, Ticket.month == event.month))}
    for ticket in before.values():
        journal.touch(ticket)
    after = settle_tickets(event.league, event.month, list(before.values()))
    db.session.flush()
    for ticket in after:
        if ticket.id not in before:
            journal.created(ticket)
    return after


@dataclass(frozen=True)
class Fix:
    """One entry of a settled night as the correction says it should have been (R-PTS-5, R-PTS-6):
    its status (played, disqualified or a no-show), the hand it went out in (its number in the
    order of elimination, 1 = first out; players out in one hand share it; None: still in at the
    end, the winner) and its chips at the start of that hand."""
    status: str
    hand: int | None
    stack: int | None


CORRECTABLE = (EntryStatus.PLAYED, EntryStatus.DQ, EntryStatus.NO_SHOW)


def elimination_order(night: NightSnapshot) -> dict[int, Fix]:
    """R-PTS-5..7: each result of the night (played, disqualified, no-show) as a Fix: the hands
    and disqualifications numbered 1, 2, 3… in the order they happened (the stored numbers only
    ever grew, and older records have none: services.places reads the order from either), the
    winner and a deal's players with none. What the correction screen shows and starts from."""
    entries = night.entries
    record = places.record_of(night.event, entries)
    numbers: dict[int, tuple[int, int | None]] = {}
    for number, step in enumerate(record.steps, start=1):
        if isinstance(step, Disqualification):
            numbers[step.player] = (number, None)
        elif isinstance(step, Hand):  # players who shared a position before hands had numbers: stacks 0
            numbers.update({player: (number, stack) for player, stack in step.stacks.items()})
    return {e.id: Fix(e.status, *numbers.get(e.id, (None, None))) for e in entries if e.status in CORRECTABLE}


def correct(event: Event, fixes: dict[int, Fix], reason: str, journal: Journal, user_id: int | None) -> list[str]:
    """R-PTS-5..7, R-PAY-1, R-QUAL-1/2, R-MEM-2: correct a settled night and settle it again, as one
    action Undo can take back. `fixes` are the entries as they should have been (any not given
    stay as `elimination_order` reads them): the order of elimination and who went out in which
    hand, stacks deciding shared hands, a disqualification or a no-show given or taken back. Every
    position is placed again from the corrected field, then points, prizes and the month's Monthly
    Final tickets (pass-down included), so the standings follow. The correction is a ruling: who,
    when, why and what changed. Returns what changed, in words.

    Refused, nothing written: the night is not settled, no reason, nothing changed, a deal's player
    changed (the deal's chip count fixed their places and shares), or the corrected night is
    impossible (a player out twice, nobody or two winners left, a shared hand without stacks…);
    also when it would take away a Monthly Final ticket already presented at the final."""
    if event.status != EventStatus.SETTLED:
        raise Refused("Only a settled night can be corrected: until then, Undo takes back a wrong action.")
    why = typed_text(reason, MAX_REASON_LENGTH, "the reason", required=True)
    night = read_night(event)
    entries = night.entries
    by_id = {e.id: e for e in entries}
    current = elimination_order(night)
    deal = dealt_counts(event, entries)
    changes: list[str] = []
    wanted: dict[int, Fix] = dict(current)
    for entry_id, fix in fixes.items():
        entry = by_id.get(entry_id)
        if entry is None or entry_id not in current:
            raise Refused("That player did not play in this night.")
        changed = _checked_fix(entry.member.name, fix, current[entry_id], entry_id in deal)
        if changed is not None:
            wanted[entry_id] = changed
            changes.append(f"{entry.member.name}: {_said(current[entry_id])} → {_said(changed)}")
    if not changes:
        raise Refused("Nothing changed: correct a player's hand, status or chips first.")
    journal.touch(event)
    for entry in entries:
        journal.touch(entry)
    for entry_id, fix in wanted.items():
        entry = by_id[entry_id]
        if entry_id in deal:
            continue
        # Every position is placed afresh from the hands (a stored one would read as an older record's).
        entry.status, entry.bust_hand, entry.stack_at_bust, entry.position = fix.status, fix.hand, fix.stack, None
    _settle_again(night, journal)
    db.session.add(Ruling(league_id=event.league_id, event_id=event.id, user_id=user_id,
                          kind=RulingKind.RESULT_CORRECTION, rule_id="R-MEM-2", reason=why,
                          detail={"changes": changes}))
    return changes


def _checked_fix(name: str, fix: Fix, current: Fix, dealt: bool) -> Fix | None:
    """R-PTS-5..7: one player's corrected result as it will be stored (a no-show, or no hand, keeps
    no hand and no stack), or None when it is what the night has already. Refused: not a result a
    night can hold, or a change to a player the deal placed."""
    if fix.status not in CORRECTABLE:
        raise Refused(f"{name}: choose played, disqualified or no-show.")
    if fix.hand is not None and fix.hand < 1:
        raise Refused(f"{name}: the hand they went out in is a number from 1 (the first out).")
    if fix.stack is not None and fix.stack < 0:
        raise Refused(f"{name}: their chips at the start of the hand can't be negative.")
    if fix.status == EntryStatus.NO_SHOW or fix.hand is None:
        fix = Fix(fix.status, None, None)
    if fix == current:
        return None
    if dealt:
        raise Refused(f"{name} was placed by the deal: the chip count fixed their place and share, "
                      "so it stays as agreed.")
    if fix.status == EntryStatus.DQ and fix.hand is None:
        raise Refused(f"{name}: give the disqualification its place in the order (the hand number "
                      "they were disqualified after).")
    return fix


def _settle_again(night: NightSnapshot, journal: Journal) -> None:
    """R-PTS-5..7, R-PAY-1, R-QUAL-1/2: place every position again from the corrected entries, then
    points, prizes and the month's tickets. Refused when the corrected night is impossible, or when
    it would take away a Monthly Final ticket already presented at the final."""
    event = night.event
    try:
        finished = place(night, journal)
    except Refused as problem:
        raise Refused(f"That correction would make an impossible night: {problem} Nothing was changed.") from None
    if not finished.over:
        raise Refused(f"That correction would make an impossible night: {len(finished.still_in)} players "
                      "would be left with no finishing position (only the winner has no hand). Nothing was changed.")
    presented = {t.id: t.member.name for t in db.session.scalars(db.select(Ticket).where(
        Ticket.league_id == event.league_id, Ticket.month == event.month, Ticket.presented_at.is_not(None)))}
    try:
        after = _award(night, journal)
    except ValueError as problem:
        raise Refused(f"That correction would make an impossible night: the results don't add up ({problem}). "
                      "Nothing was changed.") from None
    kept = {t.id for t in after}
    lost = [name for ticket_id, name in presented.items() if ticket_id not in kept]
    if lost:
        raise Refused(f"That correction would take away {lost[0]}'s Monthly Final ticket, already "
                      "presented at the final. Nothing was changed.")


def _said(fix: Fix) -> str:
    """A result in words, for the ruling."""
    if fix.status == EntryStatus.NO_SHOW:
        return "no-show"
    what = "disqualified" if fix.status == EntryStatus.DQ else "out"
    if fix.hand is None:
        return "winner" if fix.status == EntryStatus.PLAYED else what
    chips = f" with {fix.stack:,} chips" if fix.stack is not None else ""
    return f"{what} in hand {fix.hand}{chips}"


def event_points(event: Event, entries: list[Entry]) -> dict[int, int]:
    """R-PTS-1..8: each entry's points (by entry id) from its finishing position and status."""
    finishes = [Finish(entry.id, entry.position, entry.status) for entry in entries]
    return award_points(finishes, high_roller=EVENT_TYPES[event.event_type].high_roller,
                        awards_points=awards_points(event))


def awards_points(event: Event) -> bool:
    """R-PTS-8: whether the night awards points: its type's rule, which the night's settings (its
    snapshot, league.settings) may switch off."""
    return EVENT_TYPES[event.event_type].awards_points and event.setting("awards_points", True) is not False


def award_event_points(event: Event) -> None:
    """R-PTS-1..8: write each entry's points from its finishing position and status."""
    entries = event.entries
    points = event_points(event, entries)
    for entry in entries:
        entry.points = points.get(entry.id, 0)


def _write(entries: list[Entry], values: dict[int, tuple[int, int]]) -> None:
    """Write each entry's (points, prize) where it changed: the pending changes flushed first (the
    positions), then one UPDATE by primary key for all the rows, not the session's unit of work row by
    row (a 200-player night: that flush was most of settling's time); the entries are told their new
    values as written. The caller noted the entries in the journal before."""
    changed = [{"row": e.id, "new_points": values[e.id][0], "new_prize": values[e.id][1]} for e in entries
               if (e.points, e.prize) != values[e.id]]
    db.session.flush()
    if changed:
        # Core, executemany: the ORM's bulk UPDATE by primary key costs as much again in its own
        # bookkeeping for 200 rows.
        table = Entry.__table__
        db.session.execute(update(table).where(table.c.id == bindparam("row"))
                           .values(points=bindparam("new_points"), prize=bindparam("new_prize")), changed)
        by_id = {e.id: e for e in entries}
        for row in changed:
            set_committed_value(by_id[row["row"]], "points", row["new_points"])
            set_committed_value(by_id[row["row"]], "prize", row["new_prize"])


