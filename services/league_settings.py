"""A league's settings in the database: the effective values, and changes recorded with who, when, old
and new (R-CHIP-1, R-PAY-1, R-PAY-3, R-QUAL-2, R-CLOCK-4, R-PEN-2). A night keeps its own snapshot of
them, taken as it is created (services.models) and read by Event.setting."""
from __future__ import annotations

from typing import Any

from league import settings
from league.statuses import EventStatus, LeagueKind
from services import Refused
from services.models import Event, League, SettingChange, Ticket
from wiring.extensions import db


class SettingsRefused(Refused):
    """The settings as typed cannot stand: the reason for each setting refused, by key."""

    def __init__(self, problems: dict[str, str], *, conflict: bool = False):
        super().__init__("; ".join(problems.values()))
        self.problems = problems
        self.conflict = conflict  # the values are good, but nights already booked or played forbid them


def columns_of(league: League) -> dict[str, Any]:
    return {"pass_down": league.pass_down, "payout_percent": league.payout_percent,
            "shot_clock_seconds": league.shot_clock_seconds, "timezone": league.timezone}


def effective(league: League) -> dict[str, Any]:
    """The league's settings now: THPA's defaults overlaid with its own (settings.from_stored)."""
    return settings.from_stored(league.kind, league.settings, columns_of(league))


def consistency_problems(league: League, old: dict[str, Any], new: dict[str, Any]) -> dict[str, str]:
    """Changes that would make a night already booked or played inconsistent, with the reason. A night
    keeps its own snapshot of its type's settings, so those can always change; what a night does not
    keep is refused while it matters: the time zone while a night is under way (its local date would
    move, R-STD-1), and ticket pass-down once this month has settled nightly games (the month's tickets
    would be given by two rules, R-QUAL-2)."""
    found: dict[str, str] = {}
    if old["league.timezone"] != new["league.timezone"]:
        running = db.session.scalar(db.select(Event).where(Event.league_id == league.id,
                                                           Event.status == EventStatus.RUNNING).limit(1))
        if running is not None:
            found["league.timezone"] = (f"Time zone: a night is under way ({running.venue.name}, "
                                        f"{running.date:%d %b}); change it when no night is running")
    if old["league.pass_down"] != new["league.pass_down"]:
        month = league.today().strftime("%Y-%m")
        if db.session.scalar(db.select(Ticket.id).where(Ticket.league_id == league.id, Ticket.month == month)
                             .limit(1)) is not None:
            found["league.pass_down"] = (f"Ticket pass-down: tickets for {month} were already given under the "
                                         "current rule; change it from the first night of next month")
    return found


def change(league: League, new: dict[str, Any], user_id: int | None) -> list[SettingChange]:
    """Change the league's settings to `new` (every key or some), each change recorded (who, when, old →
    new). Refused, nothing written, with the reason for each value that cannot stand (settings.problems)
    or would make a night inconsistent (consistency_problems). Nights already created keep their
    snapshot: a change applies to nights created after it. The caller commits."""
    old = effective(league)
    values = {**old, **new}
    if problems := settings.problems(values, league.kind):
        raise SettingsRefused(problems)
    if problems := consistency_problems(league, old, values):
        raise SettingsRefused(problems, conflict=True)
    diff = settings.changed(old, values)
    if not diff:
        return []
    stored, columns = settings.to_stored(values, league.settings)
    league.settings = stored
    for name, value in columns.items():
        setattr(league, name, value)
    records = [SettingChange(league_id=league.id, user_id=user_id, key=key, old=_json(before), new=_json(after))
               for key, before, after in diff]
    db.session.add_all(records)
    db.session.flush()
    return records


def reset_group(league: League, group: str, user_id: int | None) -> list[SettingChange]:
    """Put one group's settings (the league-wide ones, or one event type's) back to THPA's defaults."""
    if group not in settings.GROUPS:
        raise Refused(f"There is no settings group {group[:40]!r}.")
    defaults = settings.thpa_defaults(league.kind)
    return change(league, {s.key: defaults[s.key] for s in settings.settings_of(group, LeagueKind.CASH)}, user_id)


def recent_changes(league: League, limit: int = 30) -> list[SettingChange]:
    """The league's latest setting changes, newest first."""
    return list(db.session.scalars(db.select(SettingChange).where(SettingChange.league_id == league.id)
                                   .order_by(SettingChange.id.desc()).limit(limit)))


def _json(value: Any) -> Any:
    if isinstance(value, dict):  # a payout table: JSON keys are strings
        return {str(k): list(v) for k, v in value.items()}
    return value
