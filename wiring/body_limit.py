"""How large a request's body may be, decided before anything reads it.

Every route takes a small body (REQUEST_BODY_MAX: the largest form the app draws, the blind structure
editor's hundred items, fits); only the routes marked `takes_file` take more, and
only from a logged-in user (an organiser's results CSV or league file). A body over the limit is
refused with 413 from its Content-Length at once, before the CSRF check (which reads the form) or
anything else reads or spools it to disk. A chunked body says no length: it is read here, up to one
byte past the limit, and refused with the same 413 once it passes it; under the limit it is handed on
as a body of known length. (Werkzeug's own guard, `request.max_content_length`, is set too, but it
stops a form's read at the limit without a word, and the form would be taken cut short.)"""
from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable
from socket import SHUT_RD

from flask import Flask, abort, current_app, request
from flask_login import current_user


def takes_file(config_key: str) -> Callable:
    """Mark a view that takes an uploaded file: a logged-in user's body there may be as large as the
    setting `config_key` (MAX_CONTENT_LENGTH's per-route form)."""
    def mark(view):
        view.body_limit = config_key
        return view
    return mark


def allowed_body() -> int:
    """The largest body this request may send: the route's own file limit for a logged-in user, else
    REQUEST_BODY_MAX. Anonymous requests never get more, so nobody outside can fill the disk."""
    config = current_app.config
    view = current_app.view_functions.get(request.endpoint or "")
    key = getattr(view, "body_limit", None)
    if key and current_user.is_authenticated:
        return int(config[key])
    return int(config["REQUEST_BODY_MAX"])


def _refuse() -> None:
    """413, and read no more of this connection: without that, the server would read the rest of the
    body to reach the next request on it (gunicorn's keep-alive drains it in a loop that, fed as fast
    as loopback or a LAN sends, never lets a gevent worker's other requests run: one 250 MB post held
    up every phone's clock for 35 s). The answer is still sent; the connection then closes."""
    for key in ("gunicorn.socket", "werkzeug.socket"):
        if (sock := request.environ.get(key)) is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(SHUT_RD)
    abort(413)


def _check_body() -> None:
    limit = allowed_body()
    request.max_content_length = limit
    if request.content_length is not None and request.content_length > limit:
        _refuse()
    if request.content_length is None and "chunked" in request.headers.get("Transfer-Encoding", "").lower():
        _take_chunked(limit)


def _take_chunked(limit: int) -> None:
    """Read a chunked body up to the limit (in memory while it is as small as a form, a temporary
    file past that, for an organiser's file) and pass it on with its length; refuse it once it is over."""
    environ = request.environ
    source = environ["wsgi.input"]
    # Not a `with`: the file is the request's body from here on, closed with the request's input.
    body = tempfile.SpooledTemporaryFile(max_size=int(current_app.config["REQUEST_BODY_MAX"]))  # noqa: SIM115
    size = 0
    while size <= limit:
        chunk = source.read(min(64 * 1024, limit + 1 - size))
        if not chunk:
            break
        body.write(chunk)
        size += len(chunk)
    if size > limit:
        body.close()
        _refuse()
    body.seek(0)
    environ["wsgi.input"] = body
    environ["CONTENT_LENGTH"] = str(size)


def init_app(app: Flask) -> None:
    """Check each request's size first (before CSRFProtect's hook, which reads the form)."""
    app.before_request(_check_body)
