"""The host's night: the clock and its controls (R-CLOCK), the blind structure, check-in and the roster."""

from flask import Blueprint, abort, redirect, render_template, request, url_for
from flask_login import current_user, login_required
from sqlalchemy.orm import joinedload
from wtforms import SelectChoice

from blueprints import event_or_404, page_or_fragment, runs
from blueprints.filters import ordinal
from blueprints.forms import NightForm
from league import night, structures
from league.chips import BONUS_LABELS
from league.members import name_key
from live import qr
from live.announce import announce
from live.payload import clock_payload
from services import (
    Refused,
    bonuses,
    busts,
    checkin,
    clocks,
    deals,
    field,
    journal,
    leagues,
    members,
    places,
    prereg,
    seats,
    settling,
)
from services.models import Entry, Event, Member, Venue
from wiring.extensions import db

bp = Blueprint("host", __name__, url_prefix="/host")


@bp.before_request
@login_required
def _logged_in():
    """Every host page needs a host's or organiser's login."""


def my_event(event_id: int) -> Event:
    """The event, if the logged-in user runs it (403 otherwise)."""
    event = event_or_404(event_id)
    if not runs(event):
        abort(403)
    return event


@bp.route("/")
def home():
    """The host's start page: today's and upcoming events they run, and a new night."""
    return _home()


def _home(form: NightForm | None = None, status: int = 200):
    events = leagues.upcoming_nights(current_user.league)
    form = form or _my_night_form(NightForm(formdata=None, date=current_user.league.today(), template="thpa_nightly"))
    return render_template("host/home.html", events=[e for e in events if runs(e)], form=form), status


def _my_night_form(form: NightForm) -> NightForm:
    """A host creates nights for themselves at the league's venues."""
    form.venue.choices = [SelectChoice(v.id, v.name) for v in db.session.scalars(
        db.select(Venue).where(Venue.league_id == current_user.league_id).order_by(Venue.name))]
    del form.host  # always the host creating it
    return form


@bp.route("/nights", methods=["POST"])
def new_night():
    """Create the night (issue 4): a venue, an event type and a blind structure; pre-registration
    opens and the check-in link exists from now on."""
    form = _my_night_form(NightForm())
    if not form.validate():
        return _home(form, 422)
    event = form.new_event(current_user.league_id, current_user.id)
    db.session.add(event)
    db.session.commit()
    return redirect(url_for("host.players", event_id=event.id), 303)


def _controls(event: Event, error: str | None = None, status: int = 200, clock: dict | None = None):
    return page_or_fragment("host/event.html", "host/_controls.html", event=event,
                            clock=clock_payload(event) if clock is None else clock, error=error, status=status)


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
    clock = announce(event)
    if request.headers.get("HX-Request") != "true":
        return redirect(url_for("host.event", event_id=event.id), 303)
    return _controls(event, clock=clock)


FIELDS = ("minutes", "small_blind", "big_blind", "ante", "label", "colour_up")


