"""Pages anyone can open, no login (issue 5): the home page, each league's pages (its home, month
and season standings with a name search, qualifiers, each night's results, upcoming nights), an
event's clock on a phone and the big screen; and the app shell that makes them an installable
app: the manifest, the service worker at the site root and the offline page."""
import datetime as dt
import hashlib
import hmac
import json
import os
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from flask import Blueprint, abort, current_app, flash, make_response, redirect, render_template, request, url_for
from flask_login import current_user, login_required
from limits import parse as parse_limit

import clocks
import journal
import membership
import nights
import qr
import records
from blueprints import page_or_fragment
from blueprints.host import runs
from blueprints.live import announce, event_or_404
from extensions import db, limiter
from league.events import EVENT_TYPES
from league.members import name_key
from league.standings import SEASON_TABLE_SIZE, StandingRow, top_with_ties
from membership import current_member, remember
from models import Event, League, Member

bp = Blueprint("play", __name__)

# The dark theme's background: the manifest's colours must match base.html and app.css, or the
# splash screen flashes another colour before the first page paints.
DARK_BG = "#101418"
HOME_TABLE_SIZE = 10  # the league home shows the top of the month's table, ties included
RECENT_NIGHTS = 5
# What the service worker precaches (cache-first afterwards); other static files are cached the
# first time a page asks for them. Icons are left out: a phone on pub wifi should not pay for them.
PRECACHE_SUFFIXES = (".css", ".js")
# Templates whose output the worker caches (the offline page): they count in its version too.
SHELL_TEMPLATES = ("base.html", "play/offline.html", "play/sw.js")
TABLE_ID = "standings-table"  # the search swaps only this element (see _standings)


def app_shell(app, static_folder: str | None = None) -> dict:
    """The service worker's version and precache list: a hash of every static file and of the
    templates of the offline page, so a deploy that changes any of them gives phones a new worker
    and a fresh cache (no phone keeps yesterday's CSS or script)."""
    static = static_folder or app.static_folder
    digest, precache = hashlib.sha256(), []
    for folder, _, names in sorted(os.walk(static)):
        for name in sorted(names):
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, static).replace(os.sep, "/")
            with open(path, "rb") as file:
                digest.update(relative.encode() + b"\0" + file.read() + b"\0")
            if name.endswith(PRECACHE_SUFFIXES):
                precache.append(relative)
    for name in SHELL_TEMPLATES:
        source, _, _ = app.jinja_loader.get_source(app.jinja_env, name)
        digest.update(name.encode() + b"\0" + source.encode() + b"\0")
    return {"version": digest.hexdigest()[:16], "precache": sorted(precache)}


def _remember_shell(state):
    """Once, at app start: hashing the files on every request to /sw.js would cost a disk read of each."""
    state.app.extensions["shuffleup_shell"] = app_shell(state.app)


bp.record_once(_remember_shell)


@bp.route("/")
def home():
    """The home page: tonight's events (to their clock) and each league's page (issue 5)."""
    today = dt.date.today()
    tonight = db.session.scalars(db.select(Event).where(Event.date == today).order_by(Event.start_time)).all()
    leagues = db.session.scalars(db.select(League).order_by(League.name)).all()
    return render_template("play/home.html", tonight=tonight, leagues=leagues)


@bp.route("/events/<int:event_id>")
def event(event_id: int):
    """R-CLOCK-1..3: the event's live clock on a player's phone."""
    event = event_or_404(event_id)
    return render_template("play/event.html", event=event, clock=clocks.payload(event), me=_me(event),
                           prereg=_prereg(event))


def _me(event: Event, was: str | None = None) -> dict | None:
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


@bp.route("/events/<int:event_id>/me")
def my_entry(event_id: int):
    """R-SEAT-1..4, R-PTS: this phone's member in the event: waiting, their table and seat, or where
    they finished and their points. Only their own. `?was=` is the seat the phone showed: a new seat
    comes with an alert ("You moved", their first seat, the final table). `?stream=1`: the clock
    page, where the stream's seat digest says when to refresh (a slow poll is the fallback)."""
    event = event_or_404(event_id)
    return _private(render_template("play/_me.html", event=event, me=_me(event, request.args.get("was")),
                                    streamed=request.args.get("stream") == "1"))


