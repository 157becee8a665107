"""A settled night corrected and settled again (R-PTS-5..7, R-PAY-1, R-QUAL-1/2, R-MEM-2): the host of
the night or an organiser fixes a finishing order, a hand, a wrong disqualification or no-show,
with the reason; one journalled action Undo can take back, recorded as a ruling."""

from flask import redirect, request, url_for
from flask_login import current_user

from blueprints import host_action, is_htmx, page_or_fragment
from blueprints.forms import blank_or_whole_number
from blueprints.host.base import bp, my_event
from league.statuses import EntryStatus, EventStatus, RulingKind
from services import Refused, journal, results, settling
from services.models import Entry, Event, Ruling
from services.night_snapshot import dealt, read_night
from wiring.extensions import db

STATUS_WORDS = {EntryStatus.PLAYED: "Played", EntryStatus.DQ: "Disqualified", EntryStatus.NO_SHOW: "No-show"}


def _rows(event: Event) -> tuple[list[tuple[Entry, settling.Fix]], set[int]]:
    """The night's results in finishing order (no-shows last), each with how the correction form
    shows it, and the entries a deal placed."""
    night = read_night(event)
    entries = night.entries
    order = settling.elimination_order(night)
    rows = [(e, order[e.id]) for e in entries if e.id in order]
    rows.sort(key=lambda row: (row[0].position is None, row[0].position or 0, row[0].member.name.casefold()))
    return rows, set(dealt(event, entries))


def _page(event: Event, status: int = 200, error: str | None = None, message: str | None = None):
    rows, dealt = _rows(event)
    corrections = list(db.session.scalars(db.select(Ruling).where(
        Ruling.event_id == event.id, Ruling.kind == RulingKind.RESULT_CORRECTION).order_by(Ruling.id.desc())))
    return page_or_fragment("host/correct.html", "host/_correct.html", status, event=event, rows=rows, dealt=dealt,
                            statuses=STATUS_WORDS, ticketed=results.ticketed(event), corrections=corrections,
                            last=journal.last_action(event), error=error, message=message,
                            form=request.form if error else None)


@bp.route("/events/<int:event_id>/correct")
def correct_night(event_id: int):
    """R-PTS-5..7, R-MEM-2: a settled night's results, as the correction form: each player's status,
    the hand they went out in and their chips at its start. A night not settled has nothing to
    correct: its roster (Undo) puts a wrong action right."""
    event = my_event(event_id)
    if event.status != EventStatus.SETTLED:
        return redirect(url_for("host.players", event_id=event.id), 303)
    return _page(event)


def _fixes(event: Event, rows: list[tuple[Entry, settling.Fix]]) -> dict[int, settling.Fix]:
    """The corrected results the form posted: status-<id>, hand-<id>, stack-<id> for the rows it has."""
    fixes = {}
    for entry, shown in rows:
        names = (f"status-{entry.id}", f"hand-{entry.id}", f"stack-{entry.id}")
        if not any(name in request.form for name in names):
            continue  # a row the form did not post stays as it is
        said = [request.form.get(name) for name in names]
        name = entry.member.name
        hand = shown.hand if said[1] is None else blank_or_whole_number(
            said[1], f"{name}: give the hand they went out in as a whole number, or leave it blank for the winner.",
            low=1, high=100_000)
        stack = shown.stack if said[2] is None else blank_or_whole_number(
            said[2], f"{name}: give their chips at the start of the hand as a whole number.")
        fixes[entry.id] = settling.Fix(shown.status if said[0] is None else said[0], hand, stack)
    return fixes


@bp.route("/events/<int:event_id>/correct", methods=["POST"])
def correct_results(event_id: int):
    """R-PTS-5..7, R-PAY-1, R-QUAL-1/2, R-MEM-2: correct the settled night and settle it again, one
    journalled action (Undo takes it back): positions, points, prizes, the month's tickets and so
    the standings follow. Refused (422, the reason on the form, nothing written) when the night is
    not settled, the reason is missing or the corrected night would be impossible."""
    event = my_event(event_id)
    try:
        with host_action(event, "correct", "Results corrected") as log:
            if event.status != EventStatus.SETTLED:
                raise Refused("Only a settled night can be corrected.")
            rows, _ = _rows(event)
            changes = settling.correct(event, _fixes(event, rows), request.form.get("reason", ""), log,
                                       current_user.id)
            log.action.summary = ("Results corrected: " + "; ".join(changes))[:200]
    except Refused as refused:
        return _page(event, 422, error=str(refused))
    if not is_htmx():
        return redirect(url_for("host.correct_night", event_id=event.id), 303)
    return _page(event, message=f"Corrected and settled again: {'; '.join(changes)}")


@bp.route("/events/<int:event_id>/correct/undo", methods=["POST"])
def undo_correction(event_id: int):
    """R-MEM-2: take back the night's latest correction (the journal's Undo): the results, points,
    prizes and tickets as they were; the ruling stays on the record, the action marked undone."""
    event = my_event(event_id)
    try:
        with host_action(event, "undo", record=False):
            last = journal.last_action(event)
            if last is None or last.kind != "correct" or str(last.id) != request.form.get("action", ""):
                raise Refused("The night's last action is no longer that correction: nothing was undone.")
            journal.undo_since(event, last.id, last.id)
    except Refused as refused:
        return _page(event, 422, error=str(refused))
    if not is_htmx():
        return redirect(url_for("host.correct_night", event_id=event.id), 303)
    return _page(event, message="Correction undone.")
