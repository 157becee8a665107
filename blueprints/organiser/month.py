"""The organiser's month and season: standings, tickets, Shoot-out and High-roller Final (R-STD, R-QUAL, R-FIN)."""

from flask import abort, redirect, url_for
from flask_login import current_user

from blueprints import neighbours, page_or_fragment
from blueprints.organiser.base import bp, my_league
from league.standings import top_with_ties
from services import leagues, standings


@bp.route("/")
def home():
    """The organiser's start: their league's latest month."""
    league = current_user.league
    months = leagues.league_months(league)
    month = months[0] if months else league.today().strftime("%Y-%m")
    return redirect(url_for("organiser.month", slug=league.slug, month=month))


@bp.route("/<slug>/months/<month>")
def month(slug: str, month: str):
    """R-STD-1, R-QUAL-1..5, R-FIN: a month's standings, ticket holders, Shoot-out and High-roller Final."""
    league = my_league(slug)
    try:
        first, _ = leagues.parse_month(month)
    except ValueError:
        abort(404)
    table = standings.month_standings(league, month)
    return page_or_fragment(
        "organiser/month.html", "organiser/_month.html",
        league=league, month=month, month_label=first.strftime("%B %Y"), table=table,
        qualifiers=standings.qualifiers(league, month, table),
        tickets=standings.ticket_holders(league, month),
        **neighbours(leagues.league_months(league), month))


@bp.route("/<slug>/seasons/<int:year>")
def season(slug: str, year: int):
    """R-STD-2: the season table, Top 50 with ties."""
    league = my_league(slug)
    try:
        table = standings.year_standings(league, year)
    except ValueError:
        abort(404)
    return page_or_fragment("organiser/season.html", "organiser/_season.html",
                            league=league, year=year, table=top_with_ties(table, 50), total=len(table))