@bp.route("/events/<int:event_id>/screen")
def screen(event_id: int):
    """R-CLOCK-1..3: the big screen for a TV: huge digits, blinds, next level, players left, average stack."""
    event = event_or_404(event_id)
    # R-MEM-1: the check-in QR shows only on a screen the host opened (its link carries the code),
    # so the public screen URL does not give the check-in link away.
    code = request.args.get("code", "")
    check_in = None
    if code and hmac.compare_digest(code, event.check_in_code) and event.status in nights.OPEN_EVENTS:
        check_in = url_for("play.check_in", code=event.check_in_code, _external=True)
    return render_template("play/screen.html", event=event, clock=clocks.payload(event), check_in=check_in,
                           qr_svg=qr.svg(check_in) if check_in else None)


# ---- League pages anyone can open (issue 5) ----

@bp.route("/leagues/<slug>")
def league_home(slug: str):
    """R-STD-1: a league's home: tonight's clocks, the top of this month's table (or the latest
    month with results), the latest nights' results, and links to every public page."""
    league = _league_or_404(slug)
    today = _local_today(league)
    month = today.strftime("%Y-%m")
    table = records.month_standings(league, month)
    if not table:
        months = records.league_months(league)
        if months:
            month = months[0]
            table = records.month_standings(league, month)
    first, _ = records.parse_month(month)
    return render_template(
        "play/league.html", league=league, month=month, year=month[:4], month_label=first.strftime("%B %Y"),
        rows=top_with_ties(table, HOME_TABLE_SIZE), total=len(table), q="", table_id=TABLE_ID,
        me_row=_my_row(league, table),
        live=[e for e in records.nights_from(league, today) if e.status == "running"],
        recent=records.settled_nights(league, limit=RECENT_NIGHTS), event_types=EVENT_TYPES)


@bp.route("/leagues/<slug>/months/<month>")
def month_standings(slug: str, month: str):
    """R-STD-1: a month's standings (ranks shared on equal points) and its nights' results; `?q=`
    filters the table by name, and an htmx search gets the table alone. A phone with a member in the
    table gets "Jump to me" and their row marked."""
    league = _league_or_404(slug)
    first, following = _month_or_404(month)
    months = _with(records.league_months(league), month)
    position = months.index(month)
    table = records.month_standings(league, month)
    return _standings(
        "play/month.html", "play/_month.html", league=league, month=month, year=month[:4],
        title=f"{first.strftime('%B %Y')} standings · {league.name}", month_label=first.strftime("%B %Y"),
        table=table, me_row=_my_row(league, table),
        nights=records.settled_nights(league, first, following),
        newer=months[position - 1] if position > 0 else None,
        older=months[position + 1] if position + 1 < len(months) else None, event_types=EVENT_TYPES)


@bp.route("/leagues/<slug>/seasons/<int:year>")
def season_standings(slug: str, year: int):
    """R-STD-2: the season table as published: the Top 50, and everyone tied with 50th; `?q=`
    filters it by name, and an htmx search gets the table alone. A phone with a member in the table
    gets "Jump to me" (or, below the Top 50, their rank and points)."""
    league = _league_or_404(slug)
    try:
        table = records.year_standings(league, year)
    except ValueError:
        abort(404)
    years = _with(sorted({m[:4] for m in records.league_months(league)}, reverse=True), str(year))
    position = years.index(str(year))
    latest = next((m for m in records.league_months(league) if m.startswith(str(year))), f"{year}-12")
    return _standings(
        "play/season.html", "play/_season.html", league=league, year=str(year), month=latest,
        title=f"{year} season · {league.name}", table=top_with_ties(table, SEASON_TABLE_SIZE),
        me_row=_my_row(league, table), players=len(table), top=SEASON_TABLE_SIZE,
        newer=years[position - 1] if position > 0 else None,
        older=years[position + 1] if position + 1 < len(years) else None)


@bp.route("/leagues/<slug>/months/<month>/qualifiers")
def month_qualifiers(slug: str, month: str):
    """R-QUAL-1..5, R-FIN: the month's Monthly Final ticket holders (with the night each came from),
    the Top-10 Shoot-out and the High-roller Final entrants with their starting stacks."""
    league = _league_or_404(slug)
    first, _ = _month_or_404(month)
    months = _with(records.league_months(league), month)
    position = months.index(month)
    return page_or_fragment(
        "play/qualifiers.html", "play/_qualifiers.html", league=league, month=month, year=month[:4],
        title=f"{first.strftime('%B %Y')} finals · {league.name}", month_label=first.strftime("%B %Y"),
        tickets=records.ticket_holders(league, month), qualifiers=records.qualifiers(league, month),
        newer=months[position - 1] if position > 0 else None,
        older=months[position + 1] if position + 1 < len(months) else None)


