"""Pages anyone can open: the home page with tonight's nights and the leagues."""
import datetime as dt

from flask import Blueprint, render_template

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
