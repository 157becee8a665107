"""Response headers that tell their reader nothing, left off: on a phone's first load every header
is bytes on one bar of signal (tests/e2e/test_pwa.py counts them).

- A second Date: the server writes the Date header itself (werkzeug's and gunicorn's always do),
  and werkzeug's make_conditional (Flask-Compress's, the static files') adds one more; HTTP allows
  one Date field.
- Vary where no cache keys on it: Flask adds `Vary: Cookie` to every response whose request touched
  the session, and Flask-Login's after-request hook touches it on every request. A static file is
  the same whoever asks (a cookie changed between the page and the service worker's install would
  otherwise make the browser ask again for files it holds), and a `no-store` JSON answer (the
  clock's /api/time samples) is never cached. A page keeps its Vary (blueprints/__init__.py,
  page_or_fragment: a fragment must never stand in for its page).

And one header that must change: a response that sets a cookie is never `public`. Flask-Login sets
the remember-me cookie on whatever request follows a login, a static file's too, which is
otherwise kept a year by anyone (wiring/precompressed.py): a shared cache must not hand one
player's login to the next.
"""
from __future__ import annotations

from flask import Flask, Response, request
from flask.sessions import SecureCookieSessionInterface


def _one_date(response: Response) -> Response:
    response.headers.pop("Date", None)
    return response


def _unvaried(response: Response) -> None:
    if response.cache_control.no_store and response.mimetype == "application/json":
        response.headers.pop("Vary", None)
    elif request.endpoint == "static" and "Set-Cookie" not in response.headers:
        kept = [name for name in response.vary if name.lower() != "cookie"]
        if kept:
            response.headers["Vary"] = ", ".join(kept)
        else:
            response.headers.pop("Vary", None)


def _private_with_a_cookie(response: Response) -> None:
    if "Set-Cookie" in response.headers and response.cache_control.public:
        response.headers["Cache-Control"] = "private, no-cache"


class SessionWithoutIdleVary(SecureCookieSessionInterface):
    """Flask's signed-cookie session, its `Vary: Cookie` left off where no cache keys on it, and a
    response that sets a cookie kept private (both after every after-request hook: the session's
    cookie is set here, Flask-Login's remember-me cookie in a hook)."""

    def save_session(self, app, session, response):
        super().save_session(app, session, response)
        _unvaried(response)
        _private_with_a_cookie(response)


def init_app(app: Flask) -> None:
    """Before Flask-Compress (wiring/extensions.py): after-request hooks run last-registered first,
    so the second Date goes after every make_conditional has added it."""
    app.session_interface = SessionWithoutIdleVary()
    app.after_request(_one_date)
