"""The player's blueprint: pages anyone can open, no login (issue 5), and a player's own pages,
found by the member cookie (issues 4, 5). One blueprint, so every URL and `url_for("play.…")` is
the same whichever module holds the view:

- night:   tonight's game on a player's phone: the event's clock, their entry, the big screen,
           check-in, the deal ballot, pre-registration
- leagues: the home page and each league's pages: its home, month and season standings with a name
           search, qualifiers, each night's results, coming nights
- shell:   what makes them an installable app: the manifest, the service worker at the site root and
           the offline page
- card:    the player's own pages: /me, the member card, moving the card to a new phone

This module holds the blueprint and the helpers more than one of them uses."""

from flask import Blueprint, make_response

import nights
from membership import current_member
from models import Event

bp = Blueprint("play", __name__)

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


def phone_entry(event: Event, was: str | None = None) -> dict | None:
    """R-SEAT-1..4, R-CHIP-3: this phone's member's entry for play/_me.html, or None: bonus chips, its
    bucket of the seat digest, and the seat notice against `was` (the seat the phone showed). While
    a notice shows, the phone keeps sending the old seat, so a refresh keeps it until "Got it"."""
    member = current_member()
    entry = nights.entry_of(event, member) if member and member.league_id == event.league_id else None
    if entry is None:
        return None
    notice, seat = nights.seat_notice(entry, was), nights.seat_token(entry)
    return {"entry": entry, "bonus": nights.bonus_chips(entry), "bucket": nights.seat_bucket(entry),
            "notice": notice, "seat": seat, "was": was if notice else seat}


def prereg_state(event: Event, **extra) -> dict:
    """R-LATE-3: what the pre-registration block (play/_prereg.html) shows this phone for the event."""
    phone = current_member()
    member = phone if phone is not None and phone.league_id == event.league_id else None
    entry = nights.entry_of(event, member) if member else None
    return {"event": event, "member": member, "other_league": phone is not None and member is None, "entry": entry,
            "open": event.status in nights.OPEN_EVENTS, "started": nights.clock_view(event).started,
            "problem": nights.self_pre_registration_problem(event, member) if member and entry is None else None,
            "cancellable": member is not None and nights.own_pre_registration(event, member) is not None,
            "needs_adult": member is not None and member.adult_confirmed_at is None, "error": None, "message": None,
            **extra}


# Last: each module adds its views to `bp` as it is imported (that is what registers the routes),
# and each imports `bp` and the helpers above from here, so they must exist first. Listed in
# __all__ because nothing here calls them: importing them is the point.
from blueprints.play import card, leagues, night, shell  # noqa: E402

__all__ = ["bp", "card", "leagues", "night", "shell"]
