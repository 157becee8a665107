"""The host's night (issue 4 builds it out): for now, the host's start page."""
from flask import Blueprint, render_template
from flask_login import login_required

bp = Blueprint("host", __name__, url_prefix="/host")


@bp.route("/")
@login_required
def home():
    """The host's start page: tonight's events of their league."""
    return render_template("host/home.html")
