"""Members in the database (R-MEM-1, R-MEM-2): finding one by name, joining, photo ID checked; the
organiser's search, record, edits, bans and merges of two records of one person (undoable), and
deleting a record that holds no history."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import update
from sqlalchemy.orm import joinedload

from league.members import ADULTS_ONLY, clean_name, name_key, name_match, name_problem, search_key
from league.statuses import RulingKind
from league.text import as_sentence, clean_text, text_problem
from services import MAX_REASON_LENGTH, Refused, typed_text
from services.journal import Journal
from services.models import (
    Entry,
    Event,
    League,
    Member,
    MemberCode,
    MemberMerge,
    Penalty,
    PushSubscription,
    Ruling,
    Ticket,
    utcnow,
)
from services.standings import settle_tickets
from wiring.extensions import db

MAX_CONTACT_LENGTH = 120  # Member.contact is String(120)


def find_member(league_id: int, name: str) -> Member | None:
    """The member of that name (any spacing or case)."""
    return db.session.scalar(db.select(Member).where(Member.league_id == league_id,
                                                     Member.name_key == name_key(name)))


def name_taken(name: str) -> str:
    """R-MEM-1: the refusal of a name another member has (joining with it would hand this phone
    their card)."""
    return (f"A member called {clean_name(name)} already exists. If that's you, ask the host "
            "to check you in, or open your member card on your own phone.")


def join(league_id: int, name: str, adult: bool, under_21: bool, contact: str = "", *,
         id_checked: bool = False) -> Member:
    """R-MEM-1: a new member: free, 18 or over (they confirm it), photo ID to be checked if under 21
    (`id_checked`: the host joining them saw it).

    An existing name is refused: taking it would hand this phone someone else's card.
    """
    problem = name_problem(name) or text_problem(contact, MAX_CONTACT_LENGTH, "the contact")
    if problem:
        raise Refused(as_sentence(problem))
    if not adult:
        raise Refused(ADULTS_ONLY)
    if find_member(league_id, name):
        raise Refused(name_taken(name))
    member = Member.named(league_id, name)
    member.contact = clean_text(contact) or None
    member.under_21 = under_21
    member.adult_confirmed_at = utcnow()
    member.id_checked_at = utcnow() if under_21 and id_checked else None
    db.session.add(member)
    db.session.flush()
    return member


def id_checked(member: Member, journal: Journal) -> None:
    """R-MEM-1: the host saw photo ID for a member under 21."""
    journal.touch(member).id_checked_at = utcnow()


class AtTheDoor(NamedTuple):
    """R-MEM-1, R-LATE-4: a member the walk-in search found, with their entry in tonight's game if
    they have one (then they are shown where they are, never offered to check in or join again)."""
    member: Member
    entry: Entry | None


def at_the_door(event: Event, query: str, limit: int = 12) -> list[AtTheDoor]:
    """R-MEM-1: the league's members whose names the host's typing finds (league.members.name_match:
    every word in any order, initials, part of a name), best match first then by name, each with
    their entry tonight; merged records left out."""
    rows = db.session.execute(db.select(Member.id, Member.name).where(
        Member.league_id == event.league_id, Member.merged_into_id.is_(None))).all()
    ranked = sorted((rank, search_key(name), row_id) for row_id, name in rows
                    if (rank := name_match(query[:80], name)) is not None)
    ids = [row_id for _, _, row_id in ranked[:limit]]
    if not ids:
        return []
    rows = db.session.execute(db.select(Member, Entry).outerjoin(
        Entry, (Entry.member_id == Member.id) & (Entry.event_id == event.id)).where(Member.id.in_(ids)))
    found = {member.id: AtTheDoor(member, entry) for member, entry in rows}
    return [found[i] for i in ids]


def door_list(event: Event) -> list[AtTheDoor]:
    """R-MEM-1, R-LATE-4: every member of the event's league (merged records left out), by name, each
    with their entry tonight: the host's phone keeps it to find a walk-in while it has no signal."""
    rows = db.session.execute(db.select(Member, Entry).outerjoin(
        Entry, (Entry.member_id == Member.id) & (Entry.event_id == event.id)).where(
        Member.league_id == event.league_id, Member.merged_into_id.is_(None)))
    return sorted((AtTheDoor(member, entry) for member, entry in rows), key=lambda f: search_key(f.member.name))


