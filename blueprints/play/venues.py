"""A venue's permanent link, the QR on its poster (R-MEM-1): tonight's check-in there while a night is
open (the player picks when two are), otherwise the venue's coming nights and the league's standings;
a replaced link (a lost poster) says to scan the new poster."""

from flask import abort, make_response, redirect, render_template, url_for

from blueprints.play.base import bp, top_of_table
from services import venue_links
from wiring import rate_limits
from wiring.extensions import limiter

NO_STORE = {"Cache-Control": "no-store"}  # tonight's answer is not tomorrow's: no cache keeps it


@bp.route("/venue/<code>")
@limiter.limit(rate_limits.setting("VENUE_LINK_RATE_LIMIT"))
def venue_door(code: str):
    """R-MEM-1: where a venue's poster leads: the one night open there tonight goes straight to its
    check-in page; two or more are listed to pick from; none, the venue's page."""
    venue = venue_links.venue_by_link(code)
    if venue is None:
        if (old := venue_links.replaced_link(code)) is not None:
            return make_response(render_template("play/venue_replaced.html", venue=old.venue,
                                                 league=old.venue.league), 410, NO_STORE)
        abort(404, description="This venue link is wrong: scan the poster at the venue again.")
    tonight = venue_links.nights_open_tonight(venue)
    if len(tonight) == 1:
        return _no_store(redirect(url_for("play.check_in", code=tonight[0].check_in_code), 303))
    coming = [] if tonight else venue_links.coming_nights(venue)
    response = make_response(render_template(
        "play/venue.html", venue=venue, league=venue.league, tonight=tonight, coming=coming,
        **top_of_table(venue.league)))
    response.vary.add("Cookie")  # "You" in the table is this phone's own
    return _no_store(response)


def _no_store(response):
    response.headers.update(NO_STORE)
    return response
