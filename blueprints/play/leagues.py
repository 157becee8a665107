"""League pages anyone can open, no login: the home page, and each league's home, month
and season standings with a name search, qualifiers, each night's results and coming nights."""
import datetime as dt

from flask import abort, make_response, render_template, request
from sqlalchemy.orm import joinedload

from blueprints import event_or_404, neighbours, page_or_fragment
from blueprints.play.base import TABLE_ID, bp, my_row, prereg_state, private, top_of_table
from blueprints.play.member_cookie import current_member
from league.members import name_key
from league.standings import SEASON_TABLE_SIZE, top_with_ties
from league.statuses import EventStatus
from services import finals, leagues, results, road, standings
from services.models import Event, League
from wiring.extensions import db

RECENT_NIGHTS = 5


@bp.route("/")
def home():
    """The home page: tonight's events (to their clock) and each league's page."""
    # "Tonight" is each league's own date (R-STD-1): the server's may be a day off a league's venues.
    today = dt.date.today()
    # A settled night (an imported one too) is over, a cancelled one never happens: not tonight's.
    near = db.session.scalars(db.select(Event).options(joinedload(Event.league)).where(
        Event.date.between(today - dt.timedelta(days=1), today + dt.timedelta(days=1)),
        Event.status.not_in((EventStatus.SETTLED, EventStatus.CANCELLED))).order_by(Event.start_time))
    tonight = [event for event in near if event.date == event.league.today()]
    leagues = db.session.scalars(db.select(League).order_by(League.name)).all()
    return render_template("play/home.html", tonight=tonight, leagues=leagues)


@bp.route("/leagues/<slug>")
def league_home(slug: str):
    """R-STD-1, R-QUAL-1..5: a league's home: tonight's clocks, the top of the table of the month it
    leads with (last month's while its finals are still to be played, with each final's date, time and
    venue; else this month's, or the latest with results), the latest nights' results, and links to
    every public page. A phone holding a member card of the league also gets the member's road to the
    finals (services.road, R-STD-1/2, R-QUAL-1/2/4), and the page is then theirs alone (private)."""
    league = _league_or_404(slug)
    top = top_of_table(league)
    member = current_member()
    mine = member if member is not None and member.league_id == league.id else None
    this_month = league.today().strftime("%Y-%m")
    # The month the page leads with is usually this month: its table is read once, for both.
    found = mine and road.road_of(league, mine, month_table=top["table"] if top["month"] == this_month else None)
    page = render_template(
        "play/league.html", league=league, **top, road=found,
        live=[e for e in leagues.nights_from(league, league.today()) if e.status == EventStatus.RUNNING],
        recent=leagues.settled_nights(league, limit=RECENT_NIGHTS))
    if found:
        return private(page)
    response = make_response(page)
    response.vary.add("Cookie")  # "Jump to me" and the road are this phone's own
    return response


@bp.route("/leagues/<slug>/months/<month>")
def month_standings(slug: str, month: str):
    """R-STD-1: a month's standings (ranks shared on equal points) and its nights' results; `?q=`
    filters the table by name, and an htmx search gets the table alone. A phone with a member in the
    table gets "Jump to me" and their row marked."""
    league = _league_or_404(slug)
    first, following = _month_or_404(month)
    table = standings.month_standings(league, month)
    return _standings(
        "play/month.html", "play/_month.html", league=league, month=month, year=month[:4],
        title=f"{first.strftime('%B %Y')} standings · {league.name}", month_label=first.strftime("%B %Y"),
        table=table, me_row=my_row(league, table),
        nights=leagues.settled_nights(league, first, following),
        **neighbours(leagues.league_months(league), month))


@bp.route("/leagues/<slug>/seasons/<int:year>")
def season_standings(slug: str, year: int):
    """R-STD-2: the season table as published: the Top 50, and everyone tied with 50th; `?q=`
    filters it by name, and an htmx search gets the table alone. A phone with a member in the table
    gets "Jump to me" (or, below the Top 50, their rank and points)."""
    league = _league_or_404(slug)
    try:
        table = standings.year_standings(league, year)
    except ValueError:
        abort(404)
    months = leagues.league_months(league)
    latest = next((m for m in months if m.startswith(str(year))), f"{year}-12")
    return _standings(
        "play/season.html", "play/_season.html", league=league, year=str(year), month=latest,
        title=f"{year} season · {league.name}", table=top_with_ties(table, SEASON_TABLE_SIZE),
        me_row=my_row(league, table), players=len(table), top=SEASON_TABLE_SIZE,
        **neighbours(sorted({m[:4] for m in months}, reverse=True), str(year)))


