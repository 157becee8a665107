"""The host blueprint itself and what every host view needs: a login, and an event the user runs."""

from flask import Blueprint, abort
from flask_login import current_user, login_required

from blueprints import event_or_404, runs
from services.models import Event

bp = Blueprint("host", __name__, url_prefix="/host")


@bp.before_request
@login_required
def _logged_in():
    """Every host page needs a host's or organiser's login (the operator runs no league's nights)."""
    if current_user.league_id is None:
        abort(403)


def my_event(event_id: int) -> Event:
    """The event, if the logged-in user runs it (403 otherwise)."""
    event = event_or_404(event_id)
    if not runs(event):
        abort(403)
    return event


GARBLED = "That request was garbled; nothing changed."
