"""Tonight's game from a player's phone (and the big screen): the event's live clock, this phone's
entry in it, the screen for a TV, check-in from the QR code, the deal ballot, and pre-registration
for a coming night."""
import hmac

from flask import abort, flash, make_response, redirect, render_template, request, url_for
from sqlalchemy.exc import IntegrityError

from blueprints import cast_vote, event_or_404, is_htmx, lock_event, page_or_fragment
from blueprints.play.base import bp, phone_entry, prereg_state, private
from blueprints.play.member_cookie import current_member, remember
from league import statuses
from live import qr
from live.announce import announce
from live.payload import clock_payload
from services import Refused, cancelling, checkin, deals, field, journal, members
from services import prereg as preregistration
from services.models import Event
from services.night_snapshot import dealt, read_night
from wiring import rate_limits
from wiring.extensions import db, limiter


@bp.route("/events/<int:event_id>")
def event(event_id: int):
    """R-CLOCK-1..3: the event's live clock on a player's phone. On a first visit its first paint
    needs no file (base.html `first_paint`); a phone whose service worker asks (navigation preload)
    holds app.css already, so the page links it instead of carrying its first-paint styles again."""
    event = event_or_404(event_id)
    has_shell = request.headers.get("Service-Worker-Navigation-Preload") is not None
    response = make_response(render_template("play/event.html", event=event, clock=clock_payload(event),
                                             me=phone_entry(event), prereg=prereg_state(event),
                                             first_paint=not has_shell))
    response.vary.add("Service-Worker-Navigation-Preload")
    return response


@bp.route("/events/<int:event_id>/me")
def my_entry(event_id: int):
    """R-SEAT-1..4, R-PTS: this phone's member in the event: waiting, their table and seat, or where
    they finished and their points. Only their own. `?was=` is the seat the phone's player
    acknowledged, `?shown=` the seat of an alert still up: a new seat comes with an alert ("You
    moved", their first seat, the final table). `?stream=1`: the clock page, where the stream's seat
    digest says when to refresh (a slow poll is the fallback)."""
    event = event_or_404(event_id)
    me = phone_entry(event, request.args.get("was"), request.args.get("shown"))
    return private(render_template("play/_me.html", event=event, me=me,
                                    streamed=request.args.get("stream") == "1"))


@bp.route("/events/<int:event_id>/screen")
def screen(event_id: int):
    """R-CLOCK-1..3: the big screen for a TV: huge digits, blinds, next level, players left, average stack."""
    event = event_or_404(event_id)
    # R-MEM-1: the check-in QR shows only on a screen the host opened (its link carries the code),
    # so the public screen URL does not give the check-in link away.
    code = request.args.get("code", "")
    if not code.isascii():  # compare_digest takes ASCII text only; no check-in code is anything else
        abort(400, description="This screen's check-in code is wrong: open the big screen again from the host's night.")
    check_in = None
    if code and hmac.compare_digest(code, event.check_in_code) and event.status in statuses.OPEN_EVENTS:
        check_in = url_for("play.check_in", code=event.check_in_code, _external=True)
    return render_template("play/screen.html", event=event, clock=clock_payload(event), check_in=check_in,
                           qr_svg=qr.svg(check_in) if check_in else None)


def _check_in_event(code: str):
    event = checkin.event_for_check_in(code)
    if event is None and (cancelled := cancelling.cancelled_by_code(code)) is not None:
        abort(410, description=cancelling.cancellation(cancelled))
    if event is None:
        abort(404, description="This check-in link has ended or is wrong: ask the host for tonight's QR code.")
    return event


def _check_in_link() -> str:
    return "check-in-link:" + rate_limits.hashed((request.view_args or {}).get("code", ""))


def _checked_in(response) -> bool:
    return response.status_code == 303


@bp.route("/check-in/<code>", methods=["GET", "POST"])
@limiter.limit(rate_limits.setting("CHECK_IN_RATE_LIMIT"), methods=["POST"])
@limiter.limit(rate_limits.setting("CHECK_IN_LINK_RATE_LIMIT"), key_func=_check_in_link, methods=["POST"],
               deduct_when=_checked_in)
def check_in(code: str):
    """R-MEM-1, R-LATE-1/4: check in from the QR code: one tap for a phone that knows its member,
    otherwise join the league on the spot (free, 18+). The host then confirms the arrival. Check-ins
    are rate-limited per address and per night's link (a script cannot fill the host's roster)."""
    event = _check_in_event(code)
    member = current_member()
    if member is not None and member.league_id != event.league_id:
        member = None
    entry = field.entry_of(event, member) if member else None
    error = None
    if request.method == "POST":
        # Five phones joining with one name, or one phone's double tap: one after the other, each
        # on what the other left (the version moving on also tells the host's roster at once).
        phone = member
        lock_event(event)
        try:
            if member is None:
                form = request.form
                member = members.join(event.league_id, form.get("name", ""), form.get("adult") == "yes",
                                      form.get("under_21") == "yes", form.get("contact", ""))
            entry = checkin.check_in(event, member)
            db.session.flush()
        except Refused as refused:
            db.session.rollback()
            error, member = str(refused), phone
        except IntegrityError:  # the same name taken at that moment at another night of the league
            db.session.rollback()
            if phone is not None:  # their entry went in from another tap: they are in
                return redirect(url_for("play.check_in", code=code), 303)
            error, member = members.name_taken(request.form.get("name", "")), None
        else:
            db.session.commit()
            announce(event)
            response = redirect(url_for("play.check_in", code=code), 303)
            return remember(response, member)
    return render_template("play/check_in.html", event=event, member=member, entry=entry, error=error,
                           form=request.form), 422 if error else 200


