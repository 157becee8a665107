"""The organiser's month and season: the month-end pack on screen (standings, tickets, Shoot-out,
High-roller Final, venues and nights, prize pools, pictures) and the season's Top 50 with its
months and Top-50 pool (R-STD, R-QUAL, R-FIN, R-PAY-3)."""

from flask import abort, redirect, url_for
from flask_login import current_user

from blueprints import neighbours, page_or_fragment
from blueprints.organiser.base import bp, my_league
from services import checklist, leagues, pack
from services.models import League


def month_pack_or_404(slug: str, month: str) -> tuple[League, pack.MonthPack]:
    """The organiser's league and its month's pack (404 for another league or a month that is not YYYY-MM)."""
    league = my_league(slug)
    try:
        return league, pack.month_pack(league, month)
    except ValueError:
        abort(404)


def chart_urls(league: League, month: str) -> dict[str, str]:
    """Where the page's pictures are served (the PDF embeds them instead)."""
    return {name: url_for("organiser.pack_chart", slug=league.slug, month=month, name=name)
            for name in ("attendance", "race")}


@bp.route("/")
def home():
    """The organiser's start: their league's latest month."""
    league = current_user.league
    months = leagues.league_months(league)
    month = months[0] if months else league.today().strftime("%Y-%m")
    return redirect(url_for("organiser.month", slug=league.slug, month=month))


@bp.route("/<slug>/months/<month>")
def month(slug: str, month: str):
    """R-STD-1, R-QUAL-1..5, R-FIN, R-PAY-3: the month-end pack, a section per table with contents."""
    league, found = month_pack_or_404(slug, month)
    return page_or_fragment(
        "organiser/month.html", "organiser/_month.html",
        league=league, month=month, month_label=found.label, pack=found, charts=chart_urls(league, month),
        steps=checklist.first_steps(league),
        **neighbours(leagues.league_months(league), month))


@bp.route("/<slug>/seasons/<int:year>")
def season(slug: str, year: int):
    """R-STD-2, R-PAY-3: the season's Top 50 with ties, their months, and the Top-50 prize pool."""
    league = my_league(slug)
    try:
        found = pack.season_pack(league, year)
    except ValueError:
        abort(404)
    return page_or_fragment("organiser/season.html", "organiser/_season.html",
                            league=league, year=year, table=found.table, total=found.total, pack=found)
