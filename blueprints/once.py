"""One tap, one action: every state-changing request (a host's, an organiser's, an operator's, a
player's) that carries an idempotency key applies at most once, and a repeat of it answers as the
first did. One mechanism for every view, not a guard in each (the DESIGN's "Idempotency").

The page gives each form that posts a random key at its first submit (static/js/once.js: the hidden
field `idempotency_key`), kept until an answer arrives: a double tap, or a retry after no answer or
a 503, sends the same key again. A script sends the `Idempotency-Key` header. The key names
the request together with what it sends (its method, path and fields), so two buttons of one form
are two requests, and a repeat is the same request again.

- Before the view runs, the key is claimed: a row of `request_keys`, unique on (who, key), inserted
  and committed on a connection of its own. A second request with the same key finds the row: it
  waits for the first one's answer and answers with it (status, body, the htmx headers: no cookie),
  or, when the first is still at work after ONCE_WAIT_S, is refused 409 "already being done".
- The action's own commit marks the row applied, in the same transaction, and only while this
  request still owns the claim: a commit and its mark stand or fall together. A claim whose request
  died before its commit (a worker killed, the database gone) is taken over after
  ONCE_ABANDONED_S; the owner check then stops the first one's late commit.
- After the view, the answer is stored (below 500). A 5xx answer is not: with nothing committed the
  claim is let go (a retry applies it); after a commit the 503 says it was saved (`fault_after`,
  for any request that wrote, with a key or not), and a retry with the key answers "already saved".
- A request without a key (a script, a page from before) runs as it always did. Keys are kept a
  day (ONCE_LIFETIME_H), then pruned.
- The host's line (blueprints/host/line.py) takes the clock's taps without an HTTP request each: it
  claims, marks and keeps a tap's key with these same functions (`claim`, `held`, `keep`), as the
  POST to the clock would, and keeps the answer that POST would have given; so a tap sent on the line
  whose answer was lost, sent again over HTTP with its key, gets the first answer back.
"""
from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import re
import secrets
import time
from dataclasses import dataclass

from flask import Flask, Response, current_app, g, has_request_context, jsonify, request, session
from flask_login import current_user
from sqlalchemy import delete, event, exc, insert, select, update
from werkzeug.exceptions import BadRequest

from blueprints import is_htmx, wants_json
from services.models import RequestKey, utcnow
from wiring.extensions import db

FIELD = "idempotency_key"
HEADER = "Idempotency-Key"
REPLAYED = "Idempotency-Replayed"  # on an answer given again, not the request's own
# A key from the page: 16 to 64 letters, digits, "-" or "_" (static/js/once.js sends 32 hex digits).
KEY_SHAPE = re.compile(r"[A-Za-z0-9_-]{16,64}")
CHANGES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# Logging in and out, the set-up and password links: their answers set the login's cookie, and their
# links already work once; a double tap there is a login again. No key is claimed for them.
NOT_KEYED = "auth"
# The headers a repeat gets back with the first answer: what htmx and a browser act on.
KEPT_HEADERS = ("Content-Type", "Location", "Vary", "Cache-Control")
POLL_S = 0.05
BUSY = "That is already being done: wait a moment, then reload to see it."
SAVED = "That was already saved: reload the page to see it."
GARBLED = "The form's one-time key is garbled: reload the page, then try again."
# What the host's phone adds to an action it kept, offline or for want of an answer (static/host/kept.js
# and controls.js, keep): when it was tapped and, for a clock tap, on which clock. Sent again with its
# key, it is the same action, not another request: these do not name the request. Nor does the CSRF
# token: it proves whose the request is, not what it does, and a page read a second later holds
# another one (Flask-WTF's tokens are timestamped), so a repeat from a reloaded page is the same action.
UNNAMING_FIELDS = frozenset({"tapped_at_ms", "seen_clock", "csrf_token"})


@dataclass
class Claim:
    """This request's hold on its key: the row, the owner token, and what became of it."""
    id: int
    owner: str
    applied: bool = False      # the action's commit marked it (and that commit went through)
    settled: bool = False      # its answer stored, or the claim let go


@dataclass(frozen=True)
class Earlier:
    """What a repeat finds of its first sending: the answer it was given (`status`, `body`, `headers`),
    or, `body` None, only that it was applied (its answer not kept: "already saved"); `busy`: the
    first is still at work after ONCE_WAIT_S."""
    status: int = 200
    body: bytes | None = None
    headers: tuple = ()
    busy: bool = False