@bp.route("/events/<int:event_id>/results")
def event_results(event_id: int):
    """R-PTS-1..8, R-QUAL-1/2: a settled night's finishing order, points and the Monthly Final
    tickets it gave; a night not settled yet has no results page (404)."""
    event = event_or_404(event_id)
    if event.status != "settled":
        abort(404, description="this night's results are not settled yet")
    return render_template("play/results.html", event=event, league=event.league, month=event.month,
                           year=event.month[:4], kind=EVENT_TYPES.get(event.event_type),
                           entries=records.finishers(event), ticketed=records.ticketed(event))


@bp.route("/leagues/<slug>/nights")
def coming_nights(slug: str):
    """Issue 5 (no rule governs the calendar): the league's coming nights, venue by venue: running
    now or scheduled from today (the league's local date), each linked to its live clock (R-CLOCK-3).
    A phone holding a member card of the league gets each night's pre-registration (R-LATE-3)."""
    league = _league_or_404(slug)
    today = _local_today(league)
    by_venue: dict[str, list[Event]] = {}
    coming = records.nights_from(league, today)
    for night in coming:
        by_venue.setdefault(night.venue.name, []).append(night)
    member = current_member()
    prereg = {night.id: _prereg(night) for night in coming} if member and member.league_id == league.id else {}
    response = make_response(render_template(
        "play/nights.html", league=league, today=today, month=today.strftime("%Y-%m"), year=str(today.year),
        by_venue=sorted(by_venue.items(), key=lambda v: v[0].casefold()), event_types=EVENT_TYPES,
        prereg=prereg))
    response.vary.add("Cookie")  # the pre-registration buttons are this phone's own
    return response


# ---- The app shell: manifest, service worker, offline page (issue 5) ----

@bp.route("/manifest.webmanifest")
def manifest():
    """Issue 5, PWA: the web app manifest: installable, standalone, opening on the home page."""
    home = url_for("play.home")
    icon = lambda name: url_for("static", filename=f"icons/{name}")  # noqa: E731
    body = {
        "id": home, "name": "ShuffleUp pub poker", "short_name": "ShuffleUp",
        "description": "Your pub poker league: the live clock, standings, finals and nights.",
        "lang": "en", "start_url": home, "scope": home, "display": "standalone",
        "background_color": DARK_BG, "theme_color": DARK_BG, "categories": ["games", "sports"],
        "icons": [
            {"src": icon("icon-192.png"), "sizes": "192x192", "type": "image/png", "purpose": "any"},
            {"src": icon("icon-512.png"), "sizes": "512x512", "type": "image/png", "purpose": "any"},
            {"src": icon("icon-maskable-192.png"), "sizes": "192x192", "type": "image/png", "purpose": "maskable"},
            {"src": icon("icon-maskable-512.png"), "sizes": "512x512", "type": "image/png", "purpose": "maskable"},
        ],
    }
    response = current_app.response_class(json.dumps(body, indent=1), mimetype="application/manifest+json")
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.route("/sw.js")
def service_worker():
    """Issue 5, PWA: the service worker, from the site root so that its scope is every page.

    no-cache: the browser asks again on every check, so a deploy reaches phones on their next visit.
    """
    shell = current_app.extensions["shuffleup_shell"]
    offline = url_for("play.offline")
    body = render_template(
        "play/sw.js", version=shell["version"], offline=offline,
        precache=[url_for("static", filename=name) for name in shell["precache"]] + [offline],
        static_prefix=url_for("static", filename=""), api_prefix=url_for("play.home") + "api/")
    response = make_response(body)
    response.mimetype = "text/javascript"
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.route("/offline")
def offline():
    """Issue 5, PWA: what the service worker shows for a page it cannot fetch and never saved."""
    return render_template("play/offline.html")


# ---- Helpers: parsing, and reads for these pages ----

def _league_or_404(slug: str) -> League:
    league = records.find_league(slug)
    if league is None or league.slug != slug:  # a league's public address is its slug, nothing else
        abort(404, description=f"no league {slug!r}")
    return league


def _month_or_404(month: str) -> tuple[dt.date, dt.date]:
    try:
        return records.parse_month(month)
    except ValueError:
        abort(404)


def _with(periods: list[str], period: str) -> list[str]:
    """The pager's periods (newest first), including the one asked for even when it has no results."""
    return periods if period in periods else sorted({*periods, period}, reverse=True)


