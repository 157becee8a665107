"""The operator blueprint itself and what every operator view needs: the operator's login."""

from flask import Blueprint, abort
from flask_login import current_user, login_required

bp = Blueprint("operator", __name__, url_prefix="/operator")


@bp.before_request
@login_required
def _operator_only():
    """Every operator page needs the operator's login (an organiser runs one league, not the server)."""
    if not current_user.is_operator:
        abort(403)
