"""Logins (Flask-Login, hashed passwords, rate-limited): logging in and out, the first run's set-up link
that makes the operator, a one-time password link, and everyone's own new password."""
import time
from urllib.parse import urlsplit

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required, login_user, logout_user

from blueprints import errors, is_htmx
from league.statuses import LinkPurpose
from services import Refused, logins
from wiring import rate_limits
from wiring.extensions import db, limiter, login_manager

bp = Blueprint("auth", __name__)


def _safe_next(target: str | None) -> str | None:
    """Only a path on this site: an open redirect would let a forged link send a host elsewhere."""
    if not target:
        return None
    parts = urlsplit(target)
    return target if not parts.scheme and not parts.netloc and target.startswith("/") else None


def _login_account() -> str:
    """The per-account count's key: the username tried, as the login matches it (casefolded), so
    guesses at one account from many addresses are counted together."""
    return "login-account:" + rate_limits.posted_value("username")


def _login_pair() -> str:
    """The per-account-and-address limit's key: the username tried from this address."""
    return f"login-pair:{rate_limits.posted_value('username')}|{rate_limits.address()}"


def slow_down(seconds: float) -> None:
    """Wait before answering a login whose username is being guessed at (time.sleep, which the gevent
    worker makes a pause of this request alone)."""
    time.sleep(seconds)


def home_of(user) -> str:
    """Where a login starts: the operator's leagues, the organiser's league, the host's nights."""
    if user.is_operator:
        return url_for("operator.home")
    return url_for("organiser.home") if user.is_organiser else url_for("host.home")


def _refused(response) -> bool:
    return response.status_code in (401, 422)


# Per address, every try; per account and address, failed tries: a guesser is blocked for a minute,
# and so is nobody else. Per account alone, from any address, failed tries only slow each next try down
# (LOGIN_ACCOUNT_SLOW_AFTER, LOGIN_SLOW_DOWN_S): guesses from many addresses at once get few answers a
# minute each, and the real user, from their own phone, still logs in. A link tried wrongly ten
# times no longer works at all: counted on the link's own row (services.logins.LINK_TRIES), so no
# restart and no second process forgets a try.
by_address = limiter.limit(rate_limits.setting("LOGIN_RATE_LIMIT"), methods=["POST"])


@bp.route("/login", methods=["GET", "POST"])
@by_address
@limiter.limit(rate_limits.setting("LOGIN_PAIR_RATE_LIMIT"), key_func=_login_pair, methods=["POST"],
               deduct_when=_refused)
def login():
    """Show the login form; on POST check the password and start the session (a username in any case).
    A username guessed at too often from anywhere answers each further try only after a wait."""
    error = None
    username = ""
    if request.method == "POST":
        username = request.form.get("username", "").strip()[:200]
        if rate_limits.over("LOGIN_ACCOUNT_SLOW_AFTER", _login_account()):
            slow_down(current_app.config["LOGIN_SLOW_DOWN_S"])
        user = logins.find_login(username)
        if user is not None and user.check_password(request.form.get("password", "")[:1000]):
            if user.suspended_at is None:
                login_user(user, remember=True)
                return redirect(_safe_next(request.args.get("next")) or home_of(user))
            error = "This login is suspended: ask your organiser to reinstate it."
        else:
            rate_limits.count_try("LOGIN_ACCOUNT_SLOW_AFTER", _login_account())
            error = "That username and password do not match."
    status = 401 if error else 200
    return render_template("auth/login.html", error=error, username=username), status


@bp.route("/logout", methods=["POST"])
@login_required
def logout():
    """End the session, and revoke it: a new session token, so this login's remember-me cookie (and
    any copy of it, on any device) no longer logs in."""
    current_user.rotate_session_token()
    db.session.commit()
    logout_user()
    flash("You are logged out.")
    return redirect(url_for("play.home"))


