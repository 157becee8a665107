"""Logins for organisers and hosts (Flask-Login, hashed passwords, rate-limited)."""
from urllib.parse import urlsplit

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required, login_user, logout_user

from blueprints import is_htmx
from services.models import User
from wiring.extensions import db, limiter, login_manager

bp = Blueprint("auth", __name__)


def _safe_next(target: str | None) -> str | None:
    """Only a path on this site: an open redirect would let a forged link send a host elsewhere."""
    if not target:
        return None
    parts = urlsplit(target)
    return target if not parts.scheme and not parts.netloc and target.startswith("/") else None


def _login_account() -> str:
    """The per-account limit's key: the username tried, as the login matches it (lowercased), so
    guesses at one account from many addresses are counted together."""
    return "login-account:" + request.form.get("username", "").strip().lower()[:80]


@bp.route("/login", methods=["GET", "POST"])
@limiter.limit(lambda: current_app.config["LOGIN_RATE_LIMIT"], methods=["POST"])
# Per account, only failed tries count: guessing at the host's password from the pub's wifi (or
# anywhere) locks that account for a minute, while another login on the same wifi carries on.
@limiter.limit(lambda: current_app.config["LOGIN_ACCOUNT_RATE_LIMIT"], key_func=_login_account, methods=["POST"],
               deduct_when=lambda response: response.status_code == 401)
def login():
    """Show the login form; on POST check the password and start the session."""
    error = None
    username = ""
    if request.method == "POST":
        username = request.form.get("username", "").strip()
        user = db.session.scalar(db.select(User).where(User.username == username))
        if user is not None and user.check_password(request.form.get("password", "")):
            login_user(user, remember=True)
            home = url_for("organiser.home") if user.is_organiser else url_for("host.home")
            return redirect(_safe_next(request.args.get("next")) or home)
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


@bp.app_context_processor
def _user_context():
    return {"user": current_user}


@login_manager.unauthorized_handler
def _unauthorized():
    """A page asks the person to log in; an action (POST, htmx) is simply refused with 401."""
    if request.method != "GET" or is_htmx():
        return "Log in as the host or organiser to do that.", 401
    return redirect(url_for("auth.login", next=request.full_path.rstrip("?")))
