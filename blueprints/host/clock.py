"""The night's clock on the host's phone (R-CLOCK-1..4): the controls and the blind structure editor."""

from flask import redirect, request, url_for
from flask_login import current_user
from markupsafe import Markup, escape

from blueprints import commit_as_is, is_htmx, page_or_fragment
from blueprints.filters import chips
from blueprints.forms import ID_MAX, blank_or_whole_number, read_whole_number, whole_number
from blueprints.host.base import GARBLED, TAPPED_AT_MAX, bp, my_event
from league import structures
from live import payload
from live.announce import announce, announce_rendered, sse_message, stream_json
from live.payload import clock_payload
from services import Refused, clocks
from services.models import Event
from wiring.extensions import db


def controls_context(event: Event, error: str | None = None, state: str | None = None) -> dict:
    """What the controls (host/_controls.html) show: the clock now, the refusal if any, the level
    picker and the stream's JSON (`state`, when a tap made it)."""
    clock = clock_payload(event)
    return {"event": event, "clock": clock, "error": error, "level_options": level_options(clock),
            "clock_state": stream_json(event, clock) if state is None else state}


def _controls(event: Event, error: str | None = None, status: int = 200, state: str | None = None):
    return page_or_fragment("host/event.html", "host/_controls.html", status=status,
                            **controls_context(event, error, state))


# The level picker's options by structure digest: the same 20-odd items at every tap of the night.
_OPTIONS: dict[str, tuple[str, ...]] = {}
_OPTIONS_KEPT = 256


def level_options(clock: dict) -> Markup:
    """R-CLOCK-1/3: the host's level picker for the structure `clock` carries ("3. 100/200 a25",
    "4. Break (15 min)"), the current item selected; made once per structure, not at every tap."""
    options = _OPTIONS.get(clock["structure_digest"])
    if options is None:
        options = tuple(
            f'<option value="{number}">{number}. ' + (
                f"{escape(item['label'])} ({item['minutes']} min)" if item["kind"] == "break"
                else f"{chips(item['small_blind'])}/{chips(item['big_blind'])}"
                     + (f" a{chips(item['ante'])}" if item.get("ante") else "")) + "</option>"
            for number, item in enumerate(clock["structure"], 1))
        if len(_OPTIONS) >= _OPTIONS_KEPT:
            _OPTIONS.clear()
        _OPTIONS[clock["structure_digest"]] = options
    chosen = list(options)
    if 0 <= clock["index"] < len(chosen):
        chosen[clock["index"]] = chosen[clock["index"]].replace("<option ", "<option selected ", 1)
    return Markup("".join(chosen))


@bp.route("/events/<int:event_id>")
def event(event_id: int):
    """The host's night screen: the clock and its controls (R-CLOCK-3)."""
    return _controls(my_event(event_id))


def tap(event: Event, form) -> tuple[str | None, int, str | None]:
    """R-CLOCK-3/4, R-HFH-1/2: one tap of the host's controls (`form`: their fields: action, version, index,
    seat, and for a tap sent after the signal came back: tapped_at_ms, applied at that moment within
    clock.tap_time's bounds, and seen_clock, the clock it was tapped on, clocks.seen_clock): applied,
    committed and announced, or refused with nothing written.
    → (refusal, status, state): the refusal's words and 400/409/422, or None, 200 and the stream's
    message for the clock as written.

    The form carries the version the host's screen showed: a repeated tap on flaky wifi, or a
    second host's change in between, is refused with 409 (the controls then show the clock now).
    The phones' message is made inside the tap's transaction, from the row as written (nothing is
    read again) and from the part of the payload it carries only, and goes out as soon as the
    commit returns: the controls, if any, are made after."""
    try:
        seen = whole_number(form.get("version"), GARBLED, high=ID_MAX)
        level = blank_or_whole_number(form.get("index"), GARBLED, high=ID_MAX)  # 1-based, as the picker shows
        # a tap kept on the host's phone while offline (static/host/kept.js): when it was tapped
        tapped_at = blank_or_whole_number(form.get("tapped_at_ms"), GARBLED, high=TAPPED_AT_MAX)
    except Refused as garbled:
        return str(garbled), 400, None
    try:
        new = clocks.act(event, form.get("action", ""), seen, index=None if level is None else level - 1,
                         seat=form.get("seat"), user_id=current_user.id, tapped_at_ms=tapped_at,
                         seen=form.get("seen_clock"))
    except clocks.StaleClock:
        db.session.rollback()
        return "The clock changed on another screen; here it is now. Tap again if needed.", 409, None
    except ValueError as problem:
        db.session.rollback()
        return str(problem), 422, None
    # a tap changes no entry: the field as at the version it moved on from (the one seen, or for a
    # tap kept offline on the same clock, the one the field had moved it on to)
    before = new.version - 1
    state = stream_json(event, payload.streamed(event, field_version=before))
    commit_as_is()
    payload.carry(event.id, before, new.version)
    announce_rendered(event.id, new.version, sse_message(new.version, state))
    return None, 200, state


@bp.route("/events/<int:event_id>/clock", methods=["POST"])
def clock_action(event_id: int):
    """R-CLOCK-3/4, R-HFH-1/2: start, pause, resume, next, previous, ±1 min, jump, call the clock,
    hand-for-hand on and off, next hand (`tap`).

    The host's answer comes after the phones': the controls and the message the phones got (not the
    clock fragment: clock.js draws it on the host's screen). The same taps also come over the
    host's line (`clock_line`), which skips this request's per-tap HTTP work."""
    event = my_event(event_id)
    error, status, state = tap(event, request.form)
    if error is None and not is_htmx():
        return redirect(url_for("host.event", event_id=event_id), 303)
    return _controls(event, error, status, state)


FIELDS = ("minutes", "small_blind", "big_blind", "ante", "label", "colour_up")


def _submitted_items(form) -> list[dict]:
    """The editor's rows as the structure's JSON form; numbers that don't parse stay text so the
    check names them ("minutes must be a whole number, not '1o'")."""
    kinds = form.getlist("kind")
    columns = {name: form.getlist(name) for name in FIELDS}
    major = form.get("major", "")
    items = []
    for row, kind in enumerate(kinds):
        def value(name, number=True, row=row):  # this row's cell (bound now: B023)
            raw = columns[name][row].strip() if row < len(columns[name]) else ""
            whole = read_whole_number(raw) if number else None
            return raw if whole is None else whole
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
        seen = whole_number(form.get("version"), GARBLED, high=ID_MAX)
        if op == "template":
            items = structures.to_json(structures.TEMPLATES[form.get("template", "")][1])
        else:
            items = _submitted_items(form)
            if op != "save":
                items = structures.edit_items(items, op, whole_number(where or "0", GARBLED, high=ID_MAX) - 1)
    except (ValueError, KeyError):  # Refused is a ValueError
        return _editor(event, errors=[GARBLED], status=400)
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
    announce(event, structure=True)
    return _editor(event, message="Saved.")