# --- The organiser's members (R-MEM-1, R-MEM-2) -----------------------------------------------

def not_welcome(member: Member) -> str | None:
    """R-MEM-2: why this member may not check in or pre-register (banned, with the reason recorded; or a
    record merged into another), or None."""
    if member.banned_at is not None:
        return f"{member.name} is banned from the league: {member.ban_reason or 'no reason recorded'}."
    if member.merged_into_id is not None:
        kept = db.session.get(Member, member.merged_into_id)
        return f"This member record was merged into {kept.name if kept else 'another'}'s: check in as them."
    return None


def search(league_id: int, query: str, limit: int = 50) -> list[Member]:
    """R-MEM-1: the league's members whose name contains what was typed, case, spacing and accents left
    out (league.members.search_key), names starting with it first; merged records are left out."""
    wanted = search_key(query or "")[:80]
    rows = db.session.execute(db.select(Member.id, Member.name).where(
        Member.league_id == league_id, Member.merged_into_id.is_(None))).all()
    keyed = [(search_key(name), row_id) for row_id, name in rows]
    found = sorted(((not key.startswith(wanted), key, row_id) for key, row_id in keyed if wanted in key))
    ids = [row_id for _, _, row_id in found[:limit]]
    members = {m.id: m for m in db.session.scalars(db.select(Member).where(Member.id.in_(ids)))} if ids else {}
    return [members[i] for i in ids]


@dataclass
class MemberRecord:
    """What the organiser sees of a member: nights played, points, tickets, rulings, merges."""
    member: Member
    entries: list[Entry]
    points: int
    tickets: list[Ticket]
    rulings: list[Ruling]
    merges: list[MemberMerge]


def merged_ids(member: Member) -> set[int]:
    """The member's id and those of every record merged into it (and not taken back)."""
    ids = {member.id}
    frontier = [member.id]
    while frontier:
        more = set(db.session.scalars(db.select(Member.id).where(Member.merged_into_id.in_(frontier)))) - ids
        ids |= more
        frontier = list(more)
    return ids


def record(member: Member) -> MemberRecord:
    """R-MEM-1, R-MEM-2: the member's nights (newest first), points, tickets, rulings and merges."""
    entries = list(db.session.scalars(db.select(Entry).join(Event).options(
        joinedload(Entry.event).joinedload(Event.venue)).where(Entry.member_id == member.id)
        .order_by(Event.date.desc(), Event.id.desc())))
    tickets = list(db.session.scalars(db.select(Ticket).options(joinedload(Ticket.event).joinedload(Event.venue))
                                      .where(Ticket.member_id == member.id).order_by(Ticket.month.desc())))
    ids = merged_ids(member)
    names = set(db.session.scalars(db.select(Member.name).where(Member.id.in_(ids))))
    rulings = [r for r in db.session.scalars(db.select(Ruling).where(Ruling.league_id == member.league_id)
                                             .order_by(Ruling.id.desc()))
               if (r.detail or {}).get("member_id") in ids
               or ((r.detail or {}).get("member_id") is None and (r.detail or {}).get("member") in names)]
    merges = list(db.session.scalars(db.select(MemberMerge).where(
        (MemberMerge.kept_id == member.id) | (MemberMerge.merged_id == member.id)).order_by(MemberMerge.id.desc())))
    return MemberRecord(member, entries, sum(e.points for e in entries), tickets, rulings, merges)