def _local_today(league: League) -> dt.date:
    """Today at the league's venues (R-STD-1 counts the venue's local date), not the server's."""
    try:
        return dt.datetime.now(ZoneInfo(league.timezone)).date()
    except (ZoneInfoNotFoundError, ValueError):
        return dt.date.today()


def _standings(page: str, section: str, *, table, **context):
    """A standings page (month or season): the whole section, or for the name search (htmx aimed at
    the table) the table alone. `?q=` keeps the full table's ranks: a filter, not a new table."""
    query = request.args.get("q", "").strip()[:80]
    wanted = name_key(query)
    rows = [row for row in table if wanted in name_key(row.player)] if wanted else table
    fragment = "play/_standings_table.html" if request.headers.get("HX-Target") == TABLE_ID else section
    response = page_or_fragment(page, fragment, rows=rows, total=len(table), q=query, table_id=TABLE_ID,
                                **context)
    response.vary.add("HX-Target")  # the same URL answers the section or the table alone
    response.vary.add("Cookie")  # "Jump to me" is this phone's own
    return response


def _my_row(league: League, table: list[StandingRow]) -> StandingRow | None:
    """R-STD-1/2: this phone's member's row in a table of their league, for "Jump to me"."""
    member = current_member()
    return records.row_of(table, member.id) if member is not None and member.league_id == league.id else None


def _check_in_event(code: str):
    event = nights.event_for_check_in(code)
    if event is None:
        abort(404, description="This check-in link has ended or is wrong: ask the host for tonight's QR code.")
    return event


@bp.route("/check-in/<code>", methods=["GET", "POST"])
def check_in(code: str):
    """R-MEM-1, R-LATE-1/4: check in from the QR code: one tap for a phone that knows its member,
    otherwise join the league on the spot (free, 18+). The host then confirms the arrival."""
    event = _check_in_event(code)
    member = current_member()
    if member is not None and member.league_id != event.league_id:
        member = None
    entry = nights.entry_of(event, member) if member else None
    error = None
    if request.method == "POST":
        try:
            if member is None:
                form = request.form
                member = nights.join(event.league_id, form.get("name", ""), form.get("adult") == "yes",
                                     form.get("under_21") == "yes", form.get("contact", ""))
            entry = nights.check_in(event, member)
        except nights.Refused as refused:
            db.session.rollback()
            error = str(refused)
        else:
            clocks.touch(event)  # the host's roster hears of the arrival at once
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
    me = _me(event)
    entry = me["entry"] if me else None
    error = None
    if request.method == "POST":
        if entry is None:
            abort(403)
        try:
            nights.vote(event, entry, request.form.get("vote") == "yes")
        except nights.Refused as refused:
            db.session.rollback()
            error = str(refused)
        else:
            clocks.touch(event)
            db.session.commit()
            announce(event)
            return redirect(url_for("play.deal", event_id=event.id), 303)
    offer = nights.deal_offer(event) if event.deal_status in ("open", "agreed") and event.deal_method else None
    return render_template("play/deal.html", event=event, entry=entry, offer=offer, error=error,
                           ballot=nights.ballot(event), players=nights.deal_players(event) or [
                               e for e in nights.field(event) if e.chips_at_deal is not None]), 422 if error else 200


# ---- The player's own pages: home, member card, moving the card to a new phone (issues 4, 5) ----
# No password: the signed member cookie from check-in says whose phone this is, and every page here
# shows only that member's own records. The card's secret (card_code) appears on /me alone.

PRIVATE = {"Cache-Control": "private, no-store", "Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex"}
CLAIM_RATE_LIMIT = "10 per minute"  # a six-digit code can't be guessed 10 tries at a time


def _private(response, status: int | None = None):
    """No cache (shared or the browser's back-forward store) keeps a member's page, and the URL
    (a card's secret) goes to nobody in a Referer header."""
    response = make_response(response)
    if status is not None:
        response.status_code = status
    response.headers.update(PRIVATE)
    response.vary.add("Cookie")
    return response


@bp.app_context_processor
def _member_context():
    """`phone_member()` in templates: this phone's member, or None (base.html's "Me" link)."""
    return {"phone_member": current_member}


def _card_url(member: Member) -> str:
    return url_for("play.member_card", card_code=member.card_code, _external=True)


