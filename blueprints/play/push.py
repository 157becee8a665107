"""A player's phone asks to be told when they move (Web Push): POST /me/push with the browser's
PushSubscription JSON, DELETE /me/push to stop. The member cookie says whose phone it is; the page's
CSRF token comes in X-CSRFToken (Flask-WTF checks it before the view runs)."""
from flask import abort, current_app, jsonify, request

from blueprints.play.base import bp, private
from blueprints.play.member_cookie import current_member
from league import push as rules
from services import push as subscriptions
from wiring.extensions import db

MAX_BODY = 4096  # a PushSubscription's JSON is well under 1 kB


def _refuse(status: int, reason: str):
    """Stop here with `{"error": reason}`: the page's script reads the reason, never an HTML page."""
    abort(_answer({"error": reason}, status))


def _subscription(required_keys: bool = True) -> tuple[str, str, str]:
    """The endpoint and keys of the request's PushSubscription JSON, or 400/413 saying what is wrong."""
    if request.content_length is None or request.content_length > MAX_BODY:
        _refuse(413, "A push subscription is a small JSON object.")
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        _refuse(400, "Send the browser's PushSubscription as JSON.")
    endpoint = data.get("endpoint")
    problem = rules.endpoint_problem(endpoint, rules.allowed_services(current_app.config.get("PUSH_SERVICES")))
    keys = data.get("keys")
    if problem is None and required_keys:
        keys = keys if isinstance(keys, dict) else {}
        problem = rules.keys_problem(keys.get("p256dh"), keys.get("auth"))
    if problem:
        _refuse(400, problem)
    return endpoint, (keys or {}).get("p256dh", ""), (keys or {}).get("auth", "")


def _answer(payload: dict, status: int):
    return private(jsonify(payload), status)


@bp.route("/me/push", methods=["POST"])
def push_subscribe():
    """R-MEM-1: this phone is told when its member moves seat (R-SEAT-2..4), when registration closes
    soon (R-LATE-3), when a penalty is over (R-PEN-2), of a ticket or the Shoot-out (R-QUAL-1/4) and of
    the night's results (R-PTS). Only to an allowed push service, with keys a message can be encrypted
    to; no member card → 403. 201 with nothing else changed on a refusal."""
    member = current_member()
    if member is None:
        _refuse(403, "This phone has no member card: check in at a night first.")
    endpoint, p256dh, auth = _subscription()
    subscriptions.subscribe(member.id, endpoint, p256dh, auth)
    db.session.commit()
    return _answer({"subscribed": True}, 201)


@bp.route("/me/push", methods=["DELETE"])
def push_unsubscribe():
    """R-MEM-1: stop telling this phone (the member's own subscription only; another member's is left
    alone). 200 whether or not it was subscribed."""
    member = current_member()
    if member is None:
        _refuse(403, "This phone has no member card.")
    endpoint, _, _ = _subscription(required_keys=False)
    ended = subscriptions.unsubscribe(member.id, endpoint)
    db.session.commit()
    return _answer({"subscribed": False, "ended": ended}, 200)