@bp.route("/events/<int:event_id>/deal", methods=["GET", "POST"])
def deal(event_id: int):
    """R-PAY-2, R-PTS-7: the deal on the ballot, on a remaining player's own phone: the split
    offered to each player and a secret Yes/No (one "no" voids it)."""
    event = event_or_404(event_id)
    me = phone_entry(event)
    entry = me["entry"] if me else None
    error = None
    if request.method == "POST":
        if entry is None:
            abort(403)
        if (error := cast_vote(event, lambda: entry)) is None:
            return redirect(url_for("play.deal", event_id=event.id), 303)
    night = read_night(event)
    on_ballot = event.deal_status in (statuses.DealStatus.OPEN, statuses.DealStatus.AGREED)
    offer = deals.deal_offer(night) if on_ballot and event.deal_method else None
    if not (players := night.deal_players):  # agreed: the players the deal placed
        entrants = night.entrants
        players = [e for e in entrants if e.id in dealt(event, entrants)]
    return render_template("play/deal.html", event=event, entry=entry, offer=offer, error=error,
                           ballot=deals.ballot(night), players=players, decided=deals.points_decided(night, players)
                           ), 422 if error else 200


# ---- Pre-registration from the player's own phone (R-LATE-3) ----
# Only ever for this phone's member (the signed cookie says who): the entry is found from the
# member, never from the form, so nobody can pre-register or cancel for someone else.

TOO_MANY_TAPS = "Too many taps: wait a minute, then try again."


def _prereg_key() -> str:
    """A player taps a few times at most; keyed by member, not address, because a pub's phones share
    one (a phone without a card is refused by the view, and counted by its address)."""
    member = current_member()
    return f"prereg:{member.id}" if member else "prereg-address:" + rate_limits.address()


by_member = limiter.shared_limit(rate_limits.setting("PREREG_RATE_LIMIT"), scope="prereg", key_func=_prereg_key)


def prereg_too_many():
    """R-LATE-3: the pre-registration block's answer to its rate limit: the block, saying to wait."""
    return _prereg_block(event_or_404(request.view_args["event_id"]), 429, error=TOO_MANY_TAPS)


def _prereg_block(event: Event, status: int = 200, **extra):
    return private(page_or_fragment("play/prereg.html", "play/_prereg.html", status, p=prereg_state(event, **extra)))


@bp.route("/events/<int:event_id>/prereg")
def prereg(event_id: int):
    """R-LATE-3: this phone's pre-registration for the night: the Pre-register button, or the state
    of theirs with Cancel; a page of its own, or the block alone for htmx."""
    return _prereg_block(event_or_404(event_id))


@bp.route("/events/<int:event_id>/prereg", methods=["POST"])
@by_member
def prereg_self(event_id: int):
    """R-LATE-3/4, R-MEM-1: pre-register this phone's member for a coming night of their league, one
    tap before play starts. A free night puts their stack in play at once; a night with a buy-in
    waits for the host to confirm it was paid (preregistration.self_pre_register). Journaled: the host sees it
    as the roster's last action and can undo it."""
    return _prereg_write(event_id, cancel=False)


@bp.route("/events/<int:event_id>/prereg/cancel", methods=["POST"])
@by_member
def prereg_cancel(event_id: int):
    """R-LATE-3: this phone's member cancels their own pre-registration (or request) before play
    starts. Journaled and undoable by the host."""
    return _prereg_write(event_id, cancel=True)


def _prereg_write(event_id: int, cancel: bool):
    """R-LATE-3: one player's pre-registration write as one transaction under the event's write lock,
    then every screen of the event hears of it (the roster, the clock's players left)."""
    event = event_or_404(event_id)
    phone = current_member()
    if phone is None:
        return _prereg_block(event, 403, error="This phone doesn't hold your member card yet, so it can't "
                                               "pre-register you: get your card on it first.")
    if phone.league_id != event.league_id:
        return _prereg_block(event, 403, error=f"This night is in {event.league.name}; your member card is "
                                               "for another league.")
    name = phone.name
    # As the host's roster does, so this tap and a host's tap on the same night can't interleave.
    lock_event(event)
    try:
        if cancel:
            log = journal.Journal(event, None, "self_prereg_cancel",
                                  f"{name} cancelled their pre-registration on their phone")
            preregistration.cancel_pre_registration(event, phone, log)
            message = "Your pre-registration is cancelled."
        else:
            log = journal.Journal(event, None, "self_prereg", f"{name} pre-registered on their phone")
            entry = preregistration.self_pre_register(event, phone, log, adult=request.form.get("adult") == "yes")
            message = "Done: you're in."
            if entry.status == statuses.EntryStatus.REQUESTED:
                log.action.summary = f"{name} asked on their phone to pre-register (${event.buy_in} buy-in to confirm)"
                message = "Sent to the host."
        log.record()
    except Refused as refused:
        db.session.rollback()
        return _prereg_block(event, 422, error=str(refused))
    db.session.commit()
    announce(event)
    if is_htmx():
        return _prereg_block(event, message=message)
    flash(message)
    return private(redirect(url_for("play.prereg", event_id=event.id), 303))
