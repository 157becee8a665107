"""The organiser's pages: the month view (standings, tickets, Shoot-out, High-roller Final)."""

from flask import Blueprint, abort, redirect, request, url_for
from flask_login import current_user, login_required
from wtforms import SelectChoice

from blueprints import neighbours, page_or_fragment
from blueprints.forms import AssignHostForm, HostForm, NightForm, VenueForm, fit_to_league, night_defaults
from league.standings import top_with_ties
from services import leagues, standings
from services.models import Event, League, User, Venue
from wiring.extensions import db

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
    months = leagues.league_months(league)
    month = months[0] if months else league.today().strftime("%Y-%m")
    return redirect(url_for("organiser.month", slug=league.slug, month=month))


@bp.route("/<slug>/months/<month>")
def month(slug: str, month: str):
    """R-STD-1, R-QUAL-1..5, R-FIN: a month's standings, ticket holders, Shoot-out and High-roller Final."""
    league = _my_league(slug)
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
    league = _my_league(slug)
    try:
        table = standings.year_standings(league, year)
    except ValueError:
        abort(404)
    return page_or_fragment("organiser/season.html", "organiser/_season.html",
                            league=league, year=year, table=top_with_ties(table, 50), total=len(table))


def _hosts(league: League) -> list[User]:
    return db.session.scalars(db.select(User).where(User.league_id == league.id).order_by(User.display_name)).all()


def _venues(league: League) -> list[Venue]:
    return db.session.scalars(db.select(Venue).where(Venue.league_id == league.id).order_by(Venue.name)).all()


def _setup(league, venue_form=None, host_form=None, status=200):
    return page_or_fragment("organiser/setup.html", "organiser/_setup.html", league=league,
                                venues=_venues(league), hosts=_hosts(league),
                                venue_form=venue_form or VenueForm(formdata=None),
                                host_form=host_form or HostForm(formdata=None), status=status)


@bp.route("/<slug>/setup")
def setup(slug: str):
    """The league's venues and its host logins."""
    return _setup(_my_league(slug))


@bp.route("/<slug>/venues", methods=["POST"])
def add_venue(slug: str):
    """Add a venue; a name the league already has is refused."""
    league = _my_league(slug)
    form = VenueForm()
    if form.validate() and any(v.name.casefold() == form.name.data.strip().casefold() for v in _venues(league)):
        form.name.errors.append("The league already has a venue of that name.")
    elif form.validate():
        db.session.add(Venue(league_id=league.id, name=form.name.data.strip(), address=form.address.data or ""))
        db.session.commit()
        return _setup(league)
    return _setup(league, venue_form=form, status=422)


@bp.route("/<slug>/hosts", methods=["POST"])
def add_host(slug: str):
    """Add a host login (the password is stored only as a salted hash)."""
    league = _my_league(slug)
    form = HostForm()
    if form.validate():
        if db.session.scalar(db.select(User.id).where(User.username == form.username.data)):
            form.username.errors.append("That username is taken.")
        else:
            host = User(username=form.username.data, display_name=form.display_name.data.strip(), role="host",
                        league_id=league.id)
            host.set_password(form.password.data)
            db.session.add(host)
            db.session.commit()
            return _setup(league)
    return _setup(league, host_form=form, status=422)


def _night_choices(form, league, hosts: list[User] | None = None):
    """Fill the venue and host choices: only the league's own (a forged id fails validation)."""
    if hasattr(form, "venue"):
        form.venue.choices = [SelectChoice(v.id, v.name) for v in _venues(league)]
    form.host.choices = [SelectChoice(h.id, h.display_name) for h in (_hosts(league) if hosts is None else hosts)]
    return form


def _nights(league, form=None, status=200, duplicate=None):
    upcoming = leagues.upcoming_nights(league)
    hosts = _hosts(league)  # one read for every night's host picker
    form = form or fit_to_league(_night_choices(NightForm(formdata=None, date=league.today(), template="thpa_nightly",
                                                          **night_defaults(league)), league, hosts), league)
    assign = {e.id: _night_choices(AssignHostForm(formdata=None, prefix=f"e{e.id}", host=e.host_id or 0), league,
                                   hosts) for e in upcoming}
    return page_or_fragment("organiser/nights.html", "organiser/_nights.html", league=league,
                                nights=upcoming, form=form, assign=assign, duplicate=duplicate, status=status)


@bp.route("/<slug>/nights", methods=["GET", "POST"])
def nights(slug: str):
    """Upcoming nights; create one at a venue with its type, host, blind structure (R-CLOCK-1) and money
    (R-PAY-1, R-PAY-3). The same venue, date and start as another night is warned about, and
    created only when the organiser says so."""
    league = _my_league(slug)
    if request.method == "GET":
        return _nights(league)
    form = fit_to_league(_night_choices(NightForm(), league), league)
    if not form.validate():
        return _nights(league, form, 422)
    event = form.new_event(league.id, form.host.data)
    if not form.anyway.data and (twin := leagues.same_night(event)):
        return _nights(league, form, 409, duplicate=twin)
    db.session.add(event)
    db.session.commit()
    return _nights(league)


@bp.route("/<slug>/nights/<int:event_id>/host", methods=["POST"])
def assign_host(slug: str, event_id: int):
    """Give a night to another host."""
    league = _my_league(slug)
    event = db.session.get(Event, event_id)
    if event is None or event.league_id != league.id:
        abort(404)
    form = _night_choices(AssignHostForm(prefix=f"e{event.id}"), league)
    if not form.validate():
        return _nights(league, status=422)
    event.host_id = form.host.data
    db.session.commit()
    return _nights(league)
