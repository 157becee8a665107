"""Live: the clock's server-sent events and JSON, and the time source (the league's data API is blueprints/api.py;
its OpenAPI document describes these two JSON paths too, and answers every /api/ refusal as JSON)."""
from functools import partial

from flask import Blueprint, Response, current_app, jsonify, request, stream_with_context
from sqlalchemy import exc

from blueprints import event_or_404
from live import notices, seats
from live.announce import render_clock
from live.payload import clock_payload
from services import clocks
from services.night_snapshot import read_night
from wiring import health
from wiring.extensions import db

bp = Blueprint("live", __name__)


def _json(payload, status=200):
    response = jsonify(payload)
    response.status_code = status
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.route("/api/time")
def server_time():
    """The server's clock in epoch ms: devices time round trips to it to estimate their offset (R-CLOCK-3)."""
    return _json({"server_time_ms": clocks.now_ms()})


@bp.route("/api/events/<int:event_id>/clock")
def clock_json(event_id: int):
    """R-CLOCK-1..4: the live clock of an event (public read)."""
    return _json(clock_payload(event_or_404(event_id)))


@bp.route("/api/events/<int:event_id>/seats")
def seating_json(event_id: int):
    """R-SEAT-1..4: tonight's seats by name (public read, as the room sees them at the tables): the big
    screen fetches it when the clock's seat digest moves, to say who moved where."""
    return _json(seats.seating_list(read_night(event_or_404(event_id))))


@bp.route("/events/<int:event_id>/stream")
def clock_stream(event_id: int):
    """R-CLOCK-3: server-sent events, a message at once and one at every host action: the clock's
    state and the field's figures as one line of JSON (live/announce.py `stream_json`), from which
    clock.js draws the clock; the blind structure rides along only when it changed.

    The first message always carries the current state, so a reconnecting phone catches up
    whatever it missed; each heartbeat round re-reads the versions in case a notice was lost
    (`notices.Hub.beat`).
    """
    event_or_404(event_id)
    hub = notices.hub()
    app = current_app._get_current_object()

    def render():
        return render_clock(event_id)

    def stream():
        version, message = hub.rendered(event_id, -1, render)
        yield b"retry: 2000\n" + message
        if phone is not None:  # gunicorn has sent the headers and the first message: the hub writes the rest
            hub.serve(event_id, phone, version, latest)  # returns when the phone hangs up
            return
        while True:
            newer = hub.wait(event_id, version)
            if newer is None:
                yield b": heartbeat\n\n"
                continue
            cached = latest(newer)
            if cached[0] <= version:
                # a notice for a version this database doesn't have (e.g. another database's event
                # with the same id on a shared Redis): don't make the message again in a loop; wait
                version = newer
                continue
            version, message = cached
            yield message

    def latest(version: int):
        cached = hub.cached(event_id, version)
        if cached is None:
            with app.app_context():
                cached = hub.rendered(event_id, version, render)
        return cached

    phone = _hub_writes(request.environ, app)
    return Response(stream_with_context(stream()), mimetype="text/event-stream", headers={
        "Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@bp.record_once
def _catch_up_reads(state) -> None:
    """Give the app's hub its heartbeat round's catch-up read (R-CLOCK-3, `notices.Hub.beat`)."""
    state.app.extensions["notices"].stored_versions = partial(_stored_versions, state.app)


def _stored_versions(app, event_ids: list[int]) -> dict[int, int] | None:
    """The events' clock versions as stored, in one read for a heartbeat round however many nights
    the process serves; None while the database is down (a restart mid-night): the streams stay open
    and catch up at a later round."""
    with app.app_context():
        try:
            return clocks.stored_versions(event_ids)
        except exc.SQLAlchemyError as problem:
            if not health.service_down(problem):
                raise
            return None
        finally:
            db.session.remove()


def _hub_writes(environ, app) -> notices.Phone | None:
    """A Phone for the hub's writer when this stream's socket can take non-blocking writes from it:
    under gunicorn's gevent worker (its socket is in the environ), for a GET; else None and the
    stream's own greenlet writes every message (the development server, the test client)."""
    sock = environ.get("gunicorn.socket")
    if (sock is None or not type(sock).__module__.startswith("gevent") or environ.get("REQUEST_METHOD") != "GET"
            or not app.config.get("HUB_WRITES", True)):
        return None
    import threading  # gevent's Event under its worker (monkey-patched)
    # gunicorn frames a streamed answer to an HTTP/1.1 request in chunks; to HTTP/1.0, raw.
    return notices.Phone(sock, environ.get("SERVER_PROTOCOL") != "HTTP/1.0", threading.Event())
