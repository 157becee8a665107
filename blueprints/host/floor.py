"""A player's sheet on the host's phone: every action for one player and their record tonight. Out and
the bonus chips (R-PTS-5, R-CHIP), a move to an empty seat (R-SEAT-2), photo ID (R-MEM-1), re-entry and
rebuy (R-ENTRY-1..2), warnings, penalties and disqualification (R-PEN-1..3). Each is one journalled
host action Undo can take back; a refusal shows its reason atop the sheet, nothing written."""
from __future__ import annotations

import datetime as dt

from flask import abort, request
from flask_login import current_user

from blueprints import host_action, page_or_fragment
from blueprints.filters import ordinal
from blueprints.forms import blank_or_whole_number, read_whole_number, row_id, whole_number
from blueprints.host.base import bp, my_event
from blueprints.host.roster import (
    ROSTER_ACTIONS,
    SHORT_LABELS,
    Form,
    Override,
    kept_since,
    override_of,
    roster_action,
)
from league.chips import BONUS_LABELS
from league.penalties import LABELS, MAX_PENALTY_HANDS, MAX_ROUNDS, away_minutes, describe
from league.seating import empty_seats
from league.statuses import EntryStatus, EventStatus, PenaltyKind
from services import Overridable, Refused, bonuses, journal, penalties, reentries
from services.models import Entry, Event, utcnow
from services.night_snapshot import NightSnapshot, read_night

# The roster's actions a player's sheet offers for that one player (op=<op>:<entry id>).
SHEET_OPS = {"bust", "bonus", "seat", "id", "reenter", "rebuy"}


def _entry_or_404(night: NightSnapshot, entry_id: int) -> Entry:
    entry = night.entry(entry_id)
    if entry is None:
        abort(404, description="That player is not in this game.")
    return entry


def _local(event: Event, at: dt.datetime | None) -> str:
    if at is None:
        return ""
    return at.replace(tzinfo=dt.UTC).astimezone(event.league.zone()).strftime("%H:%M")


def _panel(night: NightSnapshot, entry_id: int, *, error: str | None = None, message: str | None = None,
           status: int = 200, tapped: str = "", override: Override | None = None):
    """A player's sheet: their seat and record tonight (bonuses, buy-ins, place, points and prize), the
    roster's actions for them (R-PTS-5, R-CHIP, R-SEAT-2, R-MEM-1, R-ENTRY), any penalty in force with
    End early and Extend, their earlier infractions tonight and this month, and the form for a new one
    (R-PEN-1..3)."""
    event = night.event
    entry = _entry_or_404(night, entry_id)
    now = utcnow()
    playing = entry.status == EntryStatus.PLAYING
    running = penalties.in_force(entry, now) if playing else None
    size = penalties.table_size(event, entry) if playing else 0
    per_hour = penalties.hands_per_hour(event)
    claims = [claim for claim in night.claims if claim.entry_id == entry.id]
    return page_or_fragment(
        "host/floor.html", "host/_floor.html", status, event=event, entry=entry, running=running,
        back_at=_local(event, running.until) if running else "", history=penalties.history(event, entry.member_id),
        table_size=size, round_minutes=away_minutes(size, per_hour), per_hour=per_hour, max_rounds=MAX_ROUNDS,
        max_hands=MAX_PENALTY_HANDS, local=lambda at: _local(event, at), labels=LABELS,
        kinds=bonuses.kinds_now(event) if playing and event.status != EventStatus.SETTLED else [],
        claims=claims, had={claim.kind for claim in claims}, bonus_labels=BONUS_LABELS, short_labels=SHORT_LABELS,
        open_seats=empty_seats(night.seated, event.max_seats) if playing and entry.table_no else [],
        reentry_rule=event.reentry, settled=event.status == EventStatus.SETTLED,
        error=error, message=message, tapped=tapped, override=override, form=request.form if error else {})


