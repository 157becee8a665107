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


@dataclass
class Claim:
    """This request's hold on its key: the row, the owner token, and what became of it."""
    id: int
    owner: str
    applied: bool = False      # the action's commit marked it (and that commit went through)
    settled: bool = False      # its answer stored, or the claim let go


class TakenOver(Exception):
    """A claim abandoned too long was taken by a repeat of the request: this one's commit must not
    land as well (raised from the commit, which then rolls back)."""


def _who() -> str:
    """Whose keys these are: the login, else the browser's session (its CSRF secret: a player's phone
    has one from the page whose form it sends), else the address. Hashed: the table holds no secret."""
    if current_user.is_authenticated:
        return f"login:{current_user.get_id()}"
    if secret := session.get("csrf_token"):
        return "session:" + hashlib.sha256(str(secret).encode()).hexdigest()
    return f"address:{request.remote_addr or ''}"[:80]


def _digest(key: str) -> str:
    """The key together with the request it came with: method, path and query, every field but the
    key (each uploaded file's name and bytes), or the raw body of JSON."""
    digest = hashlib.sha256(f"{key}\n{request.method} {request.full_path}\n".encode())
    if request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
        for name, value in sorted(request.form.items(multi=True)):
            if name != FIELD:
                digest.update(json.dumps([name, value]).encode())
        for name, upload in sorted(request.files.items(multi=True), key=lambda item: item[0]):
            digest.update(json.dumps([name, upload.filename]).encode())
            digest.update(upload.stream.read())
            upload.stream.seek(0)
    else:
        digest.update(request.get_data(cache=True))
    return digest.hexdigest()


def _key() -> str | None:
    """The request's key (header first, then the form's field), or None: no key, the old way."""
    key = request.headers.get(HEADER) or (request.form.get(FIELD) if request.mimetype != "application/json" else None)
    if not key:
        return None
    if not KEY_SHAPE.fullmatch(key):
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
    who, digest, owner = _who(), _digest(key), secrets.token_hex(16)
    try:
        with db.engine.begin() as connection:
            _prune(connection)
            claim_id = connection.execute(insert(RequestKey).values(
                who=who, key=digest, owner=owner, path=request.path[:200], claimed_at=utcnow(),
                applied=False).returning(RequestKey.id)).scalar_one()
    except exc.IntegrityError:
        return _repeat(who, digest, owner)
    g.once = Claim(claim_id, owner)
    g.pop("once_wrote", None)  # the claim's own write, on its own connection, is no action's
    return None


def _repeat(who: str, digest: str, owner: str) -> Response | None:
    """A repeat of a claimed key: the first answer once it is stored; "already saved" if the first
    committed and never answered; the claim taken over when its request died before committing;
    else, after ONCE_WAIT_S, 409 "already being done"."""
    config = current_app.config
    deadline = time.monotonic() + config["ONCE_WAIT_S"]
    query = select(RequestKey.id, RequestKey.owner, RequestKey.claimed_at, RequestKey.applied, RequestKey.status,
                   RequestKey.body, RequestKey.headers).where(RequestKey.who == who, RequestKey.key == digest)
    while True:
        with db.engine.connect() as connection:
            row = connection.execute(query).first()
        if row is None:  # let go meanwhile (its request answered 5xx with nothing saved): claim it again
            return _claim_again()
        if row.status is not None:
            return _replayed(row)
        abandoned = utcnow() - row.claimed_at > dt.timedelta(seconds=config["ONCE_ABANDONED_S"])
        if abandoned and not row.applied and _take_over(row.id, row.owner, owner):
            g.once = Claim(row.id, owner)
            g.pop("once_wrote", None)
            return None
        if time.monotonic() >= deadline:
            return _saved() if row.applied else _said(BUSY, 409)
        time.sleep(POLL_S)


def _claim_again() -> Response | None:
    """The first request let its claim go: this one claims afresh (once; then it is busy)."""
    if g.get("once_retried"):
        return _said(BUSY, 409)
    g.once_retried = True
    return _claim()


def _take_over(claim_id: int, old: str, new: str) -> bool:
    """Take an abandoned claim, only while it is still not applied and still the old owner's."""
    with db.engine.begin() as connection:
        taken = connection.execute(update(RequestKey).where(
            RequestKey.id == claim_id, RequestKey.owner == old, RequestKey.applied.is_(False),
            RequestKey.status.is_(None)).values(owner=new, claimed_at=utcnow()))
    return taken.rowcount == 1


def _replayed(row) -> Response:
    """The first answer again, as it was sent (or "saved", when it held a secret)."""
    if row.body is None:
        return _saved()
    response = Response(row.body or b"", status=row.status)
    for name, value in row.headers or []:
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
    claim: Claim | None = g.pop("once", None)
    if claim is None:
        return response
    try:
        if response.status_code >= 500 or response.is_streamed or response.direct_passthrough:
            if not claim.applied:
                _let_go(claim)
            return response
        secret = g.pop("answer_holds_secret", False)  # a password link to hand over (login_change)
        headers = [] if secret else [[name, value] for name, value in response.headers.items()
                                     if name in KEPT_HEADERS or name.startswith("HX-") or name == "Retry-After"]
        with db.engine.begin() as connection:
            connection.execute(update(RequestKey).where(RequestKey.id == claim.id, RequestKey.owner == claim.owner)
                               .values(status=response.status_code, body=None if secret else response.get_data(),
                                       headers=headers))
    except exc.SQLAlchemyError:  # the database went: the answer still goes out; a repeat finds the claim as it is
        current_app.logger.warning("once: the answer to %s could not be kept", request.path)
    claim.settled = True
    return response


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
