"""The views: one blueprint per user (host, play, organiser, operator) plus live (SSE and JSON) and auth, the
forms, the template filters and the `flask league` commands. The helpers every blueprint uses are
here, so no blueprint imports another."""
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from flask import abort, g, make_response, render_template, request, url_for
from flask_login import current_user

from live.announce import announce
from services import Refused, clocks, deals, journal, leagues, logins
from services.models import Entry, Event, League
from services.night_snapshot import NightSnapshot, read_night
from wiring.extensions import db


def is_htmx() -> bool:
    """Whether htmx sent this request (HX-Request: true). The one place that reads the header: views
    ask this (an htmx POST gets its fragment back, a plain form post a redirect), pages ask
    page_or_fragment."""
    return request.headers.get("HX-Request") == "true"


def wants_json() -> bool:
    """Whether this request wants JSON, not a page: an /api/ path, or a script that asks for it first."""
    return request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"


def page_or_fragment(page: str, fragment: str, status: int = 200, **context):
    """Render the fragment alone for an htmx request, else the full page that includes it.

    The same URL answers both, so the response says it varies on HX-Request (no cache may serve
    a fragment as a page, or the reverse). A history restore asks for the full page. Templates get
    `as_fragment` (rendered alone, not inside the page), so a fragment that brings its page's
    <title> for the tab needs no header of its own.
    """
    as_fragment = is_htmx() and not request.headers.get("HX-History-Restore-Request")
    response = make_response(render_template(fragment if as_fragment else page, as_fragment=as_fragment, **context),
                             status)
    response.vary.add("HX-Request")
    return response


def neighbours(periods: list[str], period: str) -> dict[str, str | None]:
    """The pager's `newer` and `older` periods (months or years) around `period` among `periods`
    (newest first), counting `period` even when it has no results of its own."""
    periods = periods if period in periods else sorted({*periods, period}, reverse=True)
    at = periods.index(period)
    return {"newer": periods[at - 1] if at > 0 else None,
            "older": periods[at + 1] if at + 1 < len(periods) else None}


# Built once (a statement built per call costs as much again as running it): every host action, stream
# and live page starts here.
_EVENT_BY_ID = db.select(Event).where(Event.id == db.bindparam("event_id"))


def event_or_404(event_id: int) -> Event:
    """The event, or a 404."""
    event = db.session.scalar(_EVENT_BY_ID, {"event_id": event_id})
    if event is None:
        abort(404, description=f"There is no night number {event_id}.")
    return event


def league_or_404(slug: str) -> League:
    """The league by its slug (or name), or a 404."""
    league = leagues.find_league(slug)
    if league is None:
        abort(404, description=f"There is no league called {slug!r}.")
    return league


def runs(event: Event) -> bool:
    """Whether the logged-in user may run this event: an organiser of its league; a host at its venue
    (a host given venues runs only their nights), or a host given no venues, its assigned host."""
    return leagues.runs_event(current_user, event)


def commit_as_is() -> None:
    """Commit, and keep the loaded rows as they are: what this request wrote is what they show, so
    the answer rendered after the commit reads nothing again (a commit otherwise expires every row,
    and the next attribute read queries the database)."""
    session = db.session()
    session.expire_on_commit = False
    try:
        session.commit()
    finally:
        session.expire_on_commit = True


def lock_event(event: Event) -> None:
    """End the read transaction, then take the event's write lock (its version moves on: an UPDATE
    of its row, held to the commit or rollback), so that what is read next is what the phones
    that went before left, and no other write on the night can interleave with this one. Every
    read-decide-write on a night starts here: a host's action, a check-in, a vote, a pre-registration."""
    db.session.commit()
    clocks.touch(event)


def cast_vote(event: Event, voter: Callable[[], Entry | None], *, handed: bool = False) -> str | None:
    """R-PAY-2: a remaining player's secret Yes or No (the form's `vote`) on the deal, from their own
    phone or the host's passed one (`handed`: only for a player without a phone of their own): under
    the night's lock, so the last "yes" sees every other vote (`voter` is read after it), then
    committed and announced. → None once cast, else the refusal's reason, with nothing written."""
    lock_event(event)
    try:
        if (entry := voter()) is None:
            raise Refused("There is no deal for this player to vote on.")
        deals.cast(event, entry, request.form.get("vote") == "yes", handed=handed)
    except Refused as refused:
        db.session.rollback()
        return str(refused)
    db.session.commit()
    announce(event)
    return None


class HostAction(journal.Journal):
    """A host action's journal, and `night`: the night under the action's lock (read as the action
    asks), then once committed the night as the action left it, for the host's answer and every
    phone's message."""
    night: NightSnapshot


@contextmanager
def journalled(event: Event, user_id: int | None, kind: str, summary: str = "", *,
               record: bool = True) -> Iterator[HostAction]:
    """One journalled transaction on the night by `user_id`: the night's lock, the action recorded
    (unless `record` is False), one commit; a refusal rolls it all back. No screen is told:
    host_action does that."""
    log = HostAction(event, user_id, kind, summary)  # before the lock, whose commit expires the rows
    lock_event(event)
    log.night = read_night(event)
    try:
        yield log
        if record:
            log.action.summary = log.action.summary[:200]
            log.record()
        commit_as_is()
    except Exception:
        db.session.rollback()
        raise


@contextmanager
def host_action(event: Event, kind: str, summary: str = "", *, record: bool = True) -> Iterator[HostAction]:
    """One host action on the night as one transaction that Undo can take back (the journal).

    First the read transaction ends and the event's write lock is taken (its version moves on), so
    two phones tapping at once (two hosts busting the same player) act one after the other, each
    on what the other left. The block gets the action's Journal (the logged-in user's; its summary
    may be set inside); when the block ends the action is recorded, committed, and every screen of
    the event hears of it. A Refused (or any error) rolls everything back, the lock's version too:
    nothing is written, and the refusal goes on to the caller. `record=False` is for Undo alone,
    which marks an earlier action undone instead of being one.
    """
    with journalled(event, current_user.id, kind, summary, record=record) as log:
        yield log
    # The night as the action left it, for every screen: the phones' message here, and the host's
    # answer (`log.night`).
    log.night = log.night.again()
    announce(event, night=log.night)


def login_change(user, change: str) -> dict:
    """Do a change (services.logins.CHANGES) to a login the current user manages; the page's context:
    what was done, and the password link to hand over, when one was made. Raises Refused."""
    saved, token = logins.change_login(user, change, current_user)
    if token:  # blueprints/once.py keeps no copy of an answer holding a link: a repeat is told "saved"
        g.answer_holds_secret = True
    return {"saved": saved, "handover": url_for("auth.password_link", token=token, _external=True) if token else None}


def change_login_of(league: League | None, user_id: int, role, change: str, render: Callable[..., Any]):
    """The view of a login change: the league's login of `role` (404 for any other), changed and
    committed, then `render(status, **context)`: the answer with the link to hand over, or the refusal
    (409, `problem` beside the login, `problem_at` naming it) with nothing changed."""
    user = logins.login_of(league, user_id, role)
    if user is None:
        abort(404)
    try:
        done = login_change(user, change)
    except Refused as refused:
        db.session.rollback()
        return render(409, problem=str(refused), problem_at=f"login-{user_id}")
    db.session.commit()
    return render(200, **done)
