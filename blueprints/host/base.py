"""The host blueprint itself and what every host view needs: a login, an event the user runs, and
when an action kept on the host's phone while it had no signal was tapped."""

import datetime as dt

from flask import Blueprint, abort
from flask_login import current_user, login_required

from blueprints import event_or_404, runs
from blueprints.forms import blank_or_whole_number
from league import clock
from services import Refused, clocks
from services.models import Event, moment

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


# Epoch milliseconds until the year 2286: a larger number is no time a phone reckoned.
TAPPED_AT_MAX = 10**13


def tapped_at(form) -> int | None:
    """R-CLOCK-3: when an action kept on the host's phone while it had no signal was tapped
    (`tapped_at_ms`, server time as the phone reckoned it), in server ms, bounded as clock.tap_time
    bounds the clock's taps with no clock change to stay after: never in the future, at most
    TAP_KEPT_MS back. None for an action sent as it was made.
    Raises Refused, nothing written: a garbled moment, or one too old to apply as then."""
    tapped = blank_or_whole_number(form.get("tapped_at_ms"), GARBLED, high=TAPPED_AT_MAX)
    if tapped is None:
        return None
    try:
        return clock.tap_time(tapped, clocks.now_ms(), None)
    except clock.TapTooOld as too_old:
        raise Refused(str(too_old)) from None


def tapped_moment(form) -> dt.datetime | None:
    """R-PTS-5, R-PEN-1/2: `tapped_at` as the journal's time (naive UTC), so that a bust-out's time and a
    penalty's start and return estimate are the host's, not the signal's."""
    at = tapped_at(form)
    return None if at is None else moment(at)
