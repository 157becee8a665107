"""Health: the endpoint a load balancer or monitor polls, and the 503 every request gets while
the database is down (instead of a 500), so a PostgreSQL restart mid-night costs a "try again"."""
import contextlib

from flask import Blueprint, current_app, jsonify, make_response, request
from sqlalchemy import exc

from blueprints import is_htmx, once, wants_json
from wiring import health
from wiring.extensions import db

bp = Blueprint("health", __name__)
RETRY_AFTER_S = 5


@bp.route("/healthz")
def healthz():
    """200 with each service's state when the app can serve, else 503 naming what is down or full
    ({"database": "ok", "redis": "down", "disk": "full"}). No login: it tells nothing about the league."""
    states = health.check()
    response = jsonify(states)
    response.status_code = 200 if health.healthy(states) else 503
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.app_errorhandler(exc.DBAPIError)
@bp.app_errorhandler(exc.DisconnectionError)
@bp.app_errorhandler(exc.TimeoutError)
def database_down(error):
    """The database is unreachable or restarting: this request is refused whole (its transaction
    rolled back, nothing written) with 503 and a Retry-After; the next one after the database is
    back gets a fresh connection (pool_pre_ping). Any other database error is a bug: re-raised."""
    if not health.service_down(error):
        raise error
    with contextlib.suppress(Exception):  # the connection is gone; the session is discarded at teardown
        db.session.rollback()
    # After the action's commit, "nothing was changed" would be untrue (a retry with the same key answers
    # "saved"); during it, unknown (the retry finds out). A full disk refuses the commit itself, which
    # is rolled back whole: nothing was saved, and the words name the disk.
    refusal = health.refusal(error)
    message = refusal if refusal == health.DISK_FULL else once.fault_after(
        health.SAVED_THEN_DOWN, health.MAYBE_SAVED_THEN_DOWN, refusal)
    saved = message == health.SAVED_THEN_DOWN
    if wants_json():
        response = jsonify({"error": message, "saved": saved})
    else:
        # Straight from the template, without the context processors: Flask-Login's would ask the
        # database who is logged in, and the database is what is down.
        page = "health/_unavailable.html" if is_htmx() else "health/unavailable.html"
        template = current_app.jinja_env.get_template(page)
        title = "The disk is full" if message == health.DISK_FULL else "Back in a moment"
        response = make_response(template.render(message=message, title=title, retry=request.method == "GET",
                                                 saved=saved))
    response.status_code = 503
    response.headers["Retry-After"] = str(RETRY_AFTER_S)
    response.headers["Cache-Control"] = "no-store"
    return response
