"""The player's pages' answer to a rate limit (wiring/rate_limits.py): the claim form and the
pre-registration block show it in place; any other page is the app's 429 page, saying what to do."""
from flask import request
from werkzeug.exceptions import TooManyRequests

from blueprints import errors
from blueprints.play.base import bp, private
from blueprints.play.card import claim_too_many
from blueprints.play.night import prereg_too_many

IN_PLACE = {"play.claim_card": claim_too_many, "play.prereg_self": prereg_too_many,
            "play.prereg_cancel": prereg_too_many}
WHAT_TO_DO = {
    "play.check_in": "Too many check-ins from here just now, so this one was not taken. Wait a minute, "
                     "then tap again, or ask the host to check you in at the door.",
    "play.venue_door": "Too many scans from here just now. Wait a minute, then scan the poster again.",
    "play.move_card": "This card has asked for many codes in the last hour, so no new one was made. Use the "
                      "last code you were shown, or ask the host for one.",
}


@bp.errorhandler(429)
def too_many(error):
    """R-MEM-1, R-LATE-3: a player's request over its limit: nothing was written; say so, and what to do."""
    in_place = IN_PLACE.get(request.endpoint or "")
    if in_place is not None:
        return in_place()
    refusal = TooManyRequests(description=WHAT_TO_DO.get(request.endpoint or ""))
    return private(errors.answer(refusal))
