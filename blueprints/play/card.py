"""The player's own pages: their home (/me), the member card and what its QR code
opens, moving the card to a new phone (a one-time code, from the player or the host), and signing
out their other phones."""
import datetime as dt

from flask import abort, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required

from blueprints import page_or_fragment, runs
from blueprints.forms import row_id
from blueprints.play.base import bp, phone_entry, private
from blueprints.play.member_cookie import current_member, remember
from league.statuses import EventStatus
from live import qr
from services import cards, field, leagues, results, road
from services.models import Event, League, Member
from services.night_snapshot import read_night
from wiring import rate_limits
from wiring.extensions import db, limiter

# No password: the signed member cookie from check-in says whose phone this is, and every page here
# shows only that member's own records. The card's secret (card_code) appears on /me alone.

CLAIM_FAILED = "Too many tries: wait a minute, then enter the code again."


def _claim_refused(response) -> bool:
    return response.status_code == 422


def _phone_member_key() -> str:
    """The per-member limit's key: this phone's member, else (no card yet) its address."""
    member = current_member()
    return f"member:{member.id}" if member else "address:" + rate_limits.address()


@bp.app_context_processor
def _member_context():
    """`phone_member()` in templates: this phone's member, or None (base.html's "Me" link)."""
    return {"phone_member": current_member}


def _card_url(member: Member) -> str:
    return url_for("play.member_card", card_code=member.card_code, _external=True)


@bp.route("/me")
def me():
    """This phone's member's home (R-MEM-1: players act only for themselves): tonight's game (R-SEAT
    table and seat, R-CHIP-3 bonus chips, status), their road to the finals (services.road: points and
    rank this month and season, R-STD-1/2; the points from the Top-10 Shoot-out, R-QUAL-4, and the Top 50;
    this month's Monthly Final ticket or how to earn one, R-QUAL-1/2; the nights left at their venues;
    their form), results (R-PTS), their Monthly Final tickets (R-QUAL-1..3), and the
    member card's QR code for the host (and, for a day, that a host moved it to a new phone).
    Without a member cookie: how to get one."""
    member = current_member()
    if member is None:
        return private(render_template("play/me_none.html"))
    league = db.session.get(League, member.league_id)
    today = league.today()
    live = results.member_live_entry(member, today - dt.timedelta(days=1))
    tickets = results.member_tickets(member)
    played = results.member_results(member)
    return private(render_template(
        "play/me.html", member=member, league=league, road=road.road_of(league, member, recent=played),
        live=live, live_me=live and phone_entry(live.event), live_prizes=read_night(live.event).prizes if live else [],
        tickets=tickets, ticket_events={t.event_id for t in tickets}, results=played,
        card_qr=qr.svg(_card_url(member)), moved=_host_move(member, league)))


def _host_move(member: Member, league: League) -> tuple[str, str] | None:
    """R-MEM-1: a host moved this card to a new phone in the last day: who, and when (local time)."""
    moved = cards.host_move(member)
    if moved is None:
        return None
    host, at = moved
    return host, at.replace(tzinfo=dt.UTC).astimezone(league.zone()).strftime("%H:%M on %a %d %b")


@bp.route("/me/move", methods=["POST"])
@limiter.limit(rate_limits.setting("MOVE_CODE_RATE_LIMIT"), key_func=_phone_member_key)
def move_card():
    """R-MEM-1: "Move to a new phone", on the phone that holds the card: a one-time code (ten
    digits, ten minutes, once; MOVE_CODE_RATE_LIMIT an hour) and a QR code of the claim link for the
    new phone. htmx swaps it into /me; without script it is a page of its own."""
    member = current_member()
    if member is None:
        abort(403)
    code, expires = cards.issue_code(member)
    db.session.commit()
    league = db.session.get(League, member.league_id)
    return private(page_or_fragment("play/me_move.html", "play/_move_code.html",
                                     **_code_context(code, expires, league)))