@bp.route("/events/<int:event_id>/floor/<int:entry_id>")
def floor_panel(event_id: int, entry_id: int):
    """One player's sheet: every action for them and their record tonight (R-PTS-5, R-CHIP, R-SEAT-2,
    R-MEM-1, R-ENTRY, R-PEN-1..3)."""
    return _panel(read_night(my_event(event_id)), entry_id)


def _give(event: Event, entry: Entry, kind: str, form: Form, log: journal.Journal,
          at: dt.datetime | None = None) -> str:
    """R-PEN-1/2, R-PTS-5: a warning, a missed-hand or missed-round penalty, or a disqualification,
    given now or at `at`, the moment a host's phone without signal kept it (its start and return)."""
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
                             rounds=rounds, chips=chips, now=at)
    said = f"{entry.member.name}: {describe(penalty.kind, penalty.hands, penalty.rounds).lower()}"
    if kind == PenaltyKind.WARNING:
        said = f"{entry.member.name}: verbal warning"
    if penalty.until:
        said += f", back about {_local(event, penalty.until)}"
    return said


def _end(event: Event, entry: Entry, arg: str, form: Form, log: journal.Journal, at: dt.datetime | None = None) -> str:
    """R-PEN-2: the host ends a penalty early, now or at `at` (kept on a phone without signal)."""
    penalty = penalties.penalty_of(event, row_id(arg))
    penalties.end_early(event, penalty, log, current_user.id, now=at)
    return f"{entry.member.name} is back at the table"


def _extend(event: Event, entry: Entry, arg: str, form: Form, log: journal.Journal,
            at: dt.datetime | None = None) -> str:
    """R-PEN-2: the host extends a penalty by a number of hands, a penalty running then (now, or `at`:
    kept on a phone without signal)."""
    penalty = penalties.penalty_of(event, row_id(arg))
    more = read_whole_number(form.get("more_hands"), low=1, high=MAX_PENALTY_HANDS)
    if more is None:
        raise Refused(f"Give the hands to add as a whole number from 1 to {MAX_PENALTY_HANDS}.")
    penalties.extend(event, penalty, more, log, current_user.id, now=at)
    return f"{entry.member.name}: penalty extended, back about {_local(event, penalty.until)}"


@bp.route("/events/<int:event_id>/floor/<int:entry_id>", methods=["POST"])
def floor_action(event_id: int, entry_id: int):
    """One action on one player from their sheet, as one journalled transaction Undo can take back:
    the roster's own for this player (op=<op>:<entry>, SHEET_OPS: Out, a bonus, a move, photo ID,
    re-entry, rebuy), or the floor's: op=give:<kind> (warning, missed_hands, missed_rounds,
    disqualification), end:<penalty> or extend:<penalty> (R-PEN-1..3). A refusal (422) is the sheet with
    the reason atop it, and the override the rule allows (R-CHIP-2, R-MEM-2)."""
    event = my_event(event_id)
    tapped = request.form.get("op", "")
    op, _, arg = tapped.partition(":")
    roster_op = op in SHEET_OPS and row_id(arg) == entry_id
    try:
        with host_action(event, op if roster_op else f"floor_{op}"[:32]) as log:
            entry = _entry_or_404(log.night, entry_id)
            at = kept_since(log, request.form)
            if roster_op:
                message = ROSTER_ACTIONS[op].run(log.night, arg, request.form, log)
            elif op == "give" and arg in set(PenaltyKind):
                message = _give(event, entry, arg, request.form, log, at)
            elif op == "end":
                message = _end(event, entry, arg, request.form, log, at)
            elif op == "extend":
                message = _extend(event, entry, arg, request.form, log, at)
            else:
                raise Refused("That button did nothing: reload the page.")
            log.action.summary = message
    except Overridable as refused:
        return _panel(read_night(event), entry_id, error=str(refused), status=422, tapped=tapped,
                      override=override_of(op, request.form))
    except Refused as refused:
        return _panel(read_night(event), entry_id, error=str(refused), status=422, tapped=tapped)
    return _panel(log.night, entry_id, message=message, tapped=tapped)


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