@bp.route("/me")
def me():
    """This phone's member's home (R-MEM-1: players act only for themselves): tonight's game (R-SEAT
    table and seat, R-CHIP-3 bonus chips, status), points and rank this month and season (R-STD-1/2),
    results (R-PTS), Monthly Final tickets (R-QUAL-1..3) and the Top-10 Shoot-out (R-QUAL-4), and the
    member card's QR code for the host. Without a member cookie: how to get one."""
    member = current_member()
    if member is None:
        return _private(render_template("play/me_none.html"))
    league = db.session.get(League, member.league_id)
    today = _local_today(league)
    month = today.strftime("%Y-%m")
    month_table = records.month_standings(league, month)
    season_table = records.year_standings(league, today.year)
    live = records.member_live_entry(member, today - dt.timedelta(days=1))
    in_shootout, shootout_cut = records.shootout_standing(month_table, member.id)
    tickets = records.member_tickets(member)
    return _private(render_template(
        "play/me.html", member=member, league=league, month=month, year=str(today.year),
        month_label=today.strftime("%B %Y"), month_row=records.row_of(month_table, member.id),
        month_players=len(month_table), season_row=records.row_of(season_table, member.id),
        season_players=len(season_table), live=live, live_me=live and _me(live.event),
        in_shootout=in_shootout, shootout_cut=shootout_cut, tickets=tickets,
        ticket_events={t.event_id for t in tickets}, results=records.member_results(member),
        event_types=EVENT_TYPES, card_qr=qr.svg(_card_url(member))))


@bp.route("/me/move", methods=["POST"])
def move_card():
    """R-MEM-1: "Move to a new phone", on the phone that holds the card: a one-time code (six
    digits, ten minutes, once) and a QR code of the claim link for the new phone. htmx swaps it into
    /me; without script it is a page of its own."""
    member = current_member()
    if member is None:
        abort(403)
    code, expires = membership.issue_code(member)
    db.session.commit()
    league = db.session.get(League, member.league_id)
    return _private(page_or_fragment("play/me_move.html", "play/_move_code.html",
                                     **_code_context(code, expires, league)))