class TakenOver(Exception):
    """A claim abandoned too long was taken by a repeat of the request: this one's commit must not
    land as well (raised from the commit, which then rolls back)."""


def who() -> str:
    """Whose keys these are: the login, else the browser's session (its CSRF secret: a player's phone
    has one from the page whose form it sends), else the address. Hashed: the table holds no secret."""
    if current_user.is_authenticated:
        return f"login:{current_user.get_id()}"
    if secret := session.get("csrf_token"):
        return "session:" + hashlib.sha256(str(secret).encode()).hexdigest()
    return f"address:{request.remote_addr or ''}"[:80]


def _digest(key: str) -> str:
    """The key together with the request it came with: method, path and query, every field but the
    key and a kept tap's own (each uploaded file's name and bytes), or the raw body of JSON."""
    digest = hashlib.sha256(f"{key}\n{request.method} {request.full_path}\n".encode())
    if request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
        _add_fields(digest, request.form)
        for name, upload in sorted(request.files.items(multi=True), key=lambda item: item[0]):
            digest.update(json.dumps([name, upload.filename]).encode())
            digest.update(upload.stream.read())
            upload.stream.seek(0)
    else:
        digest.update(request.get_data(cache=True))
    return digest.hexdigest()


def form_digest(key: str, full_path: str, form, method: str = "POST") -> str:
    """What `_digest` makes of a form request to `full_path` (path "?" query, as werkzeug's full_path)
    with these fields: the host's line names its taps as the POST they stand for."""
    digest = hashlib.sha256(f"{key}\n{method} {full_path}\n".encode())
    _add_fields(digest, form)
    return digest.hexdigest()


def _add_fields(digest, form) -> None:
    for name, value in sorted(form.items(multi=True)):
        if name != FIELD and name not in UNNAMING_FIELDS:
            digest.update(json.dumps([name, value]).encode())


def shaped(key: str) -> bool:
    """A key as the page makes them (KEY_SHAPE)."""
    return bool(KEY_SHAPE.fullmatch(key))


def _key() -> str | None:
    """The request's key (header first, then the form's field), or None: no key, the old way."""
    key = request.headers.get(HEADER) or (request.form.get(FIELD) if request.mimetype != "application/json" else None)
    if not key:
        return None
    if not shaped(key):
        raise BadRequest(GARBLED)
    return key


def _prune(connection) -> None:
    """Keys older than ONCE_LIFETIME_H go, at most once a minute per process (an index range)."""
    now, last = time.monotonic(), current_app.extensions.get("once_pruned")
    if last is not None and now - last < 60:
        return
    current_app.extensions["once_pruned"] = now
    cutoff = utcnow() - dt.timedelta(hours=current_app.config["ONCE_LIFETIME_H"])
    connection.execute(delete(RequestKey).where(RequestKey.claimed_at < cutoff))


def _claim():
    """Before the view: claim this request's key, or answer as its first sending did (see the
    module). Nothing for a request without a key."""
    if request.method not in CHANGES or request.endpoint is None or request.blueprint == NOT_KEYED:
        return None
    key = _key()
    if key is None:
        return None
    found = claim(who(), _digest(key), request.path)
    if isinstance(found, Claim):
        _hold(found)
        return None
    return _answer_again(found)


def claim(whose: str, digest: str, path: str) -> Claim | Earlier:
    """Claim a key (`whose`: who(); `digest`: the key with its request): a Claim, this request applies
    it; or, when it was claimed already, what the first sending left (Earlier): its answer once kept,
    "applied" when it committed and never answered, "busy" when it is still at work after ONCE_WAIT_S.
    A claim whose request died before committing is taken over (a Claim) after ONCE_ABANDONED_S; one
    let go meanwhile (its request answered 5xx with nothing saved) is claimed afresh, once."""
    owner = secrets.token_hex(16)
    for _ in range(2):
        try:
            with db.engine.begin() as connection:
                _prune(connection)
                claim_id = connection.execute(insert(RequestKey).values(
                    who=whose, key=digest, owner=owner, path=path[:200], claimed_at=utcnow(),
                    applied=False).returning(RequestKey.id)).scalar_one()
        except exc.IntegrityError:
            found = _first_sending(whose, digest, owner)
            if found is not None:
                return found
        else:
            return Claim(claim_id, owner)
    return Earlier(busy=True)


