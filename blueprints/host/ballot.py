"""Pass the phone (R-PAY-2): a player without a phone of their own in tonight's game votes on the deal
on the host's phone (a player with one votes on it, never on the host's). The
host's screen becomes that player's private ballot (Yes or No, no one's votes shown), then hides
the vote and goes back to the host."""

from flask import redirect, render_template, request, url_for

from blueprints import cast_vote
from blueprints.host.base import bp, my_event
from league.statuses import DealStatus
from services import deals
from services.models import Entry
from services.night_snapshot import NightSnapshot, read_night


def _voter(night: NightSnapshot, entry_id: int) -> Entry | None:
    """The remaining player the host hands the phone to (None: not one of the deal's players)."""
    return next((e for e in night.deal_players if e.id == entry_id), None)


@bp.route("/events/<int:event_id>/ballot/<int:entry_id>", methods=["GET", "POST"])
def hand_the_phone(event_id: int, entry_id: int):
    """R-PAY-2: one remaining player's secret ballot on the host's phone: the split offered and Yes
    or No for them alone. Once cast the screen says only that the vote is in (never which), for the
    player to hand the phone back; an agreed deal is journalled as on a player's own phone, so the
    host can undo it; an open or void ballot never is."""
    event = my_event(event_id)
    error = None
    if request.method == "POST":
        error = cast_vote(event, lambda: _voter(read_night(event), entry_id), handed=True)  # read under the lock
        if error is None:
            return redirect(url_for("host.hand_the_phone", event_id=event.id, entry_id=entry_id, cast=1), 303)
    cast = request.args.get("cast") == "1"
    night = read_night(event)
    entry = _voter(night, entry_id)
    if entry is not None and entry.own_phone and entry.deal_vote is None and event.deal_status == DealStatus.OPEN \
            and not error:
        error = deals.own_phone_refusal(entry)  # R-PAY-2: their own vote, on their own phone
    offer = deals.deal_offer(night) if entry is not None and event.deal_method else None
    players = night.deal_players
    return render_template("host/ballot.html", event=event, entry=entry, offer=offer, players=players,
                           decided=deals.points_decided(night, players), cast=cast, error=error), 422 if error else 200
