"""The organiser's set-up: venues (add, rename, retire), host logins and the venues each host runs,
and upcoming nights with their hosts."""

from flask import abort, request
from wtforms import SelectChoice

from blueprints import change_login_of, login_change, page_or_fragment
from blueprints.forms import (
    TYPES_OWN,
    AssignHostForm,
    HostForm,
    NightForm,
    VenueForm,
    fit_to_league,
    night_defaults,
    row_id,
)
from blueprints.organiser.base import bp, my_league, venue_or_404
from league.statuses import Role
from services import Refused, checklist, leagues, logins
from services.models import Event, League, User, Venue
from wiring.extensions import db


def _hosts(league: League) -> list[User]:
    """The league's hosts and organisers (not removed ones: they run no more nights)."""
    return logins.logins_of(league, Role.ORGANISER, Role.HOST)


def _venues(league: League) -> list[Venue]:
    return db.session.scalars(db.select(Venue).where(Venue.league_id == league.id).order_by(Venue.name)).all()


def _setup(league, venue_form=None, host_form=None, status=200, problem=None, problem_at=None, saved=None,
           handover=None):
    hosts = _hosts(league)
    return page_or_fragment("organiser/setup.html", "organiser/_setup.html", league=league,
                            venues=_venues(league), hosts=hosts,
                            host_venues={h.id: leagues.host_venue_ids(h.id) for h in hosts if not h.is_organiser},
                            venue_form=venue_form or VenueForm(formdata=None),
                            host_form=host_form or HostForm(formdata=None), status=status, problem=problem,
                            problem_at=problem_at, saved=saved, handover=handover, steps=checklist.first_steps(league))


def _venue_change(league: League, venue_id: int, change, saved: str, refused_status: int = 422):
    venue = venue_or_404(league, venue_id)
    try:
        change(venue)
    except Refused as refused:
        db.session.rollback()
        return _setup(league, status=refused_status, problem=str(refused),
                      problem_at=f"venue-{venue_id}")
    db.session.commit()
    return _setup(league, saved=saved.format(name=venue.name))


@bp.route("/<slug>/venues/<int:venue_id>/name", methods=["POST"])
def rename_venue(slug: str, venue_id: int):
    """Rename a venue: its nights, past and coming, show the new name."""
    return _venue_change(my_league(slug), venue_id,
                         lambda v: leagues.rename_venue(v, request.form.get("name", "")[:400]), "Renamed to {name}.")


@bp.route("/<slug>/venues/<int:venue_id>/retire", methods=["POST"])
def retire_venue(slug: str, venue_id: int):
    """Retire a venue: its history stays, no new nights are booked there."""
    return _venue_change(my_league(slug), venue_id, leagues.retire_venue, "{name} is retired.", 409)


@bp.route("/<slug>/venues/<int:venue_id>/reopen", methods=["POST"])
def reopen_venue(slug: str, venue_id: int):
    """Bring a retired venue back: new nights may be booked there again."""
    return _venue_change(my_league(slug), venue_id, lambda v: leagues.retire_venue(v, False), "{name} is open again.")


@bp.route("/<slug>/hosts/<int:user_id>/venues", methods=["POST"])
def host_venues(slug: str, user_id: int):
    """Give a host their venues: they see and run only those venues' nights (none: the nights assigned to them)."""
    league = my_league(slug)
    host = db.session.get(User, user_id)
    if host is None or host.league_id != league.id or host.is_organiser:
        abort(404)
    ids = [row_id(raw) for raw in request.form.getlist("venue")[:500]]
    try:
        if None in ids:
            raise Refused("Pick venues from the list.")
        leagues.set_host_venues(host, set(ids))
    except Refused as refused:
        db.session.rollback()
        return _setup(league, status=422, problem=str(refused), problem_at=f"host-{user_id}")
    db.session.commit()
    return _setup(league, saved=f"{host.display_name}'s venues saved.")


@bp.route("/<slug>/setup")
def setup(slug: str):
    """The league's venues and its host logins."""
    return _setup(my_league(slug))


