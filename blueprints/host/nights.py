"""The host's start page: their coming nights, a new night (R-CLOCK-1: its blind structure; R-PAY-1,
R-PAY-3: its money), and a night edited or cancelled before play."""

from flask import flash, redirect, render_template, request, url_for
from flask_login import current_user
from wtforms import SelectChoice

from blueprints import host_action, runs
from blueprints.forms import TYPES_OWN, NightForm, fit_to_league, night_defaults
from blueprints.host.base import bp, my_event
from league.events import change_problem
from league.finals import month_label
from league.statuses import EventStatus
from league.text import as_sentence
from services import Refused, cancelling, finals, journal, leagues
from services.models import Event
from wiring.extensions import db


@bp.route("/")
def home():
    """The host's start page: today's and upcoming events they run, and a new night."""
    return _home()


def _home(form: NightForm | None = None, status: int = 200, duplicate: Event | None = None):
    league = current_user.league
    events = leagues.upcoming_nights(league)
    form = form or _my_night_form(NightForm(formdata=None, date=league.today(), template=TYPES_OWN,
                                            **night_defaults(league)))
    return render_template("host/home.html", events=[e for e in events if runs(e)], form=form,
                           duplicate=duplicate), status


def _my_night_form(form: NightForm) -> NightForm:
    """A host creates nights for themselves at the league's open venues (a host given venues: theirs)."""
    mine = leagues.host_venue_ids(current_user.id) if not current_user.is_organiser else set()
    form.venue.choices = [SelectChoice(v.id, v.name) for v in leagues.venues_of(current_user.league, open_only=True)
                          if not mine or v.id in mine]
    del form.host  # always the host creating it
    return fit_to_league(form, current_user.league)


@bp.route("/nights", methods=["POST"])
def new_night():
    """Create the night: a venue, an event type, a blind structure and its money; pre-registration
    opens and the check-in link exists from now on. The same venue, date and start as another
    night is warned about, and created only when the host says so."""
    form = _my_night_form(NightForm())
    if not form.validate():
        return _home(form, 422)
    event = form.new_event(current_user.league_id, current_user.id)
    if not form.anyway.data and (twin := leagues.same_night(event)):
        return _home(form, 409, duplicate=twin)
    db.session.add(event)
    db.session.commit()
    return redirect(url_for("host.players", event_id=event.id), 303)


def _edit_form(event: Event, formdata: bool) -> NightForm:
    form = NightForm() if formdata else NightForm(formdata=None, obj=event)
    if not formdata and finals.is_final(event):
        form.final_month.data = finals.final_month(event)  # R-QUAL-1..5: the month it is for now
    form.venue.choices = [SelectChoice(v.id, v.name) for v in event.league.venues  # retired: only its own
                          if v.retired_at is None or v.id == event.venue_id]
    del form.host, form.template  # the host is assigned on the organiser's nights; the structure has its editor
    return fit_to_league(form, event.league)


def _edit_page(event: Event, form: NightForm, status: int = 200, problem: str | None = None):
    cancelled = cancelling.cancellation(event) if event.status == EventStatus.CANCELLED else None
    last = journal.last_action(event) if cancelled else None
    now = month_label(finals.final_month(event)) if finals.is_final(event) else None
    return render_template("host/edit_night.html", event=event, form=form, problem=problem, cancelled=cancelled,
                           undoable=last is not None and last.kind == "cancel", final_month_now=now), status


@bp.route("/events/<int:event_id>/edit", methods=["GET", "POST"])
def edit_night(event_id: int):
    """Change a night's venue, date, start, type or money before play; refused once the clock has
    started, with the reason."""
    event = my_event(event_id)
    problem = change_problem(event.status, event.clock_started)
    if problem:
        cancelled = event.status == EventStatus.CANCELLED and request.method == "GET"
        return _edit_page(event, _edit_form(event, False), 200 if cancelled else 409, as_sentence(problem))
    if request.method == "GET":
        return _edit_page(event, _edit_form(event, False))
    form = _edit_form(event, True)
    if not form.validate():
        return _edit_page(event, form, 422)
    form.update(event)
    db.session.commit()
    flash("Night changed.")
    return redirect(url_for("host.players", event_id=event.id), 303)


@bp.route("/events/<int:event_id>/cancel", methods=["POST"])
def cancel_night(event_id: int):
    """Cancel a night before play, with the reason: it stays listed as cancelled (who, when, why),
    awards nothing and takes no check-in; one journalled action, so Undo brings it back. Refused
    once the clock has started, or without a reason, with the reason."""
    event = my_event(event_id)
    try:
        with host_action(event, "cancel", "Night cancelled") as log:
            cancelling.cancel(event, request.form.get("reason", ""), log, current_user.id)
    except Refused as refused:
        problem = change_problem(event.status, event.clock_started)
        return _edit_page(event, _edit_form(event, False), 409 if problem else 422, str(refused))
    flash("Night cancelled: it stays on the list as cancelled.")
    organiser = current_user.is_organiser
    return redirect(url_for("organiser.nights", slug=event.league.slug) if organiser else url_for("host.home"), 303)


@bp.route("/events/<int:event_id>/cancel/undo", methods=["POST"])
def undo_cancel(event_id: int):
    """Take the cancellation back (the journal's Undo) while it is still the night's last action:
    the night is booked again as it was."""
    event = my_event(event_id)
    try:
        with host_action(event, "undo", record=False):
            last = journal.last_action(event)
            if event.status != EventStatus.CANCELLED or last is None or last.kind != "cancel":
                raise Refused("This night's cancellation can no longer be undone.")
            journal.undo_since(event, last.id, last.id)
    except Refused as refused:
        return _edit_page(event, _edit_form(event, False), 409, str(refused))
    flash("Cancellation undone: the night is booked again.")
    return redirect(url_for("host.edit_night", event_id=event.id), 303)