def _code_context(code: str, expires: dt.datetime, league: League) -> dict:
    """A one-time code as the pages show it: "123 456", until when (the league's local time), and
    the claim link with its QR code."""
    link = url_for("play.claim_card", code=code, _external=True)
    try:
        zone = ZoneInfo(league.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        zone = None
    until = expires.replace(tzinfo=dt.timezone.utc).astimezone(zone)
    # Not qr.svg: its cache would keep the code in memory after it is used.
    return {"code": f"{code[:3]} {code[3:]}", "until": until.strftime("%H:%M"),
            "minutes": int(membership.CODE_LIFETIME.total_seconds() // 60),
            "claim_link": link, "claim_qr": qr.svg.__wrapped__(link)}


@bp.route("/me/sign-out-others", methods=["POST"])
def sign_out_others():
    """R-MEM-1: "Sign out my other phones": a new cookie secret (a lost phone forgets the member);
    this phone keeps the card."""
    member = current_member()
    if member is None:
        abort(403)
    membership.sign_out_other_phones(member)
    db.session.commit()
    flash("Your other phones are signed out. This one keeps your card.")
    return _private(remember(redirect(url_for("play.me"), 303), member))


@bp.route("/me/claim", methods=["GET", "POST"])
@limiter.limit(CLAIM_RATE_LIMIT, methods=["POST"])
def claim_card():
    """R-MEM-1: the new phone takes the card with the one-time code (typed, or from the QR link,
    which only fills the form in: a link checker opening it uses nothing up). A wrong, used or
    expired code is refused and changes nothing; tries are rate-limited (10 a minute)."""
    error = None
    code = request.values.get("code", "")[:20]
    if request.method == "POST":
        member = membership.claim_code(code)
        if member is None:
            db.session.rollback()
            error = ("That code didn't work: it is wrong, already used, or older than ten minutes. "
                     "Ask for a new one (Me → Move to a new phone, or the host).")
        else:
            if request.form.get("sign_out_others") == "yes":
                membership.sign_out_other_phones(member)
            db.session.commit()
            flash(f"Your member card is on this phone now, {member.name}.")
            return _private(remember(redirect(url_for("play.me"), 303), member))
    return _private(render_template("play/claim.html", code=code, error=error,
                                    holder=current_member()), 422 if error else 200)


@bp.errorhandler(429)
def _too_many(error):
    """The claim form's rate limit (and any other on this blueprint): say so plainly."""
    return _private(render_template("play/claim.html", code="", holder=current_member(),
                                    error="Too many tries: wait a minute, then enter the code again."), 429)


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
        return _private(render_template("play/card.html", member=member, host_view=False,
                                        own=viewer is not None and viewer.id == member.id))
    league = db.session.get(League, member.league_id)
    today = _local_today(league)
    games = [(event, nights.entry_of(event, member)) for event in records.nights_from(league, today)
             if (event.status == "running" or event.date == today) and runs(event)]
    return _private(render_template("play/card.html", member=member, host_view=True, games=games, own=False))


@bp.route("/member-codes", methods=["POST"])
@login_required
def host_move_code():
    """R-MEM-1: the host gives a member a one-time code to move their card to a new phone (a lost or
    new phone): from the walk-in search or the member's card. The host reads the code out, or the new
    phone scans the QR code; the member's other phones can be signed out when it is claimed."""
    raw = request.form.get("member", "")
    member = db.session.get(Member, int(raw)) if raw.isdigit() else None
    if member is None or member.league_id != current_user.league_id:
        abort(404, description="No such member in your league.")
    code, expires = membership.issue_code(member, issued_by=current_user.id)
    db.session.commit()
    back = request.form.get("event", "")
    event = db.session.get(Event, int(back)) if back.isdigit() else None
    if event is not None and not runs(event):
        event = None
    return _private(render_template("play/host_code.html", member=member, event=event,
                                    **_code_context(code, expires, current_user.league)))


# ---- Pre-registration from the player's own phone (R-LATE-3, issue 4 item 3) ----
# Only ever for this phone's member (the signed cookie says who): the entry is found from the
# member, never from the form, so nobody can pre-register or cancel for someone else.

# A player taps a few times at most; keyed by member, not address, because a pub's phones share one.
PREREG_RATE_LIMIT = parse_limit("12 per minute")


def _prereg(event: Event, **extra) -> dict:
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


def _prereg_block(event: Event, status: int = 200, **extra):
    return _private(page_or_fragment("play/prereg.html", "play/_prereg.html", status, p=_prereg(event, **extra)))


@bp.route("/events/<int:event_id>/prereg")
def prereg(event_id: int):
    """R-LATE-3: this phone's pre-registration for the night: the Pre-register button, or the state
    of theirs with Cancel; a page of its own, or the block alone for htmx."""
    return _prereg_block(event_or_404(event_id))


@bp.route("/events/<int:event_id>/prereg", methods=["POST"])
def prereg_self(event_id: int):
    """R-LATE-3/4, R-MEM-1: pre-register this phone's member for a coming night of their league, one
    tap before play starts. A free night puts their stack in play at once; a night with a buy-in
    waits for the host to confirm it was paid (nights.self_pre_register). Journaled: the host sees it
    as the roster's last action and can undo it."""
    return _prereg_write(event_id, cancel=False)


@bp.route("/events/<int:event_id>/prereg/cancel", methods=["POST"])
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
    if limiter.enabled and not limiter.limiter.hit(PREREG_RATE_LIMIT, "prereg", str(phone.id)):
        response = _prereg_block(event, 429, error="Too many taps: wait a minute, then try again.")
        response.headers["Retry-After"] = "60"
        return response
    name = phone.name
    # As the host's roster does: end the read transaction, then take the event's write lock before
    # reading again, so this tap and a host's tap on the same night can't interleave.
    db.session.commit()
    clocks.touch(event)
    try:
        if cancel:
            log = journal.Journal(event, None, "self_prereg_cancel",
                                  f"{name} cancelled their pre-registration on their phone")
            nights.cancel_pre_registration(event, phone, log)
            message = "Your pre-registration is cancelled."
        else:
            log = journal.Journal(event, None, "self_prereg", f"{name} pre-registered on their phone")
            entry = nights.self_pre_register(event, phone, log, adult=request.form.get("adult") == "yes")
            message = "Done: you're in."
            if entry.status == nights.REQUESTED:
                log.action.summary = f"{name} asked on their phone to pre-register (${event.buy_in} buy-in to confirm)"
                message = "Sent to the host."
        log.record()
    except nights.Refused as refused:
        db.session.rollback()
        return _prereg_block(event, 422, error=str(refused))
    db.session.commit()
    announce(event)
    if request.headers.get("HX-Request") == "true":
        return _prereg_block(event, message=message)
    flash(message)
    return _private(redirect(url_for("play.prereg", event_id=event.id), 303))
