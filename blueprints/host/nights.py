"""The host's start page: their coming nights, and a new night (R-CLOCK-1: its blind structure)."""

from flask import redirect, render_template, url_for
from flask_login import current_user
from wtforms import SelectChoice

from blueprints import runs
from blueprints.forms import NightForm
from blueprints.host.base import bp
from services import leagues
from services.models import Venue
from wiring.extensions import db


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
    """Create the night: a venue, an event type and a blind structure; pre-registration
    opens and the check-in link exists from now on."""
    form = _my_night_form(NightForm())
    if not form.validate():
        return _home(form, 422)
    event = form.new_event(current_user.league_id, current_user.id)
    db.session.add(event)
    db.session.commit()
    return redirect(url_for("host.players", event_id=event.id), 303)