def _code_context(code: str, expires: dt.datetime, league: League) -> dict:
    """A one-time code as the pages show it: "123 456 7890", until when (the league's local time), and
    the claim link with its QR code."""
    link = url_for("play.claim_card", code=code, _external=True)
    until = expires.replace(tzinfo=dt.UTC).astimezone(league.zone())
    # Not qr.svg: its cache would keep the code in memory after it is used.
    return {"code": cards.spaced(code), "until": until.strftime("%H:%M"),
            "minutes": int(cards.CODE_LIFETIME.total_seconds() // 60),
            "claim_link": link, "claim_qr": qr.svg.__wrapped__(link)}


@bp.route("/me/sign-out-others", methods=["POST"])
def sign_out_others():
    """R-MEM-1: "Sign out my other phones": a new cookie secret (a lost phone forgets the member);
    this phone keeps the card."""
    member = current_member()
    if member is None:
        abort(403)
    cards.sign_out_other_phones(member)
    db.session.commit()
    flash("Your other phones are signed out. This one keeps your card.")
    return private(remember(redirect(url_for("play.me"), 303), member))


@bp.route("/me/claim", methods=["GET", "POST"])
@limiter.limit(rate_limits.setting("CLAIM_RATE_LIMIT"), methods=["POST"])
@limiter.limit(rate_limits.setting("CLAIM_GUESS_LIMIT"), key_func=lambda: "member-code-guesses", methods=["POST"],
               deduct_when=_claim_refused)
def claim_card():
    """R-MEM-1: the new phone takes the card with the one-time code (typed, or from the QR link,
    which only fills the form in: a link checker opening it uses nothing up). A wrong, used or
    expired code is refused and changes nothing; tries are rate-limited per address, and wrong codes
    from all addresses together (CLAIM_GUESS_LIMIT), so a code cannot be guessed in its lifetime."""
    error = None
    code = request.values.get("code", "")[:20]
    if request.method == "POST":
        member = cards.claim_code(code)
        if member is None:
            db.session.rollback()
            error = ("That code didn't work: it is wrong, already used, or older than ten minutes. "
                     "Ask for a new one (Me → Move to a new phone, or the host).")
        else:
            if request.form.get("sign_out_others") == "yes":
                cards.sign_out_other_phones(member)
            db.session.commit()
            flash(f"Your member card is on this phone now, {member.name}.")
            return private(remember(redirect(url_for("play.me"), 303), member))
    return private(render_template("play/claim.html", code=code, error=error,
                                    holder=current_member()), 422 if error else 200)


def claim_too_many():
    """R-MEM-1: the claim form's answer to a rate limit: the form again, saying to wait."""
    return private(render_template("play/claim.html", code="", holder=current_member(), error=CLAIM_FAILED), 429)


@bp.route("/cards/<card_code>")
def member_card(card_code: str):
    """R-MEM-1: what a member card's QR code opens. For a logged-in host or organiser of the member's
    league: the member (name, under-21 and photo-ID state, R-MEM-1) and a check-in button for each of
    their open games today (the roster's walk-in, R-LATE-1/4). For anyone else: whose card it is
    (first name only), nothing private. The page never repeats the card's secret."""
    member = db.session.scalar(db.select(Member).where(Member.card_code == card_code))
    if member is None:
        abort(404, description="No member card has that code.")
    if not (current_user.is_authenticated and current_user.league_id == member.league_id):
        viewer = current_member()
        return private(render_template("play/card.html", member=member, host_view=False,
                                        own=viewer is not None and viewer.id == member.id))
    league = db.session.get(League, member.league_id)
    today = league.today()
    games = [(event, field.entry_of(event, member)) for event in leagues.nights_from(league, today)
             if (event.status == EventStatus.RUNNING or event.date == today) and runs(event)]
    return private(render_template("play/card.html", member=member, host_view=True, games=games, own=False))


@bp.route("/member-codes", methods=["POST"])
@login_required
def host_move_code():
    """R-MEM-1: the host gives a member a one-time code to move their card to a new phone (a lost or
    new phone): from the walk-in search or the member's card. Only tonight's host of a night the
    member is in, or an organiser (services.cards.move_refusal); anyone else is refused (403) with
    the reason. The host reads the code out, or the new phone scans the QR code; the member's other
    phones can be signed out when it is claimed."""
    member_id = row_id(request.form.get("member"))
    member = db.session.get(Member, member_id) if member_id else None
    if member is None or member.league_id != current_user.league_id:
        abort(404, description="No such member in your league.")
    refusal = cards.move_refusal(current_user, member)
    if refusal:
        return private(refusal, 403)
    code, expires = cards.issue_code(member, issued_by=current_user.id)
    db.session.commit()
    back = row_id(request.form.get("event"))
    event = db.session.get(Event, back) if back else None
    if event is not None and not runs(event):
        event = None
    return private(render_template("play/host_code.html", member=member, event=event,
                                    **_code_context(code, expires, current_user.league)))
