"""The operator's leagues: start one (its kind, time zone and first organiser, THPA's default settings),
the organisers' logins, and removing a league whole after a confirmation that names what goes."""

from flask import abort, flash, redirect, request, url_for

from blueprints import change_login_of, login_change, page_or_fragment
from blueprints.forms import LeagueForm, OrganiserForm
from blueprints.operator.base import bp
from league.settings import zone_names
from league.statuses import Role
from services import Refused, export, leagues, logins
from services.models import League
from wiring.body_limit import takes_file
from wiring.extensions import db


def _leagues(status: int = 200, form: LeagueForm | None = None, organiser_form: OrganiserForm | None = None,
             problem: str | None = None, problem_at: str | None = None, **done):
    """The operator's page: every league with its organisers, and the form that starts one."""
    every = db.session.scalars(db.select(League).order_by(League.name)).all()
    return page_or_fragment("operator/leagues.html", "operator/_leagues.html", status=status, leagues=every,
                            organisers={league.id: logins.logins_of(league, Role.ORGANISER) for league in every},
                            form=form or LeagueForm(formdata=None), organiser_form=organiser_form,
                            problem=problem, problem_at=problem_at, saved=done.get("saved"),
                            handover=done.get("handover"), time_zones=zone_names())


@bp.route("/")
def home():
    """This ShuffleUp's leagues, and a new one."""
    return _leagues()


@bp.route("/leagues", methods=["POST"])
def start_league():
    """Start a league with its first organiser, who sets their own password by the link shown."""
    form = LeagueForm()
    if not form.validate():
        return _leagues(422, form)
    try:
        league = leagues.start_league(form.name.data, form.kind.data, form.timezone.data)
        organiser = logins.new_login(form.username.data, form.display_name.data, Role.ORGANISER, league)
        done = login_change(organiser, "password-link")
    except Refused as refused:
        db.session.rollback()
        form.form_errors.append(str(refused))
        return _leagues(422, form)
    db.session.commit()
    done["saved"] = f"{league.name} is started. " + done["saved"]
    return _leagues(**done)


@bp.route("/leagues/import", methods=["POST"])
@takes_file("LEAGUE_FILE_BODY_MAX")
def import_league():
    """A league from a league file (exported from this or another ShuffleUp) with its logins, beside the
    leagues already here; refused with the reason and the line, nothing written, for a file that is
    corrupted, edited to hold what a form would refuse, or shares a name or ids with what is here."""
    upload = request.files.get("file")
    if upload is None or not upload.filename:
        return _leagues(422, problem="Choose a league file (.json) to upload.", problem_at="import")
    try:
        summary = export.import_league(upload.stream)
        db.session.commit()
    except Refused as refused:
        db.session.rollback()
        return _leagues(422, problem=f"{refused} Nothing was imported.", problem_at="import")
    return _leagues(saved=f"{summary.league} is imported: {sum(summary.rows.values())} rows. Its organisers "
                          "log in with the file's logins.")


def _league(slug: str) -> League:
    league = db.session.scalar(db.select(League).where(League.slug == slug))
    if league is None:
        abort(404)
    return league


@bp.route("/leagues/<slug>/organisers", methods=["POST"])
def add_organiser(slug: str):
    """Another organiser of a league, who sets their own password by the link shown."""
    league = _league(slug)
    form = OrganiserForm(prefix=f"l{league.id}")
    if form.validate():
        try:
            organiser = logins.new_login(form.username.data, form.display_name.data, Role.ORGANISER, league)
            done = login_change(organiser, "password-link")
        except Refused as refused:
            db.session.rollback()
            form.form_errors.append(str(refused))
        else:
            db.session.commit()
            return _leagues(**done)
    return _leagues(422, organiser_form=form, problem_at=f"league-{league.id}")


@bp.route("/leagues/<slug>/organisers/<int:user_id>/<any('password-link', suspend, reinstate, remove):change>",
          methods=["POST"])
def change_organiser(slug: str, user_id: int, change: str):
    """An organiser's password link to hand over, suspension, reinstatement or removal (logged out
    everywhere at once)."""
    return change_login_of(_league(slug), user_id, Role.ORGANISER, change, _leagues)


@bp.route("/leagues/<slug>/remove", methods=["GET", "POST"])
def remove_league(slug: str):
    """Remove a league and every row of it (venues, members, nights, results, logins), after one
    confirmation that names what goes; other leagues are untouched."""
    league = _league(slug)
    counts = export.table_counts(league)
    if request.method == "GET" or request.form.get("confirm") != league.slug:
        return page_or_fragment("operator/remove.html", "operator/_remove.html", league=league, counts=counts,
                                status=200 if request.method == "GET" else 422)
    name = league.name
    export.remove_league(league)
    db.session.commit()
    flash(f"{name} is removed, with all its venues, members, nights and logins.")
    return redirect(url_for("operator.home"), 303)