def edit(member: Member, *, name: str, contact: str, under_21: bool, adult: bool, id_checked: bool) -> None:
    """R-MEM-1: the organiser corrects a member's name and contact, and the age and photo-ID flags.
    A name another member has is refused (merge the two records instead). The caller commits."""
    problem = name_problem(name) or text_problem(contact, MAX_CONTACT_LENGTH, "the contact")
    if problem:
        raise Refused(as_sentence(problem))
    other = find_member(member.league_id, name)
    if other is not None and other.id != member.id:
        raise Refused(f"Another member is called {other.name}: if they are the same person, merge the two records.")
    member.name, member.name_key = clean_name(name), name_key(name)
    member.contact = clean_text(contact) or None
    member.under_21 = under_21
    # Unticked: their age is not confirmed, so their phone asks them again before they pre-register.
    if adult and member.adult_confirmed_at is None:
        member.adult_confirmed_at = utcnow()
    elif not adult:
        member.adult_confirmed_at = None
    if id_checked and member.id_checked_at is None:
        member.id_checked_at = utcnow()
    elif not id_checked:
        member.id_checked_at = None


def ban(member: Member, reason: str, user_id: int | None) -> Ruling:
    """R-MEM-2: ban a member, the reason recorded (on the member and as a ruling): they cannot check in
    or pre-register until unbanned. The caller commits."""
    why = typed_text(reason, MAX_REASON_LENGTH, "the reason", required=True)
    # A conditional write, not the attribute read: two bans at the same moment (a double tap reaching
    # PostgreSQL twice) both read "not banned"; only one UPDATE finds it so, the other is refused.
    banned = db.session.execute(update(Member).where(Member.id == member.id, Member.banned_at.is_(None))
                                .values(banned_at=utcnow(), ban_reason=why)
                                .execution_options(synchronize_session=False))
    db.session.expire(member, ["banned_at", "ban_reason"])
    if banned.rowcount != 1:
        raise Refused(f"{member.name} is already banned.")
    ruling = Ruling(league_id=member.league_id, user_id=user_id, kind=RulingKind.BAN, rule_id="R-MEM-2", reason=why,
                    detail={"member": member.name, "member_id": member.id})
    db.session.add(ruling)
    return ruling


def unban(member: Member, reason: str, user_id: int | None) -> Ruling:
    """R-MEM-2: lift a ban, the reason recorded as a ruling. The caller commits."""
    why = typed_text(reason, MAX_REASON_LENGTH, "the reason", required=True)
    lifted = db.session.execute(update(Member).where(Member.id == member.id, Member.banned_at.is_not(None))
                                .values(banned_at=None, ban_reason=None).execution_options(synchronize_session=False))
    db.session.expire(member, ["banned_at", "ban_reason"])
    if lifted.rowcount != 1:
        raise Refused(f"{member.name} is not banned.")
    ruling = Ruling(league_id=member.league_id, user_id=user_id, kind=RulingKind.UNBAN, rule_id="R-MEM-2", reason=why,
                    detail={"member": member.name, "member_id": member.id})
    db.session.add(ruling)
    return ruling


# What a merge fills in on the kept record when it has none, and restores on undo.
_CARRIED = ("contact", "adult_confirmed_at", "under_21", "id_checked_at", "banned_at", "ban_reason")


def merge_problem(kept: Member, merged: Member) -> str | None:
    """R-MEM-1: why two records cannot be merged as one person, or None: not two of the league's live
    records, or both played one night (one person twice in one night). Both holding a Monthly Final
    ticket for one month is no reason: the merge re-settles that month (merge, R-QUAL-2)."""
    if kept.id == merged.id:
        return "Pick two different members to merge."
    if kept.league_id != merged.league_id:
        return "Those members are in different leagues."
    if kept.merged_into_id is not None or merged.merged_into_id is not None:
        return "One of those records is already merged into another."
    theirs = db.select(Entry.event_id).where(Entry.member_id == merged.id)
    both = db.session.scalars(db.select(Event).join(Entry).where(Entry.member_id == kept.id, Event.id.in_(theirs))
                              .order_by(Event.date)).all()
    if both:
        nights = ", ".join(f"{e.venue.name} {e.date:%d %b %Y}" for e in both[:3])
        return (f"{kept.name} and {merged.name} both played {nights}: one person cannot be in one night twice, "
                "so they are not the same person.")
    return None


def _both_ticketed(kept: Member, merged: Member) -> list[str]:
    """R-QUAL-2: the months for which both records hold a Monthly Final ticket."""
    months = set(db.session.scalars(db.select(Ticket.month).where(Ticket.member_id == kept.id))) & set(
        db.session.scalars(db.select(Ticket.month).where(Ticket.member_id == merged.id)))
    return sorted(months)


