"""Pages anyone can open: the home page, an event's clock on a phone, and the big screen."""
import datetime as dt

from flask import Blueprint, render_template

import clocks
from blueprints.live import event_or_404
from extensions import db
from models import Event, League

bp = Blueprint("play", __name__)


@bp.route("/")
def home():
    """The home page: tonight's events and each league's standings."""
    today = dt.date.today()
    tonight = db.session.scalars(db.select(Event).where(Event.date == today).order_by(Event.start_time)).all()
    leagues = db.session.scalars(db.select(League).order_by(League.name)).all()
    return render_template("play/home.html", tonight=tonight, leagues=leagues)


@bp.route("/events/<int:event_id>")
def event(event_id: int):
    """R-CLOCK-1..3: the event's live clock on a player's phone."""
    event = event_or_404(event_id)
    return render_template("play/event.html", event=event, clock=clocks.payload(event))


@bp.route("/events/<int:event_id>/screen")
def screen(event_id: int):
    """R-CLOCK-1..3: the big screen for a TV: huge digits, blinds, next level, players left, average stack."""
    event = event_or_404(event_id)
    return render_template("play/screen.html", event=event, clock=clocks.payload(event))
