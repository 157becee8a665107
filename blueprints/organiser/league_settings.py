"""The organiser's league settings: every setting with its THPA default, saved per group, a group reset
to THPA, and the record of changes (R-CHIP-1, R-CHIP-2, R-LATE-1, R-ENTRY-1, R-PAY-1, R-PAY-3,
R-QUAL-2, R-CLOCK-4, R-PEN-2, R-PTS-8)."""

from flask import abort, request
from flask_login import current_user

from blueprints import page_or_fragment
from blueprints.organiser.base import bp, my_league
from league.settings import BY_KEY, GROUP_LABELS, GROUPS, Kind, format_value, parse, settings_of, thpa_defaults
from services import Refused, checklist, league_settings
from services.league_settings import SettingsRefused
from services.models import League
from wiring.extensions import db


def _page(league: League, status: int = 200, *, typed: dict | None = None, problems: dict | None = None,
          open_group: str | None = None, saved: str | None = None, refusal: str | None = None):
    values = league_settings.effective(league)
    shown = {key: format_value(BY_KEY[key], value) for key, value in values.items()}
    shown.update(typed or {})
    defaults = thpa_defaults(league.kind)
    groups = [(group, GROUP_LABELS[group], settings_of(group, league.kind)) for group in GROUPS]
    return page_or_fragment(
        "organiser/settings.html", "organiser/_settings.html", status, league=league, groups=groups,
        shown=shown, values=values, defaults={k: format_value(BY_KEY[k], v) for k, v in defaults.items()},
        problems=problems or {}, open_group=open_group, saved=saved, refusal=refusal, Kind=Kind,
        changes=league_settings.recent_changes(league), labels=BY_KEY, steps=checklist.first_steps(league))


@bp.route("/<slug>/settings")
def settings(slug: str):
    """Every league setting by group, with its THPA default and the latest changes."""
    return _page(my_league(slug))


def _group_or_404(group: str) -> str:
    if group not in GROUPS:
        abort(404)
    return group


@bp.route("/<slug>/settings/<group>", methods=["POST"])
def save_settings(slug: str, group: str):
    """Save one group's settings as typed: each value checked (a reason per bad value, nothing written),
    each change recorded; nights created from now on take them."""
    league = my_league(slug)
    _group_or_404(group)
    typed, new, problems = {}, {}, {}
    for setting in settings_of(group, league.kind):
        text = request.form.get(setting.key, "")[:2000]
        typed[setting.key] = text if setting.kind != Kind.YES_NO else ("yes" if text else "no")
        value, problem = parse(setting, text)
        if problem:
            problems[setting.key] = problem
        else:
            new[setting.key] = value
    if problems:
        return _page(league, 422, typed=typed, problems=problems, open_group=group)
    try:
        records = league_settings.change(league, new, current_user.id)
    except SettingsRefused as refused:
        db.session.rollback()
        return _page(league, 409 if refused.conflict else 422, typed=typed, problems=refused.problems,
                     open_group=group, refusal=str(refused))
    checklist.settings_reviewed(league)  # saved as wanted: looked over
    db.session.commit()
    return _page(league, open_group=group, saved=_saved(records, GROUP_LABELS[group]))


@bp.route("/<slug>/settings/<group>/reset", methods=["POST"])
def reset_settings(slug: str, group: str):
    """Put one group back to THPA's defaults (each change recorded)."""
    league = my_league(slug)
    _group_or_404(group)
    try:
        records = league_settings.reset_group(league, group, current_user.id)
    except Refused as refused:
        db.session.rollback()
        return _page(league, 409, problems=getattr(refused, "problems", {}), open_group=group, refusal=str(refused))
    checklist.settings_reviewed(league)
    db.session.commit()
    back = f"{GROUP_LABELS[group]} back to THPA's defaults"
    return _page(league, open_group=group, saved=_saved(records, back))


@bp.route("/<slug>/settings/reviewed", methods=["POST"])
def settings_reviewed(slug: str):
    """The organiser has looked over the settings and keeps them as they are (a new league: THPA's
    defaults): the league's first steps tick "Review the settings"."""
    league = my_league(slug)
    checklist.settings_reviewed(league)
    db.session.commit()
    return _page(league, saved="Settings reviewed: nights created from now on use them.")


def _saved(records: list, label: str) -> str:
    if not records:
        return f"{label}: nothing changed."
    plural = "s" if len(records) != 1 else ""
    return f"{label}: {len(records)} setting{plural} changed; nights created from now on use them."
