"""The organiser's pages: the month view (standings, tickets, Shoot-out, High-roller Final)."""
import datetime as dt

from flask import Blueprint, abort, redirect, url_for
from flask_login import current_user, login_required

import records
from blueprints import page_or_fragment
from league.standings import top_with_ties
from models import League

bp = Blueprint("organiser", __name__, url_prefix="/organiser")


@bp.before_request
@login_required
def _organisers_only():
    """Every organiser page needs an organiser's login (hosts run nights, not the league's tables)."""
    if not current_user.is_organiser:
        abort(403)


def _my_league(slug: str) -> League:
    league = current_user.league
    if league.slug != slug:
        abort(404)
    return league


@bp.route("/")
def home():
    """The organiser's start: their league's latest month."""
    league = current_user.league
    months = records.league_months(league)
    month = months[0] if months else dt.date.today().strftime("%Y-%m")
    return redirect(url_for("organiser.month", slug=league.slug, month=month))


@bp.route("/<slug>/months/<month>")
def month(slug: str, month: str):
    """R-STD-1, R-QUAL-1..5, R-FIN: a month's standings, ticket holders, Shoot-out and High-roller Final."""
    league = _my_league(slug)
    try:
        first, _ = records.parse_month(month)
    except ValueError:
        abort(404)
    table = records.month_standings(league, month)
    months = records.league_months(league)
    if month not in months:
        months = sorted(set(months) | {month}, reverse=True)
    position = months.index(month)
    return page_or_fragment(
        "organiser/month.html", "organiser/_month.html",
        league=league, month=month, month_label=first.strftime("%B %Y"), table=table,
        qualifiers=records.qualifiers(league, month, table),
        tickets=records.ticket_holders(league, month),
        newer=months[position - 1] if position > 0 else None,
        older=months[position + 1] if position + 1 < len(months) else None,
        months=months)


@bp.route("/<slug>/seasons/<int:year>")
def season(slug: str, year: int):
    """R-STD-2: the season table, Top 50 with ties."""
    league = _my_league(slug)
    try:
        table = records.year_standings(league, year)
    except ValueError:
        abort(404)
    return page_or_fragment("organiser/season.html", "organiser/_season.html",
                            league=league, year=year, table=top_with_ties(table, 50), total=len(table))