def _submitted_items(form) -> list[dict]:
    """The editor's rows as the structure's JSON form; numbers that don't parse stay text so the
    check names them ("minutes must be a whole number, not '1o'")."""
    kinds = form.getlist("kind")
    columns = {name: form.getlist(name) for name in FIELDS}
    major = form.get("major", "")
    items = []
    for row, kind in enumerate(kinds):
        def value(name, number=True, row=row):
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
    # The editor needs the clock's version and place only, not the live payload (entries, counts).
    return page_or_fragment(
        "host/structure.html", "host/_structure.html", event=event, clock=clocks.state_of(event),
        items=structures.to_json(clocks.structure_of(event)) if items is None else items, errors=list(errors),
        message=message,
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
    announce(event)
    return _editor(event, message="Saved.")


def _roster(event: Event, entries: list[Entry]):
    by_status: dict[str, list[Entry]] = {}
    for entry in entries:
        by_status.setdefault(entry.status, []).append(entry)
        entry.missed = prereg.missed_blinds(event, entry)
    for group in by_status.values():
        group.sort(key=lambda e: (e.position or 0, e.member.name.casefold()))
    return by_status


def _players(event: Event, error: str | None = None, message: str | None = None, status: int = 200):
    # One read of the night's entries, members included, for the roster, the counts and the tables
    # (measured: 26.9 → 22.6 ms median per host action at 200 players, docs/benchmarks.md).
    entries = list(db.session.scalars(db.select(Entry).options(joinedload(Entry.member, innerjoin=True))
                                      .where(Entry.event_id == event.id).order_by(Entry.id)))
    chips_in_play, average = field.chip_count(event, entries)
    deal_open = event.deal_status == "open"
    return page_or_fragment("host/players.html", "host/_players.html", event=event, roster=_roster(event, entries),
                            players_left=field.players_left(event, entries), last=journal.last_action(event),
                            provisional=places.provisional(event, entries),
                            plan=seats.table_plan(event, entries), chips_in_play=chips_in_play, average=average,
                            ballot=deals.ballot(event) if deal_open else (0, 0), max_deal=night.MAX_DEAL_PLAYERS,
                            bonus_kinds=BONUS_LABELS,
                            check_in_url=url_for("play.check_in", code=event.check_in_code, _external=True),
                            error=error, message=message, status=status)


@bp.route("/events/<int:event_id>/players")
def players(event_id: int):
    """R-MEM-1, R-PTS-5..7: the host's list of arrivals, players in the game and players out."""
    return _players(my_event(event_id))


@bp.route("/events/<int:event_id>/members")
def member_search(event_id: int):
    """Walk-ins: members whose names match what the host typed, not yet in this game."""
    event = my_event(event_id)
    q = request.args.get("q", "").strip()
    found = []
    if q:
        taken = db.select(Entry.member_id).where(Entry.event_id == event.id)
        found = db.session.scalars(db.select(Member).where(
            Member.league_id == event.league_id, Member.name_key.contains(name_key(q)),
            Member.id.not_in(taken)).order_by(Member.name).limit(12)).all()
    return render_template("host/_search.html", event=event, found=found, q=q)


def _entry(event: Event, entry_id: str) -> Entry:
    entry = db.session.get(Entry, int(entry_id)) if entry_id.isdigit() else None
    if entry is None or entry.event_id != event.id:
        raise Refused("That player is not in this game.")
    return entry


def _player_op(event: Event, op: str, arg: str, form) -> str:
    """Carry out one host action on the roster and return what to say; raises Refused."""
    user_id = current_user.id
    if op == "undo":
        last = journal.last_action(event)
        if last is None or str(last.id) != arg:
            raise Refused("Nothing to undo, or it was already undone on another screen.")
        journal.undo(last)
        return f"Undone: {last.summary}"
    if op in ("confirm", "reject", "id"):
        entry = _entry(event, arg)
        verb = {"confirm": "Confirmed", "reject": "Turned away", "id": "Photo ID checked for"}[op]
        log = journal.Journal(event, user_id, op, f"{verb} {entry.member.name}")
        {"confirm": checkin.confirm, "reject": checkin.reject}.get(op, lambda e, j: members.id_checked(e.member, j))(
            entry, log)
    elif op == "walk_in":
        member = db.session.get(Member, int(arg)) if arg.isdigit() else None
        if member is None or member.league_id != event.league_id:
            raise Refused("No such member.")
        log = journal.Journal(event, user_id, op, f"Checked in {member.name}")
        checkin.check_in(event, member, log, by_host=True, override_reason=form.get("reason", ""), user_id=user_id)
    elif op == "prereg":
        member = db.session.get(Member, int(arg)) if arg.isdigit() else None
        if member is None or member.league_id != event.league_id:
            raise Refused("No such member.")
        log = journal.Journal(event, user_id, op, f"Pre-registered {member.name}")
        prereg.pre_register(event, member, log)
    elif op == "deduct":
        entry = _entry(event, arg)
        raw = form.get(f"blinds-{entry.id}", "").replace(",", "").strip()
        if not raw.isdigit():
            raise Refused("Give the chips to deduct as a whole number.")
        log = journal.Journal(event, user_id, op, f"{entry.member.name}: {int(raw):,} missed blinds deducted")
        prereg.deduct(entry, int(raw), log)
    elif op == "join":
        log = journal.Journal(event, user_id, op, f"New member {form.get('name', '').strip()}")
        member = log.created(members.join(event.league_id, form.get("name", ""), form.get("adult") == "yes",
                                         form.get("under_21") == "yes"))
        checkin.check_in(event, member, log, by_host=True, override_reason=form.get("reason", ""), user_id=user_id)
    elif op == "bust":
        entry = _entry(event, arg)
        log = journal.Journal(event, user_id, op, f"{entry.member.name} out")
        positions = busts.bust(event, {entry: None}, log)
        log.action.summary = f"{entry.member.name} out in {ordinal(positions[entry])}"
    elif op == "bust_hand":
        stacks = {}
        for entry_id in form.getlist("out"):
            raw = form.get(f"stack-{entry_id}", "").replace(",", "").strip()
            stacks[_entry(event, entry_id)] = int(raw) if raw.isdigit() else None
        log = journal.Journal(event, user_id, op, "")
        positions = busts.bust(event, stacks, log)
        log.action.summary = "Out in one hand: " + ", ".join(
            f"{e.member.name} {ordinal(p)}" for e, p in sorted(positions.items(), key=lambda i: i[1]))[:180]
    elif op == "dq":
        entry = _entry(event, arg or form.get("dq_entry", ""))
        raw = form.get("dq_chips", "").replace(",", "").strip()
        if raw and not raw.isdigit():
            raise Refused("Give the chips they had as a whole number, or leave it blank.")
        log = journal.Journal(event, user_id, op, f"{entry.member.name} disqualified")
        busts.disqualify(event, entry, form.get("reason", ""), log, user_id, int(raw) if raw else None)
    elif op in ("draw", "break", "final", "settle"):
        summary = {"draw": "Seats drawn", "break": "Table broken", "final": "Final table drawn",
                   "settle": "Night settled"}[op]
        log = journal.Journal(event, user_id, op, summary)
        {"draw": seats.draw, "break": seats.break_table, "final": seats.final_table,
         "settle": settling.settle}[op](event, log)
    elif op == "deal":
        counts = {}
        for entry in field.deal_players(event):
            raw = form.get(f"deal-{entry.id}", "").replace(",", "").strip()
            counts[entry] = int(raw) if raw.isdigit() else None
        log = journal.Journal(event, user_id, op, "Deal put to the vote")
        deals.open_deal(event, counts, form.get("method", ""), log)
    elif op == "deal_off":
        log = journal.Journal(event, user_id, op, "Deal called off")
        deals.call_off_deal(event, log)
    elif op == "move_to":
        proposal, _, where = arg.partition(":")
        table, _, seat = where.partition(":")
        entry = _entry(event, form.get(f"mover-{proposal}", ""))
        if not (table.isdigit() and seat.isdigit()):
            raise Refused("Pick the seat to move to.")
        log = journal.Journal(event, user_id, op, f"{entry.member.name} moved to table {table} seat {seat}")
        seats.move(event, entry, int(table), int(seat), log)
    elif op == "bonus":
        entry = _entry(event, arg or form.get("bonus_entry", ""))
        kind = form.get("kind", "")
        log = journal.Journal(event, user_id, op, "")
        chips = bonuses.claim_bonus(event, entry, kind, log, override_reason=form.get("why", ""), user_id=user_id)
        log.action.summary = f"{entry.member.name}: {BONUS_LABELS.get(kind, kind)} bonus +{chips:,}"
    else:
        raise Refused("That button did nothing: reload the page.")
    log.record()
    return log.action.summary


@bp.route("/events/<int:event_id>/players", methods=["POST"])
def player_action(event_id: int):
    """One host action on the roster, as one transaction that Undo can take back: confirm or turn
    away an arrival (R-MEM-1), check in a walk-in or a new member (R-LATE-1/4), photo ID seen,
    bust-outs (R-PTS-5/6, several in one hand by stacks), disqualification (R-PTS-5)."""
    event = my_event(event_id)
    op, _, arg = request.form.get("op", "").partition(":")
    # Two hosts tapping at once must not both bust the same player (or give two players the same
    # place): end the read transaction, then take the event's write lock before reading again.
    db.session.commit()
    clocks.touch(event)
    try:
        message = _player_op(event, op, arg, request.form)
    except Refused as refused:
        db.session.rollback()
        return _players(event, error=str(refused), status=422)
    db.session.commit()
    announce(event)
    return _players(event, message=message)


@bp.route("/events/<int:event_id>/check-in.svg")
def check_in_qr(event_id: int):
    """R-MEM-1: the QR code of the event's check-in link, for the host's phone to show."""
    event = my_event(event_id)
    link = url_for("play.check_in", code=event.check_in_code, _external=True)
    return qr.svg(link), 200, {"Content-Type": "image/svg+xml", "Cache-Control": "private, max-age=3600"}