def merge(kept: Member, merged: Member, user_id: int | None) -> MemberMerge:
    """R-MEM-1: two records of one person become one, keeping all history: `merged`'s entries, tickets
    and member codes move to `kept`, blank details are filled from it, and it is hidden (its rulings stay,
    found by its name and id). R-QUAL-2: where both held a Monthly Final ticket for a month, one person
    holds one: that month is settled again, so the person keeps the ticket of their earlier night and the
    other passes down to the next finisher who holds none. Refused with the reason (merge_problem),
    nothing written. Recorded so that undo_merge takes it back exactly. The caller commits."""
    if problem := merge_problem(kept, merged):
        raise Refused(problem)
    months = _both_ticketed(kept, merged)
    moved: dict[str, Any] = {"kept_before": {c: _plain(getattr(kept, c)) for c in _CARRIED}, "resettled": months}
    for model, key in ((Entry, "entries"), (Ticket, "tickets"), (MemberCode, "member_codes")):
        query = db.select(model).where(model.member_id == merged.id)
        if model is Ticket:  # a month both held a ticket for is settled again below, not moved
            query = query.where(Ticket.month.not_in(months))
        rows = list(db.session.scalars(query))
        moved[key] = [row.id for row in rows]
        for row in rows:
            row.member_id = kept.id
    for column in _CARRIED:
        if column == "under_21":
            kept.under_21 = kept.under_21 or merged.under_21
        elif getattr(kept, column) in (None, "") and getattr(merged, column) not in (None, ""):
            setattr(kept, column, getattr(merged, column))
    merged.merged_into_id = kept.id
    moved["presented"] = _presented_goes_with_the_person(kept, merged, months)
    row = MemberMerge(league_id=kept.league_id, kept_id=kept.id, merged_id=merged.id, user_id=user_id, moved=moved)
    db.session.add(row)
    db.session.flush()
    _settle_again(kept, months)
    return row


def _presented_goes_with_the_person(kept: Member, merged: Member, months: list[str]) -> list[int]:
    """R-QUAL-3: where the person presented the merged record's ticket at the final, the one ticket they
    keep carries that presentation (settling the month again deletes the merged record's ticket). The
    ids of the kept tickets marked, for undo_merge to clear."""
    marked = []
    for month in months:
        theirs, ours = (db.session.scalar(db.select(Ticket).where(Ticket.member_id == m.id, Ticket.month == month))
                        for m in (merged, kept))
        if theirs.presented_at is not None and ours.presented_at is None:
            ours.presented_at, ours.presented_event_id = theirs.presented_at, theirs.presented_event_id
            marked.append(ours.id)
    return marked


def _settle_again(member: Member, months: list[str]) -> None:
    """R-QUAL-2: the months' Monthly Final tickets issued again from their nights as they now stand."""
    for month in months:
        settle_tickets(db.session.get(League, member.league_id), month)
    db.session.flush()


def undo_merge(merge_row: MemberMerge) -> None:
    """Take a merge back: the moved entries, tickets and codes go back to the merged record, the kept
    record's details are as before, and the merged record shows again. The caller commits."""
    if merge_row.undone_at is not None:
        raise Refused("That merge is already undone.")
    kept, merged = merge_row.kept, merge_row.merged
    later = db.session.scalar(db.select(MemberMerge.id).where(
        MemberMerge.kept_id == merged.id, MemberMerge.undone_at.is_(None), MemberMerge.id > merge_row.id))
    if later is not None or merged.merged_into_id != kept.id:
        raise Refused("Undo the later merges of these records first.")
    for model, key in ((Entry, "entries"), (Ticket, "tickets"), (MemberCode, "member_codes")):
        ids = merge_row.moved.get(key) or []
        if ids:
            for row in db.session.scalars(db.select(model).where(model.id.in_(ids), model.member_id == kept.id)):
                row.member_id = merged.id
    for column, value in (merge_row.moved.get("kept_before") or {}).items():
        setattr(kept, column, _unplain(Member.__table__.columns[column], value))
    merged.merged_into_id = None
    merge_row.undone_at = utcnow()
    marked = list(db.session.scalars(db.select(Ticket).where(Ticket.id.in_(merge_row.moved.get("presented") or []))))
    presented = {t.month: (t.presented_at, t.presented_event_id) for t in marked}
    for ticket in marked:
        ticket.presented_at, ticket.presented_event_id = None, None
    db.session.flush()
    _settle_again(kept, merge_row.moved.get("resettled") or [])
    for month, (at, final_id) in presented.items():  # the presentation goes back to the record that made it
        ticket = db.session.scalar(db.select(Ticket).where(Ticket.member_id == merged.id, Ticket.month == month))
        if ticket is not None:
            ticket.presented_at, ticket.presented_event_id = at, final_id  # R-QUAL-2: each record its own ticket again


