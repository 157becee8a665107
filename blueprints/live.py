"""JSON under /api/ (public reads) and, later, the live clock's server-sent events."""
from flask import Blueprint, abort, jsonify, request

import records
from models import League

bp = Blueprint("live", __name__, url_prefix="/api")


def _league(slug: str) -> League:
    league = records.find_league(slug)
    if league is None:
        abort(404, description=f"no league {slug!r}")
    return league


@bp.errorhandler(400)
@bp.errorhandler(404)
def _json_error(error):
    return jsonify(error=error.description), error.code


@bp.route("/leagues/<slug>/standings")
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
    return jsonify(records.standings_json(table))


@bp.route("/leagues/<slug>/qualifiers")
def qualifiers(slug: str):
    """R-QUAL-1..5, R-FIN: `?month=YYYY-MM` → monthly_final, top10_shootout, highroller_final."""
    league = _league(slug)
    try:
        return jsonify(records.qualifiers(league, request.args.get("month", "")))
    except ValueError as problem:
        abort(400, description=str(problem))
