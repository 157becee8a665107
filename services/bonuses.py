"""Bonus chips in the database (R-CHIP-1..3): a claim accepted under the event type's kinds, values
and windows, or refused with the reason unless the host overrides (recorded as a ruling)."""
from __future__ import annotations

from league import chips, night
from league.statuses import STILL_IN, EntryStatus
from services import MAX_REASON_LENGTH, Overridable, Refused, typed_text
from services.clocks import clock_view
from services.field import bonus_values
from services.journal import Journal
from services.models import BonusClaim, Entry, Event, Ruling
from wiring.extensions import db


def claim_bonus(event: Event, entry: Entry, kind: str, journal: Journal, *, override_reason: str = "",
                user_id: int | None = None) -> int:
    """R-CHIP-1..3: accept a bonus claim under the event type's kinds, values and windows; refuse
    with the reason, unless the host overrides with a reason (recorded as a ruling)."""
    if entry.event_id != event.id or entry.status not in (*STILL_IN, EntryStatus.PENDING):
        raise Refused("That player is not in this game.")
    claimed = db.session.scalars(db.select(BonusClaim.kind).where(BonusClaim.entry_id == entry.id)).all()
    view = clock_view(event)
    # R-CHIP-2: the windows apply once the clock has started, unless the night's settings take food
    # and drink at any time (its snapshot, league.settings).
    windows = (event.settings or {}).get("bonus_windows") != "any_time"
    try:
        decision = night.decide_bonus(kind, event.event_type, bonus_values(event),
                                      view if view.started and windows else None, claimed)
    except ValueError as problem:  # not a bonus kind at all
        raise Refused(str(problem)) from None
    override = False
    if not decision.accepted:
        if not override_reason.strip():  # R-CHIP-2: outside the window, the host's ruling may let it in
            raise (Overridable if decision.reason == night.WINDOW_REFUSAL else Refused)(decision.reason)
        try:
            decision = night.override_bonus(kind, bonus_values(event) or chips.DEFAULT_BONUS_VALUES.get(
                event.event_type, {}))
        except ValueError as problem:
            raise Refused(str(problem)) from None
        reason = typed_text(override_reason, MAX_REASON_LENGTH, "the reason")
        override = True
        db.session.add(Ruling(league_id=event.league_id, event_id=event.id, user_id=user_id, kind="bonus_override",
                              rule_id="R-CHIP-2", reason=reason,
                              detail={"member": entry.member.name, "kind": kind}))
    claim = BonusClaim(entry_id=entry.id, kind=kind, chips=decision.chips, override=override, user_id=user_id)
    db.session.add(claim)
    db.session.flush()
    journal.created(claim)
    return decision.chips

