"""The play blueprint itself and the helpers more than one of its view modules uses."""


from flask import Blueprint, make_response

from blueprints.play.member_cookie import current_member
from league import statuses
from league.standings import StandingRow, top_with_ties
from live import seats
from services import clocks, field, finals, leagues, prereg, standings
from services.models import Event, League
from services.night_snapshot import read_night

bp = Blueprint("play", __name__)

HOME_TABLE_SIZE = 10  # a league's home (and a venue's page) shows the top of the month's table, ties included
TABLE_ID = "standings-table"  # the name search swaps only this element
PRIVATE = {"Cache-Control": "private, no-store", "Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex"}


def private(response, status: int | None = None):
    """No cache (shared or the browser's back-forward store) keeps a member's page, and the URL
    (a card's secret) goes to nobody in a Referer header."""
    response = make_response(response)
    if status is not None:
        response.status_code = status
    response.headers.update(PRIVATE)
    response.vary.add("Cookie")
    return response


def phone_entry(event: Event, was: str | None = None, shown: str | None = None) -> dict | None:
    """R-SEAT-1..4, R-CHIP-3, R-PTS-5: this phone's member's entry for play/_me.html, or None: bonus
    chips, its bucket of the seat digest, the seat notice against `was` (the seat the phone's player
    acknowledged) and `shown` (the seat of the alert up, if one is), and whether its finishing
    position is still provisional. While a notice shows, the phone keeps sending the acknowledged
    seat and the alert's, so a refresh keeps it (or names a newer seat) until "Got it"."""
    member = current_member()
    if member is None or member.league_id != event.league_id:
        return None
    night = read_night(event)
    entry = night.entry_of(member)
    if entry is None:
        return None
    notice, seat = seats.seat_notice(night, entry, was, shown), seats.seat_token(entry)
    return {"entry": entry, "bonus": night.bonus_of(entry), "bucket": seats.seat_bucket(night, entry),
            "notice": notice, "seat": seat, "was": was if notice else seat, "shown": seat if notice else None,
            "provisional": entry.position is not None and night.provisional}


def prereg_state(event: Event, **extra) -> dict:
    """R-LATE-3: what the pre-registration block (play/_prereg.html) shows this phone for the event."""
    phone = current_member()
    member = phone if phone is not None and phone.league_id == event.league_id else None
    entry = field.entry_of(event, member) if member else None
    return {"event": event, "member": member, "other_league": phone is not None and member is None, "entry": entry,
            "open": event.status in statuses.OPEN_EVENTS, "started": clocks.clock_view(event).started,
            "problem": prereg.self_pre_registration_problem(event, member) if member and entry is None else None,
            "cancellable": member is not None and prereg.own_pre_registration(event, member) is not None,
            "needs_adult": member is not None and member.adult_confirmed_at is None, "error": None, "message": None,
            **extra}


def my_row(league: League, table: list[StandingRow]) -> StandingRow | None:
    """R-STD-1/2: this phone's member's row in a table of their league, for "Jump to me"."""
    member = current_member()
    return standings.row_of(table, member.id) if member is not None and member.league_id == league.id else None


def top_of_table(league: League) -> dict:
    """R-STD-1, R-QUAL-1..5: the top of the table (ties included) of the month a league's page leads
    with (last month's while its finals are still to be played, with those finals; else this month's,
    or the latest with results), for shared/_standings_table.html on a league's home and a venue's page;
    `table` is the month's whole table, for whatever else the page reads from it."""
    month = finals.month_to_lead(league, league.today(), leagues.league_months(league))
    table = standings.month_standings(league, month)
    first, _ = leagues.parse_month(month)
    return {"month": month, "year": month[:4], "month_label": first.strftime("%B %Y"),
            "table": table, "rows": top_with_ties(table, HOME_TABLE_SIZE), "total": len(table), "q": "",
            "table_id": TABLE_ID,
            "me_row": my_row(league, table), "finals": finals.finals_for(league, month)}
