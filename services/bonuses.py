"""Bonus chips in the database (R-CHIP-1..3): a claim accepted under the event type's kinds, values
and windows, or refused with the reason unless the host overrides (recorded as a ruling)."""
from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import insert

from league import chips
from league.settings import BonusWindows
from league.statuses import STILL_IN, EntryStatus, RulingKind
from services import MAX_REASON_LENGTH, Overridable, Refused, typed_text
from services.clocks import clock_view
from services.field import bonus_values
from services.journal import Journal
from services.models import BonusClaim, Entry, Event, Ruling, utcnow
from wiring.extensions import db


def claim_bonus(event: Event, entry: Entry, kind: str, journal: Journal, *, override_reason: str = "",
                user_id: int | None = None, tapped_at_ms: int | None = None) -> int:
    """R-CHIP-1..3: accept a bonus claim under the event type's kinds, values and windows; refuse
    with the reason, unless the host overrides with a reason (recorded as a ruling). `tapped_at_ms`:
    a bonus kept on the host's phone while it had no signal is judged by the window at the moment it
    was tapped, where the clock still tells it (clock_view)."""
    if entry.event_id != event.id or entry.status not in (*STILL_IN, EntryStatus.PENDING):
        raise Refused("That player is not in this game.")
    claimed = db.session.scalars(db.select(BonusClaim.kind).where(BonusClaim.entry_id == entry.id)).all()
    view = clock_view(event, tapped_at_ms)
    # R-CHIP-2: the windows apply once the clock has started, unless the night's settings take food
    # and drink at any time (its snapshot: Event.setting).
    windows = event.setting("bonus_windows") != BonusWindows.ANY_TIME
    try:
        decision = chips.decide_bonus(kind, event.event_type, bonus_values(event),
                                      view if view.started and windows else None, claimed)
    except ValueError as problem:  # not a bonus kind at all
        raise Refused(str(problem)) from None
    override = False
    if not decision.accepted:
        # R-CHIP-2: only a claim outside its window may be let in by the host's ruling; "already claimed"
        # stands whatever reason comes with it (a double tap on "Give the bonus anyway" is one bonus).
        if decision.reason != chips.WINDOW_REFUSAL:
            raise Refused(decision.reason)
        if not override_reason.strip():
            raise Overridable(decision.reason)
        try:
            decision = chips.override_bonus(kind, bonus_values(event) or chips.DEFAULT_BONUS_VALUES.get(
                event.event_type, {}))
        except ValueError as problem:
            raise Refused(str(problem)) from None
        reason = typed_text(override_reason, MAX_REASON_LENGTH, "the reason")
        override = True
        db.session.add(Ruling(league_id=event.league_id, event_id=event.id, user_id=user_id,
                              kind=RulingKind.BONUS_OVERRIDE, rule_id="R-CHIP-2", reason=reason,
                              detail={"member": entry.member.name, "kind": kind}))
    claim = BonusClaim(entry_id=entry.id, kind=kind, chips=decision.chips, override=override, user_id=user_id)
    db.session.add(claim)
    db.session.flush()
    journal.created(claim)
    return decision.chips



class KindNow(NamedTuple):
    """One bonus kind the event type takes (R-CHIP-1), its chips, and whether its window is open
    now (R-CHIP-2): a closed kind is still offered, for the host's override."""
    kind: str
    label: str
    chips: int
    open: bool


def kinds_now(event: Event) -> list[KindNow]:
    """R-CHIP-1/2: the bonus kinds this event type takes (a kind worth 0 is not taken), in the
    rule's order, each open or outside its window now."""
    view = clock_view(event)
    values = bonus_values(event)
    found = []
    for kind in chips.BONUS_KINDS:
        try:
            decision = chips.decide_bonus(kind, event.event_type, values, view if view.started else None, ())
        except ValueError:  # a league setting gone wrong: the claim itself says why
            continue
        if decision.accepted or decision.reason == chips.WINDOW_REFUSAL:
            chip_value = decision.chips or chips.override_bonus(kind, values or chips.DEFAULT_BONUS_VALUES.get(
                event.event_type, {})).chips
            found.append(KindNow(kind, chips.BONUS_LABELS[kind], chip_value, decision.accepted))
    return found


def claimed_kinds(event: Event) -> dict[int, set[str]]:
    """R-CHIP-1: the bonus kinds each entry of the night already has (one of each per player)."""
    rows = db.session.execute(db.select(BonusClaim.entry_id, BonusClaim.kind).join(Entry).where(
        Entry.event_id == event.id))
    found: dict[int, set[str]] = {}
    for entry_id, kind in rows:
        found.setdefault(entry_id, set()).add(kind)
    return found


def claim_for_everyone(event: Event, kind: str, journal: Journal, *, user_id: int | None = None) -> tuple[int, int]:
    """R-CHIP-1/2: a food or drink bonus for every player in the game who has not had one tonight
    (each player once), as one action; refused, nothing written, outside the window (no override
    for everyone at once: the host overrides player by player). Returns (players, chips each)."""
    if kind not in chips.WINDOWED_BONUSES:
        raise Refused("Only food and drink bonuses go to everyone at once.")
    view = clock_view(event)
    decision = chips.decide_bonus(kind, event.event_type, bonus_values(event), view if view.started else None, ())
    if not decision.accepted:
        raise Refused(decision.reason)
    claimed = claimed_kinds(event)
    players = db.session.scalars(db.select(Entry.id).where(Entry.event_id == event.id,
                                                           Entry.status == EntryStatus.PLAYING)).all()
    due = [entry_id for entry_id in players if kind not in claimed.get(entry_id, set())]
    if not due:
        label = chips.BONUS_LABELS[kind].lower()
        raise Refused(f"Everyone in the game already has a {label} bonus." if players else "Nobody is in the game yet.")
    # One INSERT executed for every claim at once (executemany: the session's unit of work inserts
    # them one by one on SQLite, to read each id back), then one SELECT of their ids for the journal:
    # none of these players had a claim of this kind, so their claims of it are exactly the new rows.
    at = utcnow()
    db.session.execute(insert(BonusClaim), [
        {"entry_id": entry_id, "kind": kind, "chips": decision.chips, "override": False, "user_id": user_id,
         "at": at} for entry_id in due])
    journal.created_ids(BonusClaim.__tablename__, list(db.session.scalars(db.select(BonusClaim.id).where(
        BonusClaim.entry_id.in_(due), BonusClaim.kind == kind).order_by(BonusClaim.id))))
    return len(due), decision.chips
