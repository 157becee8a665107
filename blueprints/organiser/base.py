"""The organiser blueprint itself and what every organiser view needs: an organiser's login, their league
and its venues."""

from flask import Blueprint, abort
from flask_login import current_user, login_required

from services.models import League, Venue
from wiring.extensions import db

bp = Blueprint("organiser", __name__, url_prefix="/organiser")


@bp.before_request
@login_required
def _organisers_only():
    """Every organiser page needs an organiser's login (hosts run nights, not the league's tables)."""
    if not current_user.is_organiser:
        abort(403)


def my_league(slug: str) -> League:
    """The organiser's own league by its slug (404 for any other league)."""
    league = current_user.league
    if league.slug != slug:
        abort(404)
    return league


def venue_or_404(league: League, venue_id: int) -> Venue:
    """A venue of the organiser's league (404 for another league's or none)."""
    venue = db.session.get(Venue, venue_id)
    if venue is None or venue.league_id != league.id:
        abort(404)
    return venue