def _count(column, member_id: int) -> int:
    return db.session.scalar(db.select(db.func.count()).where(column == member_id)) or 0


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def history(member: Member) -> list[str]:
    """R-MEM-1, R-MEM-2: what the member's record holds that deleting it would lose: nights (any entry),
    tickets, penalties, a ban, merges. Empty: nothing (a name a flood of scans or a typo made; an
    arrival the host turned away leaves no entry, and Undo of that is then refused: services.journal)."""
    held = []
    for column, word in ((Entry.member_id, "night"), (Ticket.member_id, "ticket"), (Penalty.member_id, "penalty")):
        if count := _count(column, member.id):
            held.append(_plural(count, word).replace("penaltys", "penalties"))
    if member.banned_at is not None:
        held.append("a ban")
    merges = (_count(MemberMerge.kept_id, member.id) + _count(MemberMerge.merged_id, member.id)
              + _count(Member.merged_into_id, member.id) + (member.merged_into_id is not None))
    if merges:
        held.append(_plural(merges, "merge"))
    return held


def delete(member: Member) -> None:
    """R-MEM-1: the organiser deletes a member record that holds no history (history() is empty), with
    its one-time codes and its phones' push subscriptions; refused with what it holds otherwise. The
    caller commits."""
    if held := history(member):
        raise Refused(f"{member.name} can't be deleted: their record holds {', '.join(held)}. "
                      "Merge it into the right record instead, or leave it.")
    for owned in (MemberCode, PushSubscription):
        db.session.execute(db.delete(owned).where(owned.member_id == member.id))
    db.session.delete(member)
    db.session.flush()


def drop_unused(member_ids: set[int]) -> list[str]:
    """R-MEM-1: of `member_ids` (the players of results a re-import replaced), remove the records left
    with no trace at all: no result, ticket, penalty, member code or merge, never used on a phone (no age
    confirmed, no photo ID checked), no contact, no ban. A name corrected in the file then leaves no
    empty member behind. Their names; the caller commits."""
    if not member_ids:
        return []
    used = [db.select(model.member_id).where(model.member_id.in_(member_ids))
            for model in (Entry, Ticket, Penalty, MemberCode)]
    used += [db.select(MemberMerge.kept_id).where(MemberMerge.kept_id.in_(member_ids)),
             db.select(MemberMerge.merged_id).where(MemberMerge.merged_id.in_(member_ids)),
             db.select(Member.merged_into_id).where(Member.merged_into_id.in_(member_ids))]
    traced = set().union(*(db.session.scalars(query) for query in used))
    empty = list(db.session.scalars(db.select(Member).where(
        Member.id.in_(member_ids - traced), Member.adult_confirmed_at.is_(None), Member.id_checked_at.is_(None),
        Member.banned_at.is_(None), (Member.contact.is_(None)) | (Member.contact == ""),
        Member.merged_into_id.is_(None))))
    for member in empty:
        db.session.delete(member)
    db.session.flush()
    return [member.name for member in empty]


def _plain(value: Any) -> Any:
    return value.isoformat() if hasattr(value, "isoformat") else value


def _unplain(column, value: Any) -> Any:
    if value is not None and column.type.python_type is dt.datetime:
        return dt.datetime.fromisoformat(value)
    return value