def _first_sending(whose: str, digest: str, owner: str) -> Claim | Earlier | None:
    """A repeat of a claimed key: the first answer once it is stored; "applied" if the first committed
    and never answered; the claim taken over when its request died before committing; else, after
    ONCE_WAIT_S, "busy". None: the first let its claim go meanwhile."""
    config = current_app.config
    deadline = time.monotonic() + config["ONCE_WAIT_S"]
    query = select(RequestKey.id, RequestKey.owner, RequestKey.claimed_at, RequestKey.applied, RequestKey.status,
                   RequestKey.body, RequestKey.headers).where(RequestKey.who == whose, RequestKey.key == digest)
    while True:
        with db.engine.connect() as connection:
            row = connection.execute(query).first()
        if row is None:
            return None
        if row.status is not None:
            return Earlier(row.status, row.body, tuple(tuple(pair) for pair in row.headers or ()))
        abandoned = utcnow() - row.claimed_at > dt.timedelta(seconds=config["ONCE_ABANDONED_S"])
        if abandoned and not row.applied and _take_over(row.id, row.owner, owner):
            return Claim(row.id, owner)
        if time.monotonic() >= deadline:
            return Earlier() if row.applied else Earlier(busy=True)
        time.sleep(POLL_S)


def _hold(found: Claim) -> None:
    g.once = found
    g.pop("once_wrote", None)  # the claim's own write, on its own connection, is no action's


@contextlib.contextmanager
def held(found: Claim):
    """Apply an action under this claim, outside a request's own hooks (the host's line): its commit
    marks the claim applied (or fails, when a repeat took the claim over: TakenOver); an action that
    fails before committing lets the claim go, so a repeat applies it."""
    _hold(found)
    try:
        yield found
    except BaseException:
        if not found.applied:
            with contextlib.suppress(exc.SQLAlchemyError):
                _let_go(found)
            found.settled = True
        raise
    finally:
        g.pop("once", None)


def _take_over(claim_id: int, old: str, new: str) -> bool:
    """Take an abandoned claim, only while it is still not applied and still the old owner's."""
    with db.engine.begin() as connection:
        taken = connection.execute(update(RequestKey).where(
            RequestKey.id == claim_id, RequestKey.owner == old, RequestKey.applied.is_(False),
            RequestKey.status.is_(None)).values(owner=new, claimed_at=utcnow()))
    return taken.rowcount == 1


def _answer_again(found: Earlier) -> Response:
    """A repeat's answer: the first answer again, "already saved", or "already being done"."""
    if found.busy:
        return _said(BUSY, 409)
    if found.body is None:
        return _saved()
    response = Response(found.body or b"", status=found.status)
    for name, value in found.headers:
        response.headers[name] = value
    response.headers[REPLAYED] = "true"
    return response


def _saved() -> Response:
    """A repeat of an action that was applied, whose first answer is not kept: "already saved"."""
    response = _said(SAVED, 200)
    response.headers[REPLAYED] = "true"
    return response


def _said(words: str, status: int) -> Response:
    """A short answer in words (JSON for a script), for a repeat that has no first answer to give.
    For htmx, "saved" reloads the page, which then shows what was saved."""
    if wants_json():
        response = jsonify({"saved": True, "message": words} if status == 200 else {"error": words})
    else:
        response = Response(f'<p class="error" role="alert">{words}</p>', mimetype="text/html")
        if is_htmx() and status == 200:
            response.headers["HX-Refresh"] = "true"
        elif is_htmx():
            response.headers["HX-Reswap"] = "none"
    response.status_code = status
    response.headers["Cache-Control"] = "no-store"
    if status == 409:
        response.headers["Retry-After"] = "2"
    return response


def _store(response: Response) -> Response:
    """After the view: keep the answer for a repeat (below 500), or let an unapplied claim go."""
    found: Claim | None = g.pop("once", None)
    if found is None:
        return response
    if response.status_code >= 500 or response.is_streamed or response.direct_passthrough:
        if not found.applied:
            try:
                _let_go(found)
            except exc.SQLAlchemyError:  # the database went: a repeat takes the claim over once abandoned
                current_app.logger.warning("once: the claim of %s could not be let go", request.path)
        return response
    keep(found, response, secret=g.pop("answer_holds_secret", False))
    return response


