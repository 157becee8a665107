"""A venue's poster: its permanent link as a QR (R-MEM-1), with the venue's and the league's names, on
A4 or a folded table tent; printing it (recorded for the league's checklist) and replacing the link of a
lost poster."""

from flask import redirect, request, url_for
from flask_login import current_user

from blueprints import page_or_fragment
from blueprints.organiser.base import bp, my_league, venue_or_404
from live import qr
from services import Refused, venue_links
from services.models import League, Venue
from wiring.extensions import db

SIZES = {"a4": "A4 poster", "tent": "Table tent"}


def _poster(league: League, venue: Venue, size: str, *, saved: str | None = None, printing: bool = False,
            problem: str | None = None, status: int = 200):
    link = url_for("play.venue_door", code=venue.link_code, _external=True)
    return page_or_fragment("organiser/poster.html", "organiser/_poster.html", status, league=league, venue=venue,
                            size=size, sizes=SIZES, link=link, qr_svg=qr.svg(link), saved=saved, printing=printing,
                            problem=problem, seen=venue_links.fingerprint(venue.link_code))


@bp.route("/<slug>/venues/<int:venue_id>/poster/<any(a4, tent):size>")
def venue_poster(slug: str, venue_id: int, size: str):
    """R-MEM-1: the venue's poster to print: its permanent QR, which opens tonight's check-in there."""
    league = my_league(slug)
    return _poster(league, venue_or_404(league, venue_id), size, printing=request.args.get("print") == "1")


@bp.route("/<slug>/venues/<int:venue_id>/poster/<any(a4, tent):size>/printed", methods=["POST"])
def poster_printed(slug: str, venue_id: int, size: str):
    """R-MEM-1: Print: the poster is recorded as printed (the league's checklist ticks it), then the
    page comes back asking the browser to print it."""
    league = my_league(slug)
    venue = venue_or_404(league, venue_id)
    venue_links.poster_printed(venue)
    db.session.commit()
    return redirect(url_for("organiser.venue_poster", slug=slug, venue_id=venue.id, size=size, print="1"), 303)


@bp.route("/<slug>/venues/<int:venue_id>/link", methods=["POST"])
def replace_venue_link(slug: str, venue_id: int):
    """R-MEM-1: a new permanent link for a lost poster, after a confirmation: the old link then says to
    scan the new poster. A repeat of the same request (a double tap) replaces nothing more."""
    league = my_league(slug)
    venue = venue_or_404(league, venue_id)
    size = request.form.get("size", "")
    if size not in SIZES:
        size = "a4"
    try:
        if venue_links.replace_link(venue, request.form.get("seen", "")[:64], current_user.id):
            db.session.commit()
    except Refused as refused:
        db.session.rollback()
        return _poster(league, venue, size, problem=str(refused), status=409)
    return _poster(league, venue, size, saved=f"{venue.name} has a new link: print its new poster and put it up. "
                                              "The old poster now says to scan the new one.")
