"""The floor on the host's phone: warnings and penalties for one player (R-PEN-1..3), and the
roster's re-entry and rebuy buttons (R-ENTRY-1..2). Each is one journalled host action Undo can take
back; a refusal shows its reason where the host tapped, nothing written."""
from __future__ import annotations

import datetime as dt

from flask import abort, request
from flask_login import current_user

from blueprints import host_action, page_or_fragment
from blueprints.filters import ordinal
from blueprints.forms import blank_or_whole_number, read_whole_number, row_id, whole_number
from blueprints.host.base import bp, my_event
from blueprints.host.roster import Form, roster_action
from league.penalties import LABELS, MAX_PENALTY_HANDS, MAX_ROUNDS, away_minutes, describe
from league.statuses import EntryStatus, PenaltyKind
from services import Refused, journal, penalties, reentries
from services.models import Entry, Event, utcnow
from services.night_snapshot import NightSnapshot
from wiring.extensions import db


def _entry_or_404(event: Event, entry_id: int) -> Entry:
    entry = db.session.get(Entry, entry_id)
    if entry is None or entry.event_id != event.id:
        abort(404, description="That player is not in this game.")
    return entry


def _local(event: Event, at: dt.datetime | None) -> str:
    if at is None:
        return ""
    return at.replace(tzinfo=dt.UTC).astimezone(event.league.zone()).strftime("%H:%M")


def _panel(event: Event, entry: Entry, *, error: str | None = None, message: str | None = None,
           status: int = 200, tapped: str = ""):
    """R-PEN-1..3: the player's floor panel: their status, any penalty in force with End early and
    Extend, their earlier infractions tonight and this month, and the form for a new one."""
    now = utcnow()
    running = penalties.in_force(entry, now) if entry.status == EntryStatus.PLAYING else None
    size = penalties.table_size(event, entry) if entry.status == EntryStatus.PLAYING else 0
    per_hour = penalties.hands_per_hour(event)
    return page_or_fragment(
        "host/floor.html", "host/_floor.html", status, event=event, entry=entry, running=running,
        back_at=_local(event, running.until) if running else "", history=penalties.history(event, entry.member_id),
        table_size=size, round_minutes=away_minutes(size, per_hour), per_hour=per_hour, max_rounds=MAX_ROUNDS,
        max_hands=MAX_PENALTY_HANDS, local=lambda at: _local(event, at), labels=LABELS,
        error=error, message=message, tapped=tapped, form=request.form if error else {})


@bp.route("/events/<int:event_id>/floor/<int:entry_id>")
def floor_panel(event_id: int, entry_id: int):
    """R-PEN-1..3: one player's warnings and penalties: give one, end or extend the one in force,
    with their earlier ones tonight and this month."""
    event = my_event(event_id)
    return _panel(event, _entry_or_404(event, entry_id))


def _give(event: Event, entry: Entry, kind: str, form: Form, log: journal.Journal) -> str:
    """R-PEN-1/2, R-PTS-5: a warning, a missed-hand or missed-round penalty, or a disqualification."""
    hands = rounds = chips = None
    if kind == PenaltyKind.MISSED_HANDS:
        hands = whole_number(form.get("hands"), f"Give the hands to miss as a whole number from 1 to "
                             f"{MAX_PENALTY_HANDS}.", low=1, high=MAX_PENALTY_HANDS)
    elif kind == PenaltyKind.MISSED_ROUNDS:
        rounds = whole_number(form.get("rounds"), f"Give the rounds to miss, 1 to {MAX_ROUNDS}.", low=1,
                              high=MAX_ROUNDS)
    elif kind == PenaltyKind.DISQUALIFICATION:
        chips = blank_or_whole_number(form.get("chips"),
                                      "Give the chips they had as a whole number, or leave it blank.")
    penalty = penalties.give(event, entry, kind, log, current_user.id, reason=form.get("reason", ""), hands=hands,
                             rounds=rounds, chips=chips)
    said = f"{entry.member.name}: {describe(penalty.kind, penalty.hands, penalty.rounds).lower()}"
    if kind == PenaltyKind.WARNING:
        said = f"{entry.member.name}: verbal warning"
    if penalty.until:
        said += f", back about {_local(event, penalty.until)}"
    return said


def _end(event: Event, entry: Entry, arg: str, form: Form, log: journal.Journal) -> str:
    """R-PEN-2: the host ends a penalty early."""
    penalty = penalties.penalty_of(event, row_id(arg))
    penalties.end_early(event, penalty, log, current_user.id)
    return f"{entry.member.name} is back at the table"


def _extend(event: Event, entry: Entry, arg: str, form: Form, log: journal.Journal) -> str:
    """R-PEN-2: the host extends a penalty by a number of hands."""
    penalty = penalties.penalty_of(event, row_id(arg))
    more = read_whole_number(form.get("more_hands"), low=1, high=MAX_PENALTY_HANDS)
    if more is None:
        raise Refused(f"Give the hands to add as a whole number from 1 to {MAX_PENALTY_HANDS}.")
    penalties.extend(event, penalty, more, log, current_user.id)
    return f"{entry.member.name}: penalty extended, back about {_local(event, penalty.until)}"


@bp.route("/events/<int:event_id>/floor/<int:entry_id>", methods=["POST"])
def floor_action(event_id: int, entry_id: int):
    """R-PEN-1..3: one floor action on one player, as one journalled transaction Undo can take back:
    op=give:<kind> (warning, missed_hands, missed_rounds, disqualification), end:<penalty> or
    extend:<penalty>. A refusal (422) is the panel with the reason beside the button tapped."""
    event = my_event(event_id)
    entry = _entry_or_404(event, entry_id)
    tapped = request.form.get("op", "")
    op, _, arg = tapped.partition(":")
    try:
        with host_action(event, f"floor_{op}"[:32]) as log:
            if op == "give" and arg in set(PenaltyKind):
                message = _give(event, entry, arg, request.form, log)
            elif op == "end":
                message = _end(event, entry, arg, request.form, log)
            elif op == "extend":
                message = _extend(event, entry, arg, request.form, log)
            else:
                raise Refused("That button did nothing: reload the page.")
            log.action.summary = message
    except Refused as refused:
        return _panel(event, _entry_or_404(event, entry_id), error=str(refused), status=422, tapped=tapped)
    return _panel(event, _entry_or_404(event, entry_id), message=message)


@roster_action("reenter")
def _reenter(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-ENTRY-1/2, R-LATE-2: a busted player re-enters with a new full stack on a new random seat."""
    entry = _roster_entry(night, arg)
    reentries.re_enter(night, entry, log)
    seat = f": table {entry.table_no} seat {entry.seat_no}" if entry.table_no else ""
    return f"{entry.member.name} re-entered ({ordinal(entry.buy_ins)} buy-in){seat}"


@roster_action("rebuy")
def _rebuy(night: NightSnapshot, arg: str, form: Form, log: journal.Journal) -> str:
    """R-ENTRY-1/2: a player who has lost every chip rebuys at once and keeps their seat."""
    entry = _roster_entry(night, arg)
    reentries.rebuy(night.event, entry, log)
    return f"{entry.member.name} rebought ({ordinal(entry.buy_ins)} buy-in)"


def _roster_entry(night: NightSnapshot, raw: str | None) -> Entry:
    entry = night.entry(row_id(raw))
    if entry is None:
        raise Refused("That player is not in this game.")
    return entry