def keep(found: Claim, response: Response, secret: bool = False) -> None:
    """Keep `response` as the claimed request's answer, for a repeat of it (`secret`: a password link
    to hand over, login_change: only that it was done is kept). The database gone: the answer still
    goes out; a repeat finds the claim as it is."""
    headers = [] if secret else [[name, value] for name, value in response.headers.items()
                                 if name in KEPT_HEADERS or name.startswith("HX-") or name == "Retry-After"]
    try:
        with db.engine.begin() as connection:
            connection.execute(update(RequestKey).where(RequestKey.id == found.id, RequestKey.owner == found.owner)
                               .values(status=response.status_code, body=None if secret else response.get_data(),
                                       headers=headers))
    except exc.SQLAlchemyError:
        current_app.logger.warning("once: the answer to %s could not be kept", request.path)
    found.settled = True


def _let_go(claim: Claim) -> None:
    with db.engine.begin() as connection:
        connection.execute(delete(RequestKey).where(RequestKey.id == claim.id, RequestKey.owner == claim.owner,
                                                    RequestKey.applied.is_(False)))


def _let_go_after_fault(error: BaseException | None) -> None:
    """A request that ended without an answer through _store (an error past every handler): its
    claim, if nothing was committed, is let go."""
    claim: Claim | None = g.pop("once", None)
    if claim is not None and not claim.applied and not claim.settled:
        # The database gone: a repeat takes the claim over once it is abandoned.
        with contextlib.suppress(exc.SQLAlchemyError):
            _let_go(claim)


WRITES = ("INSERT", "UPDATE", "DELETE", "REPLAC")


def _note_write(conn, cursor, statement, parameters, context, executemany) -> None:
    """A statement that writes, in a request, marks the request's transaction as writing (an ORM
    flush, or a Core UPDATE such as the clock's versioned write sent on the session's connection)."""
    if statement.lstrip()[:6].upper() in WRITES and has_request_context():
        g.once_wrote = True


def _mark_applied(session) -> None:
    """In every commit of a request that writes: note it (for the 503's words), and mark the request's
    claim applied in the same transaction, if the claim is still this request's (else the commit
    fails: a repeat took the claim over)."""
    if not has_request_context() or not (session.new or session.dirty or session.deleted or g.get("once_wrote")):
        return
    g.once_committing = True
    claim = g.get("once")
    if claim is None or claim.applied:
        return
    marked = session.execute(update(RequestKey).where(RequestKey.id == claim.id, RequestKey.owner == claim.owner)
                             .values(applied=True).execution_options(synchronize_session=False))
    if marked.rowcount != 1:
        raise TakenOver("this request's key was taken over by a repeat of it")
    session.info["once_marking"] = True


def _committed(session) -> None:
    if not has_request_context():
        return
    g.pop("once_wrote", None)
    if g.pop("once_committing", False):
        g.once_saved = True
    if session.info.pop("once_marking", False) and (claim := g.get("once")):
        claim.applied = True


def _rolled_back(session, previous_transaction) -> None:
    session.info.pop("once_marking", None)
    if has_request_context():
        g.pop("once_wrote", None)


def fault_after(saved_words: str, unsure_words: str, nothing_words: str) -> str:
    """What a request refused for a fault (the database gone) tells: `saved_words` when its action
    was committed first, `unsure_words` when the fault came during the commit (it may have landed: a
    retry with the same key finds out), else `nothing_words`."""
    if not has_request_context():
        return nothing_words
    if g.get("once_committing"):
        return unsure_words
    return saved_words if g.get("once_saved") else nothing_words


def _answer_taken_over(error: TakenOver):
    return _said(BUSY, 409)


def init_app(app: Flask) -> None:
    """Claim before every view (after the CSRF check and the rate limits: their hooks come first),
    keep the answer after, mark the claim in the action's commit."""
    app.before_request(_claim)
    app.after_request(_store)
    app.teardown_request(_let_go_after_fault)
    app.register_error_handler(TakenOver, _answer_taken_over)
    event.listen(db.session, "before_commit", _mark_applied)
    event.listen(db.session, "after_commit", _committed)
    event.listen(db.session, "after_soft_rollback", _rolled_back)
    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", _note_write)
