"""Live and JSON: the clock's server-sent events and JSON, the time source, and /api/ reads."""
from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request, stream_with_context

import clocks
import notices
import records
from extensions import db
from models import Event, League

bp = Blueprint("live", __name__)


def _league(slug: str) -> League:
    league = records.find_league(slug)
    if league is None:
        abort(404, description=f"no league {slug!r}")
    return league


def event_or_404(event_id: int) -> Event:
    """The event, or a 404."""
    event = db.session.get(Event, event_id)
    if event is None:
        abort(404, description=f"no event {event_id}")
    return event


@bp.app_template_filter("clock_time")
def clock_time(ms: int | None) -> str:
    """Milliseconds as the clock shows them: m:ss, or h:mm:ss from an hour (rounded up, so 0:00
    shows only when the time is truly up)."""
    seconds = -(-max(ms or 0, 0) // 1000)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


@bp.app_template_filter("ordinal")
def ordinal(n: int | None) -> str:
    """1st, 2nd, 3rd, 4th … 11th, 12th, 13th, 21st."""
    if n is None:
        return "–"
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@bp.app_template_filter("chips")
def chips(amount: int | None) -> str:
    """Chips with thousands separators; a dash for none."""
    return "–" if amount is None else f"{amount:,}"


def _json(payload, status=200):
    response = jsonify(payload)
    response.status_code = status
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.errorhandler(400)
@bp.errorhandler(404)
def _json_error(error):
    if request.path.startswith("/api/"):
        return _json({"error": error.description}, error.code)
    return error


@bp.route("/api/time")
def server_time():
    """The server's clock in epoch ms: devices time round trips to it to estimate their offset (R-CLOCK-3)."""
    return _json({"server_time_ms": clocks.now_ms()})


@bp.route("/api/events/<int:event_id>/clock")
def clock_json(event_id: int):
    """R-CLOCK-1..4: the live clock of an event (public read)."""
    return _json(clocks.payload(event_or_404(event_id)))


def render_clock(event_id: int) -> tuple[int, bytes]:
    """(version, the clock fragment as one SSE message) as every screen gets it, read afresh."""
    db.session.close()  # a fresh read: an open snapshot would show an old state
    version, message = clock_message(event_or_404(event_id))
    db.session.close()
    return version, message


def clock_message(event: Event, clock: dict | None = None) -> tuple[int, bytes]:
    """(version, SSE message) of the clock fragment for `event` as committed."""
    clock = clocks.payload(event) if clock is None else clock
    html = render_template("live/_clock.html", event=event, clock=clock)
    return clock["version"], _sse(clock["version"], html).encode()


def announce(event: Event) -> dict:
    """R-CLOCK-3: after a committed change, wake every screen of the event, in every process.

    The message is rendered here, once, before any stream wakes: the first phone need not read
    the state again, and the host's own response reuses the returned payload.
    """
    clock = clocks.payload(event)
    hub = notices.hub()
    hub.rendered(event.id, clock["version"], lambda: clock_message(event, clock))
    hub.publish(event.id, clock["version"])
    return clock


def _sse(version: int, html: str) -> str:
    lines = "".join(f"data: {line}\n" for line in html.splitlines() or [""])
    return f"id: {version}\nevent: clock\n{lines}\n"


@bp.route("/events/<int:event_id>/stream")
def clock_stream(event_id: int):
    """R-CLOCK-3: server-sent events with the clock fragment, sent at once and at every host action.

    The first message always carries the current state, so a reconnecting phone catches up
    whatever it missed; heartbeats also re-check the version in case a notice was lost.
    """
    event_or_404(event_id)
    hub = notices.hub()
    app = current_app._get_current_object()

    def render():
        return render_clock(event_id)

    def stream():
        version, message = hub.rendered(event_id, -1, render)
        yield b"retry: 2000\n" + message
        while True:
            newer = hub.wait(event_id, version)
            if newer is None:
                if hub.due_check(event_id, hub.heartbeat_s / 2):
                    with app.app_context():
                        db.session.close()
                        current = db.session.scalar(db.select(Event.clock_version).where(Event.id == event_id))
                        db.session.close()
                    if current is not None and current > version:
                        hub.deliver(event_id, current)
                        continue
                yield b": heartbeat\n\n"
                continue
            cached = hub.cached(event_id, newer)
            if cached is None:
                with app.app_context():
                    cached = hub.rendered(event_id, newer, render)
            if cached[0] <= version:
                # a notice for a version this database doesn't have (e.g. another database's event
                # with the same id on a shared Redis): don't re-render in a loop; wait for a change
                version = newer
                continue
            version, message = cached
            yield message

    return Response(stream_with_context(stream()), mimetype="text/event-stream", headers={
        "Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@bp.route("/api/leagues/<slug>/standings")
def standings(slug: str):
    """R-STD-1/2: `?month=YYYY-MM` or `?year=YYYY` → {"standings": [{rank, player, points, events}]}."""
    league = _league(slug)
    month, year = request.args.get("month"), request.args.get("year")
    if bool(month) == bool(year):
        abort(400, description="give exactly one of month=YYYY-MM or year=YYYY")
    try:
        table = records.month_standings(league, month) if month else records.year_standings(league, year)
    except ValueError as problem:
        abort(400, description=str(problem))
    return _json(records.standings_json(table))


@bp.route("/api/leagues/<slug>/qualifiers")
def qualifiers(slug: str):
    """R-QUAL-1..5, R-FIN: `?month=YYYY-MM` → monthly_final, top10_shootout, highroller_final."""
    league = _league(slug)
    try:
        return _json(records.qualifiers(league, request.args.get("month", "")))
    except ValueError as problem:
        abort(400, description=str(problem))