def _failed_try(link) -> None:
    """A link's form refused: nothing it asked for is written, and the try is counted on the link."""
    link_id = link.id
    db.session.rollback()
    logins.count_failed_try(link_id)
    db.session.commit()


@bp.route("/setup/<token>", methods=["GET", "POST"])
@by_address
def setup(token: str):
    """The first run's set-up link (printed at start while no operator exists): make the operator's login.
    The link dies once used; a bad form changes nothing and counts as a failed try."""
    link = logins.live_link(token, LinkPurpose.SETUP)
    if link is None:
        return render_template("auth/dead_link.html", message=logins.DEAD_SETUP_LINK), 404
    username = request.form.get("username", "")[:200]
    if request.method == "GET":
        return render_template("auth/setup.html", error=None, username="")
    try:
        operator = logins.use_setup_link(link, username, request.form.get("password", "")[:1000],
                                         request.form.get("again", "")[:1000])
    except Refused as refused:
        _failed_try(link)
        return render_template("auth/setup.html", error=str(refused), username=username), 422
    db.session.commit()
    login_user(operator, remember=True)
    flash(f"This ShuffleUp is set up: you are its operator, {operator.username}. Start your league below.")
    return redirect(url_for("operator.home"))


@bp.route("/password/<token>", methods=["GET", "POST"])
@by_address
def password_link(token: str):
    """A one-time password link (24 hours) handed over by an organiser or the operator: set the
    login's password and log in; the link then dies and every other session of the login is signed out."""
    link = logins.live_link(token, LinkPurpose.PASSWORD)
    if link is None:
        return render_template("auth/dead_link.html", message=logins.DEAD_LINK), 404
    if request.method == "GET":
        return render_template("auth/password_link.html", link=link, error=None)
    try:
        user = logins.use_password_link(link, request.form.get("password", "")[:1000],
                                        request.form.get("again", "")[:1000])
    except Refused as refused:
        _failed_try(link)
        return render_template("auth/password_link.html", link=link, error=str(refused)), 422
    db.session.commit()
    if user.suspended_at is not None:  # the password is set; the login waits to be reinstated
        flash("Your password is set. Your login is suspended: ask your organiser to reinstate it.")
        return redirect(url_for("auth.login"))
    login_user(user, remember=True)
    flash(f"Your password is set, {user.display_name}.")
    return redirect(home_of(user))


@bp.route("/account/password", methods=["GET", "POST"])
@login_required
@by_address
def change_password():
    """Everyone's own new password (the current one needed): every other session is signed out, this
    one stays."""
    if request.method == "GET":
        return render_template("auth/password.html", error=None, saved=None)
    try:
        logins.change_password(current_user, request.form.get("current", "")[:1000],
                               request.form.get("password", "")[:1000], request.form.get("again", "")[:1000])
    except Refused as refused:
        db.session.rollback()
        return render_template("auth/password.html", error=str(refused), saved=None), 422
    db.session.commit()
    login_user(current_user._get_current_object(), remember=True)  # this phone keeps its session, under the new token
    return render_template("auth/password.html", error=None,
                           saved="Your password is changed: every other phone and browser is logged out.")


@bp.errorhandler(429)
def _too_many(error):
    """A limit on tries reached: for a link, that it no longer works; else the app's page for a 429."""
    if request.endpoint in ("auth.setup", "auth.password_link"):
        return render_template("auth/dead_link.html", message="Too many failed tries with this link: it no longer "
                               "works. Ask for a new one (the set-up link: start the server again)."), 429
    return errors.answer(error)  # the app's own page for a 429, with the wait


@bp.app_context_processor
def _user_context():
    return {"user": current_user}


@login_manager.unauthorized_handler
def _unauthorized():
    """A page asks the person to log in; an action (POST, htmx) is simply refused with 401."""
    if request.method != "GET" or is_htmx():
        return "Log in as the host or organiser to do that.", 401
    return redirect(url_for("auth.login", next=request.full_path.rstrip("?")))
