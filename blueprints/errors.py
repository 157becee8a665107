"""The app's refusals as people read them: a 400, 403, 404, 405, 410, 413, 415, 422, 429, 500 or 503 answered as a
page in the app's own layout (phone width, either theme) saying what happened and what to do next;
as the fragment-sized refusal alone to htmx, and as `{"error": reason}` to a script that asks for
JSON (the /api/ paths always). Registered once for every HTTP error by init_app.

A view's own refusal (the roster's 422 with its override, the structure editor's reasons) is its
fragment, not one of these: these answer what no view answered itself (a stale form, a login that
ran out, a night that is gone)."""
from __future__ import annotations

import contextlib
from typing import NamedTuple

from flask import Flask, jsonify
from flask_wtf.csrf import CSRFError
from sqlalchemy.exc import IntegrityError
from werkzeug.exceptions import Conflict, HTTPException, InternalServerError, UnprocessableEntity

from blueprints import is_htmx, page_or_fragment, wants_json
from services import Refused
from wiring.extensions import db


class Words(NamedTuple):
    """A refusal's page: its heading, what happened (unless the view gave its own reason), what to do."""
    title: str
    happened: str
    next: str


WORDS = {
    400: Words("That didn't make sense",
               "Something in the link or the form was garbled, so nothing changed.",
               "Go back, reload the page and try again."),
    403: Words("Not for this login",
               "This page belongs to someone else: a host runs the nights at their own venues, an organiser "
               "their own league, and a player's phone acts only for that player.",
               "Log in as the person who runs it, or go back."),
    404: Words("Not found",
               "There is nothing at this address: the link is old or mistyped.",
               "Start again from the home page, or ask the host for tonight's link."),
    405: Words("Not from here",
               "This address doesn't take that kind of request.",
               "Go back and use the page's own buttons."),
    410: Words("This has closed",
               "What this link led to has closed.",
               "Ask the host for tonight's QR code, or see the league's coming nights."),
    413: Words("Too large",
               "What you sent is larger than this page takes, so nothing changed.",
               "Send a smaller file; a big results file goes in from the command line (flask league import-results)."),
    415: Words("Not a form",
               "What was sent was not the page's own form (a script's JSON, say), so nothing changed.",
               "Go back and use the page's own buttons."),
    422: Words("That can't be kept",
               "Something sent can't be stored as it is, so nothing changed.",
               "Go back, correct it and try again."),
    429: Words("Too many tries",
               "This phone asked too often in a short time, so the last one was not taken.",
               "Wait a minute, then try again."),
    500: Words("Something went wrong on our side",
               "The server hit a fault it did not expect: what you just did may not have been saved.",
               "Reload the page to see what stands before you tap again. If it happens again, tell the organiser."),
    503: Words("Back in a moment",
               "The server is busy or restarting, so nothing changed.",
               "Try again in a few seconds."),
}
# A write the database refused on one of its "only one" rules (a unique constraint: a venue's or a
# login's name, one bonus of a kind, one open merge) because another request made the same a moment
# before: a double tap that reached the database twice, or two phones at once.
ALREADY_MADE = ("That was just saved by another tap or another phone at the same moment, so this one was not "
                "taken: reload the page to see what stands.")
# A form whose CSRF token has expired or is missing (a page left open overnight, another site's form).
STALE_FORM = "This page was open too long, so what it sent was not taken."


def _happened(error: HTTPException, words: Words) -> str:
    """The view's own reason when it gave one (abort(404, description=…)), else the page's words."""
    if isinstance(error, CSRFError):
        return STALE_FORM
    given = error.description
    return given if given and given != type(error).description else words.happened


def answer(error: HTTPException):
    """The refusal `error` as a page, a fragment or JSON (see the module); its status kept, and a
    405's Allow and a 429's or 503's Retry-After headers with it."""
    if error.code is None or error.code < 400:  # not a refusal (werkzeug's redirects): as it is
        return error
    if isinstance(error, InternalServerError):
        # Whatever failed may have left the transaction broken; the page below reads who is logged in.
        with contextlib.suppress(Exception):
            db.session.rollback()
    # A refusal with no words of its own here says werkzeug's.
    words = WORDS.get(error.code) or Words(error.name, error.description, WORDS[400].next)
    happened = _happened(error, words)
    if wants_json():
        response = jsonify({"error": happened})
        response.status_code = error.code
    else:
        response = page_or_fragment("errors/error.html", "errors/_error.html", error.code,
                                    words=words, happened=happened, code=error.code)
        if is_htmx():  # the refusal replaces nothing on the screen: app.js shows it atop the form tapped
            response.headers["HX-Reswap"] = "none"
    for name, value in error.get_headers():
        if name in ("Allow", "Retry-After"):
            response.headers[name] = value
    response.headers["Cache-Control"] = "no-store"
    return response


def refused(error: Refused):
    """A rule's refusal no view caught (the stored-text check at a flush, say): 422 with its reason,
    the transaction rolled back so nothing of the request is written, never a 500."""
    with contextlib.suppress(Exception):
        db.session.rollback()
    return answer(UnprocessableEntity(description=str(error)))


def already_made(error: IntegrityError):
    """A unique constraint held against a second write of the same thing (ALREADY_MADE): 409, its
    transaction rolled back, nothing written; never a 500. Any other integrity error (a NOT NULL, a
    CHECK) is a bug: raised on, a 500."""
    original = error.orig
    if not (getattr(original, "sqlstate", None) == "23505" or "UNIQUE constraint failed" in str(original)):
        raise error
    with contextlib.suppress(Exception):
        db.session.rollback()
    return answer(Conflict(ALREADY_MADE))


def init_app(app: Flask) -> None:
    """Answer every HTTP error through `answer` (a blueprint's own handler, such as the claim form's
    429, still comes first), a rule's refusal no view caught through `refused`, and a unique constraint's
    refusal through `already_made`."""
    app.register_error_handler(HTTPException, answer)
    app.register_error_handler(Refused, refused)
    app.register_error_handler(IntegrityError, already_made)