@bp.route("/<slug>/venues", methods=["POST"])
def add_venue(slug: str):
    """Add a venue; a name the league already has is refused."""
    league = my_league(slug)
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
    """Add a host login: with a password (stored only as a salted hash), or without one and a one-time
    link shown to hand over, with which the host sets their own."""
    league = my_league(slug)
    form = HostForm()
    if form.validate():
        try:
            host = logins.new_login(form.username.data, form.display_name.data, Role.HOST, league,
                                    password=form.password.data or None)
            done = login_change(host, "password-link") if not form.password.data else \
                {"saved": f"{host.display_name} can log in as {host.username}."}
        except Refused as refused:
            db.session.rollback()
            (form.password if "password" in str(refused).lower() else form.username).errors.append(str(refused))
        else:
            db.session.commit()
            return _setup(league, **done)
    return _setup(league, host_form=form, status=422)


@bp.route("/<slug>/hosts/<int:user_id>/<any('password-link', suspend, reinstate, remove):change>", methods=["POST"])
def change_host(slug: str, user_id: int, change: str):
    """A host's password link to hand over, suspension, reinstatement or removal (logged out everywhere
    at once). Organisers' logins are the operator's to change."""
    league = my_league(slug)
    return change_login_of(league, user_id, Role.HOST, change,
                           lambda status, **context: _setup(league, status=status, **context))


def _night_choices(form, league, hosts: list[User] | None = None):
    """Fill the venue and host choices: only the league's own (a forged id fails validation)."""
    if hasattr(form, "venue"):  # a retired venue takes no new nights
        form.venue.choices = [SelectChoice(v.id, v.name) for v in leagues.venues_of(league, open_only=True)]
    form.host.choices = [SelectChoice(h.id, h.display_name) for h in (_hosts(league) if hosts is None else hosts)]
    return form


def _nights(league, form=None, status=200, duplicate=None, assign_errors=None):
    upcoming = leagues.upcoming_nights(league)
    hosts = _hosts(league)  # one read for every night's host picker
    form = form or fit_to_league(_night_choices(NightForm(formdata=None, date=league.today(), template=TYPES_OWN,
                                                          **night_defaults(league)), league, hosts), league)
    assign = {e.id: _night_choices(AssignHostForm(formdata=None, prefix=f"e{e.id}", host=e.host_id or 0), league,
                                   hosts) for e in upcoming}
    assign.update(assign_errors or {})  # a refused assignment shows its reason under its picker
    return page_or_fragment("organiser/nights.html", "organiser/_nights.html", league=league,
                                nights=upcoming, form=form, assign=assign, duplicate=duplicate, status=status,
                                steps=checklist.first_steps(league))


def _not_their_venue(host_id: int, venue_id: int) -> str | None:
    """Why this host cannot run a night at this venue (a host given venues runs only theirs), or None."""
    host = db.session.get(User, host_id)
    venues = leagues.host_venue_ids(host.id) if not host.is_organiser else set()
    if venues and venue_id not in venues:
        venue = db.session.get(Venue, venue_id)
        return f"{host.display_name} does not run {venue.name}: give them the venue on Venues and hosts first."
    return None


@bp.route("/<slug>/nights", methods=["GET", "POST"])
def nights(slug: str):
    """Upcoming nights; create one at a venue with its type, host, blind structure (R-CLOCK-1) and money
    (R-PAY-1, R-PAY-3). The same venue, date and start as another night is warned about, and
    created only when the organiser says so."""
    league = my_league(slug)
    if request.method == "GET":
        return _nights(league)
    form = fit_to_league(_night_choices(NightForm(), league), league)
    if not form.validate():
        return _nights(league, form, 422)
    if problem := _not_their_venue(form.host.data, form.venue.data):
        form.host.errors.append(problem)  # booked, the night would be on nobody's list and open as a 403
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
    league = my_league(slug)
    event = db.session.get(Event, event_id)
    if event is None or event.league_id != league.id:
        abort(404)
    form = _night_choices(AssignHostForm(prefix=f"e{event.id}"), league)
    if not form.validate():
        return _nights(league, status=422)
    if problem := _not_their_venue(form.host.data, event.venue_id):
        form.host.errors.append(problem)
        return _nights(league, status=422, assign_errors={event.id: form})
    event.host_id = form.host.data
    db.session.commit()
    return _nights(league)
