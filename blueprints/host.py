"""The host's night: the clock controls (R-CLOCK-3/4); check-in, seating and settling come next."""
import datetime as dt

from flask import Blueprint, abort, redirect, render_template, request, url_for
from flask_login import current_user, login_required

import clocks
from league import structures
import notices
from blueprints import page_or_fragment
from blueprints.live import event_or_404
from extensions import db
from models import Event

bp = Blueprint("host", __name__, url_prefix="/host")


@bp.before_request
@login_required
def _logged_in():
    """Every host page needs a host's or organiser's login."""


def runs(event: Event) -> bool:
    """Whether the logged-in user may run this event: its assigned host, or an organiser of its league."""
    return current_user.league_id == event.league_id and (
        current_user.is_organiser or event.host_id == current_user.id)


def my_event(event_id: int) -> Event:
    """The event, if the logged-in user runs it (403 otherwise)."""
    event = event_or_404(event_id)
    if not runs(event):
        abort(403)
    return event


@bp.route("/")
def home():
    """The host's start page: today's and upcoming events they run."""
    events = db.session.scalars(db.select(Event).where(
        Event.league_id == current_user.league_id, Event.date >= dt.date.today() - dt.timedelta(days=1),
        Event.status != "settled").order_by(Event.date, Event.start_time)).all()
    return render_template("host/home.html", events=[e for e in events if runs(e)])


def _controls(event: Event, error: str | None = None, status: int = 200):
    return page_or_fragment("host/event.html", "host/_controls.html", event=event,
                                clock=clocks.payload(event), error=error, status=status)


@bp.route("/events/<int:event_id>")
def event(event_id: int):
    """The host's night screen: the clock and its controls (R-CLOCK-3)."""
    return _controls(my_event(event_id))


@bp.route("/events/<int:event_id>/clock", methods=["POST"])
def clock_action(event_id: int):
    """R-CLOCK-3/4: start, pause, resume, next, previous, ±1 min, jump, call the clock.

    The form carries the version the host's screen showed: a repeated tap on flaky wifi, or a
    second host's change in between, is refused with 409 and the current controls.
    """
    event = my_event(event_id)
    form = request.form
    try:
        seen = int(form.get("version", ""))
        index = int(form["index"]) - 1 if form.get("index") else None
    except ValueError:
        return _controls(event, "That request was garbled; nothing changed.", 400)
    try:
        clocks.act(event, form.get("action", ""), seen, index=index, seat=form.get("seat"))
    except clocks.StaleClock:
        db.session.rollback()
        return _controls(event, "The clock changed on another screen; here it is now. Tap again if needed.", 409)
    except ValueError as problem:
        db.session.rollback()
        return _controls(event, str(problem), 422)
    db.session.commit()
    notices.hub().publish(event.id, event.clock_version)
    if request.headers.get("HX-Request") != "true":
        return redirect(url_for("host.event", event_id=event.id), 303)
    return _controls(event)


FIELDS = ("minutes", "small_blind", "big_blind", "ante", "label", "colour_up")


def _submitted_items(form) -> list[dict]:
    """The editor's rows as the structure's JSON form; numbers that don't parse stay text so the
    check names them ("minutes must be a whole number, not '1o'")."""
    kinds = form.getlist("kind")
    columns = {name: form.getlist(name) for name in FIELDS}
    major = form.get("major", "")
    items = []
    for row, kind in enumerate(kinds):
        def value(name, number=True):
            raw = columns[name][row].strip() if row < len(columns[name]) else ""
            return int(raw) if number and raw.isdigit() else raw
        if kind == "break":
            items.append({"kind": "break", "minutes": value("minutes"), "label": value("label", False) or "Break",
                          "colour_up": value("colour_up", False), "major": major == str(row + 1)})
        else:
            items.append({"kind": "level", "minutes": value("minutes"), "small_blind": value("small_blind"),
                          "big_blind": value("big_blind"), "ante": value("ante") if value("ante") != "" else 0})
    return items


def _editor(event, items=None, errors=(), message=None, status=200):
    clock = clocks.payload(event)
    return page_or_fragment(
        "host/structure.html", "host/_structure.html", event=event, clock=clock,
        items=clock["structure"] if items is None else items, errors=list(errors), message=message,
        templates=[(key, label) for key, (label, _) in structures.TEMPLATES.items()], status=status)


@bp.route("/events/<int:event_id>/structure", methods=["GET", "POST"])
def structure(event_id: int):
    """R-CLOCK-1: the blind structure editor: edit levels and breaks, add, remove, reorder,
    duplicate, or start from a template. A change is saved only when the whole structure passes
    its checks; otherwise the host's edits come back with the reasons and nothing is saved."""
    event = my_event(event_id)
    if request.method == "GET":
        return _editor(event)
    form = request.form
    op, _, where = form.get("op", "save").partition(":")
    try:
        seen = int(form.get("version", ""))
        if op == "template":
            items = structures.to_json(structures.TEMPLATES[form.get("template", "")][1])
        else:
            items = _submitted_items(form)
            if op != "save":
                items = structures.edit_items(items, op, int(where or 0) - 1)
    except (ValueError, KeyError):
        return _editor(event, errors=["That request was garbled; nothing changed."], status=400)
    try:
        new = structures.from_json(items)
    except structures.StructureError as problem:
        return _editor(event, items, problem.errors, "Not saved: fix the items marked below.", 422)
    try:
        clocks.set_structure(event, new, seen)
    except clocks.StaleClock:
        db.session.rollback()
        return _editor(event, errors=["The clock changed on another screen; here is the structure now."],
                       status=409)
    db.session.commit()
    notices.hub().publish(event.id, event.clock_version)
    return _editor(event, message="Saved.")