@bp.route("/leagues/<slug>/months/<month>/qualifiers")
def month_qualifiers(slug: str, month: str):
    """R-QUAL-1..5, R-FIN: the month's Monthly Final ticket holders (with the night each came from),
    the Top-10 Shoot-out and the High-roller Final entrants with their starting stacks."""
    league = _league_or_404(slug)
    first, _ = _month_or_404(month)
    return page_or_fragment(
        "play/qualifiers.html", "play/_qualifiers.html", league=league, month=month, year=month[:4],
        title=f"{first.strftime('%B %Y')} finals · {league.name}", month_label=first.strftime("%B %Y"),
        tickets=standings.ticket_holders(league, month), qualifiers=finals.qualifiers(league, month),
        finals=finals.finals_for(league, month),
        **neighbours(leagues.league_months(league), month))


@bp.route("/events/<int:event_id>/results")
def event_results(event_id: int):
    """R-PTS-1..8, R-QUAL-1/2: a settled night's finishing order, points and the Monthly Final
    tickets it gave; a night not settled yet has no results page (404)."""
    event = event_or_404(event_id)
    if event.status != EventStatus.SETTLED:
        abort(404, description="this night's results are not settled yet")
    finishers = results.finishers(event)
    # R-QUAL-1..5: a final's pages lead to the month it was for.
    month = finals.final_month(event) if finals.is_final(event) else event.month
    return render_template("play/results.html", event=event, league=event.league, month=month,
                           year=event.month[:4], entries=finishers, ticketed=results.ticketed(event),
                           prizes=[e.prize for e in finishers if e.prize])  # R-PAY-1: as paid, in finishing order


@bp.route("/leagues/<slug>/nights")
def coming_nights(slug: str):
    """No rule governs the calendar: the league's coming nights, venue by venue: running
    now or scheduled from today (the league's local date), each linked to its live clock (R-CLOCK-3).
    A phone holding a member card of the league gets each night's pre-registration (R-LATE-3)."""
    league = _league_or_404(slug)
    today = league.today()
    by_venue: dict[str, list[Event]] = {}
    coming = leagues.nights_from(league, today)
    for night in coming:
        by_venue.setdefault(night.venue.name, []).append(night)
    member = current_member()
    prereg = {night.id: prereg_state(night) for night in coming} if member and member.league_id == league.id else {}
    response = make_response(render_template(
        "play/nights.html", league=league, today=today, month=today.strftime("%Y-%m"), year=str(today.year),
        by_venue=sorted(by_venue.items(), key=lambda v: v[0].casefold()), prereg=prereg))
    response.vary.add("Cookie")  # the pre-registration buttons are this phone's own
    return response


# ---- Helpers: parsing, and reads for these pages ----

def _league_or_404(slug: str) -> League:
    league = leagues.find_league(slug)
    if league is None or league.slug != slug:  # a league's public address is its slug, nothing else
        abort(404, description=f"no league {slug!r}")
    return league


def _month_or_404(month: str) -> tuple[dt.date, dt.date]:
    try:
        return leagues.parse_month(month)
    except ValueError:
        abort(404)


def _standings(page: str, section: str, *, table, **context):
    """A standings page (month or season): the whole section, or for the name search (htmx aimed at
    the table) the table alone. `?q=` keeps the full table's ranks: a filter, not a new table."""
    query = request.args.get("q", "").strip()[:80]
    wanted = name_key(query)
    rows = [row for row in table if wanted in name_key(row.player)] if wanted else table
    fragment = "shared/_standings_table.html" if request.headers.get("HX-Target") == TABLE_ID else section
    response = page_or_fragment(page, fragment, rows=rows, total=len(table), q=query, table_id=TABLE_ID,
                                **context)
    response.vary.add("HX-Target")  # the same URL answers the section or the table alone
    response.vary.add("Cookie")  # "Jump to me" is this phone's own
    return response
